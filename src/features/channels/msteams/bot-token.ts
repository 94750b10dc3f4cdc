import { importRsaJwk, type JwtRefusal, verifyRs256JwtWith } from "../../../util/jwt-rs256";

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

export type BotTokenVerdict = { ok: true; claims: BotTokenClaims } | { ok: false; reason: JwtRefusal };

/** Reads `Bearer <jwt>` from an Authorization header value; null when absent or not a bearer. */
export function bearerToken(header: string | null): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(header?.trim() ?? "");
  return match ? match[1]! : null;
}

/**
 * Verifies the token's signature and claims with the shared RS256 verifier
 * (src/util/jwt-rs256.ts, as Google Chat's). `keyFor` finds the signing key by `kid` (null: no
 * such key, after any refresh the caller chooses to make; it throws when the keys are
 * unreachable).
 */
export async function verifyBotToken(input: {
  token: string;
  appId: string;
  nowMs: number;
  keyFor: (kid: string) => Promise<BotFrameworkJwk | null>;
}): Promise<BotTokenVerdict> {
  const verdict = await verifyRs256JwtWith(
    input.token,
    async (kid) => {
      if (kid === undefined) return null;
      const jwk = await input.keyFor(kid);
      return jwk ? importRsaJwk(jwk) : null;
    },
    {
      audiences: [input.appId],
      issuers: [BOT_FRAMEWORK_ISSUER],
      nowSeconds: Math.floor(input.nowMs / 1000),
      skewSeconds: TOKEN_CLOCK_SKEW_MS / 1000,
    },
  );
  return verdict.ok ? { ok: true, claims: verdict.claims as BotTokenClaims } : verdict;
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
