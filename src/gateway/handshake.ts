import type { z } from "zod";
import { type ConnectParams, SUPPORTED_PROTOCOLS } from "../protocol/gateway";
import { OPERATOR_SCOPES, type OperatorScope } from "../protocol/http";
import { fromBase64Url, toHex } from "../util/encoding";

/** Pure decisions of the connect handshake: protocol, scopes, device signature, error texts. */

/** The highest protocol both sides speak, or null (→ "protocol mismatch", close 1002). */
export function negotiateProtocol(minProtocol: number, maxProtocol: number): 3 | 4 | null {
  for (const version of [...SUPPORTED_PROTOCOLS].reverse()) {
    if (version >= minProtocol && version <= maxProtocol) return version;
  }
  return null;
}

/** Requested scopes the token holds (write/admin imply read); none requested = all the token has. */
export function grantScopes(requested: string[] | undefined, held: readonly OperatorScope[]): OperatorScope[] {
  const known = (requested ?? held).filter((s): s is OperatorScope =>
    (OPERATOR_SCOPES as readonly string[]).includes(s),
  );
  const holds = (scope: OperatorScope) =>
    held.includes("operator.admin") ||
    held.includes(scope) ||
    (scope === "operator.read" && held.includes("operator.write"));
  return [...new Set(known.filter(holds))];
}

/** OpenClaw's device signature payload (v2), the scheme openclaw-node signs. */
export function devicePayload(input: {
  deviceId: string;
  clientId: string;
  clientMode: string;
  role: string;
  scopes: string[];
  signedAt: number;
  token: string;
  nonce: string;
}): string {
  return [
    "v2",
    input.deviceId,
    input.clientId,
    input.clientMode,
    input.role,
    input.scopes.join(","),
    String(input.signedAt),
    input.token,
    input.nonce,
  ].join("|");
}

/** How far a device signature's timestamp may drift from the server clock. */
export const DEVICE_SIGNATURE_SKEW_MS = 10 * 60_000;

/**
 * Verifies the optional ed25519 `device` block: nonce of this challenge, id = sha256 of the
 * raw public key, timestamp within the skew, signature over the v2 payload. Returns the
 * failure reason code, or null when valid.
 */
export async function verifyDevice(
  device: NonNullable<ConnectParams["device"]>,
  context: {
    nonce: string;
    clientId: string;
    clientMode: string;
    role: string;
    scopes: string[];
    token: string;
    now: number;
  },
): Promise<string | null> {
  if (device.nonce !== context.nonce) return "DEVICE_AUTH_NONCE_MISMATCH";
  if (Math.abs(context.now - device.signedAt) > DEVICE_SIGNATURE_SKEW_MS) return "DEVICE_AUTH_SIGNATURE_EXPIRED";
  const publicKey = fromBase64Url(device.publicKey);
  const signature = fromBase64Url(device.signature);
  if (publicKey?.byteLength !== 32 || !signature) return "DEVICE_AUTH_PUBLIC_KEY_INVALID";
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", publicKey));
  const expectedId = toHex(digest);
  if (expectedId !== device.id.toLowerCase()) return "DEVICE_AUTH_DEVICE_ID_MISMATCH";
  const payload = devicePayload({
    deviceId: device.id,
    clientId: context.clientId,
    clientMode: context.clientMode,
    role: context.role,
    scopes: context.scopes,
    signedAt: device.signedAt,
    token: context.token,
    nonce: device.nonce,
  });
  try {
    const key = await crypto.subtle.importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);
    const valid = await crypto.subtle.verify({ name: "Ed25519" }, key, signature, new TextEncoder().encode(payload));
    return valid ? null : "DEVICE_AUTH_SIGNATURE_INVALID";
  } catch {
    return "DEVICE_AUTH_SIGNATURE_INVALID";
  }
}

/** zod issues in the words of OpenClaw's (ajv) validation messages. */
export function describeParamsError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const path = issue.path.map(String);
      if (issue.code === "invalid_type" && issue.input === undefined) {
        const field = path.pop();
        return `${path.length ? `at /${path.join("/")}: ` : ""}must have required property '${field}'`;
      }
      if (issue.code === "unrecognized_keys") {
        return `${path.length ? `at /${path.join("/")}: ` : ""}must NOT have additional properties (${issue.keys.join(", ")})`;
      }
      return `${path.length ? `at /${path.join("/")}: ` : ""}${issue.message}`;
    })
    .join("; ");
}
