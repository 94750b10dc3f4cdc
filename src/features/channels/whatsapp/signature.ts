import { hmacKey, hmacSign } from "../../../auth/hmac";
import { toHex } from "../../../util/encoding";

/**
 * Meta's webhook checks for the WhatsApp Cloud API. A POST carries `X-Hub-Signature-256:
 * sha256=<hex HMAC-SHA256 of the raw body with the app secret>`; the subscription is confirmed by
 * a GET with `hub.mode=subscribe`, `hub.verify_token` (the tenant's own token) and
 * `hub.challenge`, answered with the challenge as plain text. Pure (WebCrypto only); the
 * signature comparison is constant-time (`crypto.subtle.verify`).
 */

export const SIGNATURE_HEADER = "x-hub-signature-256";

const SIGNATURE_FORMAT = /^sha256=([0-9a-f]{64})$/i;

/** Whether the header could be Meta's at all: checked before the body is read. */
export function signatureHeaderPlausible(header: string | null | undefined): boolean {
  return SIGNATURE_FORMAT.test(header ?? "");
}

/** The header value Meta sends for this body (the fake platform and tests sign with it). */
export async function whatsappSignature(appSecret: string, body: string): Promise<string> {
  return `sha256=${toHex(await hmacSign(appSecret, body))}`;
}

/** True only for a well-formed signature of exactly this raw body. */
export async function verifyWhatsappSignature(
  appSecret: string,
  header: string | null,
  body: string,
): Promise<boolean> {
  const match = SIGNATURE_FORMAT.exec(header ?? "");
  if (!match) return false;
  const given = new Uint8Array(match[1]!.match(/../g)!.map((byte) => Number.parseInt(byte, 16)));
  return crypto.subtle.verify("HMAC", await hmacKey(appSecret), given, new TextEncoder().encode(body));
}

/**
 * The answer to Meta's subscription check: the challenge when the mode is `subscribe` and the
 * token is the tenant's verify token (compared in constant time), else null (403).
 */
export async function subscriptionChallenge(
  query: { mode: string | null; token: string | null; challenge: string | null },
  verifyToken: string,
): Promise<string | null> {
  if (query.mode !== "subscribe" || query.challenge === null || query.token === null) return null;
  return (await sameText(query.token, verifyToken)) ? query.challenge : null;
}

/** Constant-time text equality: `b` verified against the HMAC of `a` under a fresh key. */
async function sameText(a: string, b: string): Promise<boolean> {
  const key = toHex(crypto.getRandomValues(new Uint8Array(16)));
  return crypto.subtle.verify("HMAC", await hmacKey(key), await hmacSign(key, a), new TextEncoder().encode(b));
}
