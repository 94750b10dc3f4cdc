import { fromBase64Url, toBase64Url } from "../util/encoding";
import { hmacKey, hmacSign } from "./hmac";

/**
 * A JSON value signed with a deployment secret: `<payload>.<hmac>`, both unpadded canonical
 * base64url. Run tokens and access grants share it.
 */
export async function signJson(secret: string, value: unknown): Promise<string> {
  const payload = toBase64Url(new TextEncoder().encode(JSON.stringify(value)));
  return `${payload}.${toBase64Url(await hmacSign(secret, payload))}`;
}

/**
 * The value of a text `signJson` made with `secret`, else null. Only the one encoding it makes is
 * accepted (anything appended, padded or re-encoded is refused); never throws on garbage.
 */
export async function verifySignedJson(secret: string, text: string): Promise<unknown | null> {
  const parts = text.split(".");
  if (parts.length !== 2) return null;
  const [payload, signature] = parts as [string, string];
  if (!isCanonicalBase64Url(payload) || !isCanonicalBase64Url(signature)) return null;
  const expected = fromBase64Url(signature);
  if (!expected) return null;
  const valid = await crypto.subtle.verify("HMAC", await hmacKey(secret), expected, new TextEncoder().encode(payload));
  if (!valid) return null;
  try {
    return JSON.parse(new TextDecoder().decode(fromBase64Url(payload) ?? new Uint8Array())) as unknown;
  } catch {
    return null;
  }
}

function isCanonicalBase64Url(text: string): boolean {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return false;
  const bytes = fromBase64Url(text);
  return bytes !== null && toBase64Url(bytes) === text;
}
