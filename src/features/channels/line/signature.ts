import { hmacKey, hmacSign } from "../../../auth/hmac";

/**
 * LINE's webhook signature (SPEC §3.1): `X-Line-Signature` is base64 HMAC-SHA256 of the raw body
 * with the channel secret. No timestamp: redelivery is LINE's own, and the inbox dedupes it.
 * Pure (WebCrypto only); the comparison is constant-time (`crypto.subtle.verify`).
 */

export const LINE_SIGNATURE_HEADER = "x-line-signature";

/** A base64 HMAC-SHA256 digest: 32 bytes, 44 characters with one `=`. */
const SIGNATURE_FORMAT = /^[A-Za-z0-9+/]{43}=$/;

/** The `X-Line-Signature` value LINE sends for this body (tests and tools sign with it). */
export async function lineSignature(channelSecret: string, body: string): Promise<string> {
  return btoa(String.fromCharCode(...(await hmacSign(channelSecret, body))));
}

/** True only for a well-formed signature of exactly this body under this channel secret. */
export async function verifyLineSignature(input: {
  channelSecret: string;
  signature: string | undefined;
  body: string;
}): Promise<boolean> {
  const signature = input.signature?.trim() ?? "";
  if (!SIGNATURE_FORMAT.test(signature)) return false;
  const given = Uint8Array.from(atob(signature), (char) => char.charCodeAt(0));
  return crypto.subtle.verify("HMAC", await hmacKey(input.channelSecret), given, new TextEncoder().encode(input.body));
}
