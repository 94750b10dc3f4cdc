import { sha256Hex, toBase64Url, toHex } from "../util/encoding";

export { sha256Hex };

/**
 * Operator tokens: `ocs_<tokenId>.<secret>`. The id lets the tenant look the record up;
 * only the SHA-256 of the whole token is stored, and comparisons are constant-time.
 */

const TOKEN_PREFIX = "ocs_";
const TOKEN_PATTERN = /^ocs_([0-9a-f]{16})\.([A-Za-z0-9_-]{43})$/;

export type MintedToken = { tokenId: string; token: string; hash: string };

export async function mintToken(): Promise<MintedToken> {
  const tokenId = toHex(crypto.getRandomValues(new Uint8Array(8)));
  const secret = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
  const token = `${TOKEN_PREFIX}${tokenId}.${secret}`;
  return { tokenId, token, hash: await sha256Hex(token) };
}

/** The token id of a well-formed token, else null (never throws on garbage). */
export function parseTokenId(token: string): string | null {
  return TOKEN_PATTERN.exec(token)?.[1] ?? null;
}

/** Constant-time equality of two strings (lengths may leak; contents do not). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  if (left.byteLength !== right.byteLength) {
    // Compare against itself so both branches cost the same.
    crypto.subtle.timingSafeEqual(left, left);
    return false;
  }
  return crypto.subtle.timingSafeEqual(left, right);
}

export function bearerToken(header: string | undefined | null): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
