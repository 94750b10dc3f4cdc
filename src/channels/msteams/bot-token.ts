import { fromBase64Url } from "../../util/encoding";

/**
 * The Bot Framework's JWT on an inbound activity (`Authorization: Bearer …`), checked as the
 * Bot Connector service issues it: RS256 under a key of the published set, issuer
 * `https://api.botframework.com`, audience the bot's app id, inside its validity window with a
 * clock skew, and the token's `serviceurl` claim equal to the activity's `serviceUrl` (so a token
 * minted for one Bot Connector cannot steer replies to another host). Checked before the body
 * is read for the signature; the serviceUrl comparison needs the parsed activity.
 */

export const BOT_FRAMEWORK_ISSUER = "https://api.botframework.com";
/** The Bot Framework SDKs' clock tolerance (5 minutes). */
export const TOKEN_CLOCK_SKEW_MS = 5 * 60 * 1000;

export type BotTokenClaims = { iss: string; aud: string; exp: number; nbf?: number; serviceurl?: string };

/** A public key of the published set, as JWKS lists it (Teams keys carry `endorsements`). */
export type BotFrameworkJwk = JsonWebKey & { kid?: string; endorsements?: string[] };

export type BotTokenVerdict = { ok: true; claims: BotTokenClaims } | { ok: false; reason: string };

/** Reads `Bearer <jwt>` from an Authorization header value; null when absent or not a bearer. */
export function bearerToken(header: string | null): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(header?.trim() ?? "");
  return match ? match[1]! : null;
}

/**
 * Verifies the token's signature and claims. `keyFor` finds the signing key by `kid` (null: no
 * such key, after any refresh the caller chooses to make).
 */
export async function verifyBotToken(input: {
  token: string;
  appId: string;
  nowMs: number;
  keyFor: (kid: string) => Promise<BotFrameworkJwk | null>;
}): Promise<BotTokenVerdict> {
  const parts = input.token.split(".");
  if (parts.length !== 3) return { ok: false, reason: "not a JWT" };
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = decodeJson(headerPart);
  const claims = decodeJson(payloadPart);
  if (!header || !claims) return { ok: false, reason: "unreadable token" };
  if (header.alg !== "RS256") return { ok: false, reason: `algorithm ${String(header.alg)} not accepted` };
  if (typeof header.kid !== "string") return { ok: false, reason: "no key id" };
  const jwk = await input.keyFor(header.kid);
  if (!jwk) return { ok: false, reason: "unknown signing key" };
  const signature = fromBase64Url(signaturePart);
  if (!signature) return { ok: false, reason: "unreadable signature" };
  let valid = false;
  try {
    const key = await crypto.subtle.importKey(
      "jwk",
      { kty: jwk.kty, n: jwk.n, e: jwk.e },
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
      false,
      ["verify"],
    );
    const signed = new TextEncoder().encode(`${headerPart}.${payloadPart}`);
    valid = await crypto.subtle.verify("RSASSA-PKCS1-v1_5", key, signature, signed);
  } catch {
    return { ok: false, reason: "unusable signing key" };
  }
  if (!valid) return { ok: false, reason: "bad signature" };
  return checkClaims(claims, input.appId, input.nowMs);
}

/** The claims' rules, once the signature holds. Pure. */
export function checkClaims(claims: Record<string, unknown>, appId: string, nowMs: number): BotTokenVerdict {
  if (claims.iss !== BOT_FRAMEWORK_ISSUER) return { ok: false, reason: "wrong issuer" };
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(appId)) return { ok: false, reason: "wrong audience" };
  if (typeof claims.exp !== "number") return { ok: false, reason: "no expiry" };
  if (claims.exp * 1000 + TOKEN_CLOCK_SKEW_MS < nowMs) return { ok: false, reason: "token expired" };
  if (typeof claims.nbf === "number" && claims.nbf * 1000 - TOKEN_CLOCK_SKEW_MS > nowMs)
    return { ok: false, reason: "token not yet valid" };
  return { ok: true, claims: claims as BotTokenClaims };
}

/**
 * The activity's serviceUrl against the token's `serviceurl` claim (trailing slash and case of
 * the host aside). A token without the claim (the emulator's) does not pass: replies go to the
 * serviceUrl with the bot's own credentials, so it must be the one the Bot Connector vouched for.
 */
export function serviceUrlMatches(claims: BotTokenClaims, serviceUrl: string): boolean {
  if (typeof claims.serviceurl !== "string") return false;
  return normalizeServiceUrl(claims.serviceurl) === normalizeServiceUrl(serviceUrl);
}

function normalizeServiceUrl(value: string): string {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`.toLowerCase();
  } catch {
    return value;
  }
}

function decodeJson(part: string): Record<string, unknown> | null {
  const bytes = fromBase64Url(part);
  if (!bytes) return null;
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
