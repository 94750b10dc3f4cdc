import { toHex } from "../util/encoding";
import { hmacSign } from "./hmac";

/** Header carrying `sha256=<hex HMAC-SHA256 of the body>` with the tenant's runner secret. */
export const SIGNATURE_HEADER = "x-openclaw-signature";

/** The signature header of an outbound webhook body (run requests and channel deliveries alike). */
export async function signatureHeader(secret: string, body: string): Promise<Record<string, string>> {
  return { [SIGNATURE_HEADER]: `sha256=${toHex(await hmacSign(secret, body))}` };
}
