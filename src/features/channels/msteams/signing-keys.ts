import { guardedFetch } from "../../../policy/guarded-fetch";
import type { OutboundPolicy } from "../../../policy/outbound-url";
import type { BotFrameworkJwk } from "./bot-token";

/**
 * The Bot Framework's signing keys: OpenID metadata → `jwks_uri` → the key set, each fetched
 * through the outbound guard (the metadata URL is replaceable per tenant, so it is tenant
 * input) and cached per isolate. An unknown `kid` refetches the set, at most once per
 * {@link KEY_REFETCH_MIN_MS}, so a stream of forged key ids cannot make every request a fetch.
 */

export const BOT_FRAMEWORK_OPENID_URL = "https://login.botframework.com/v1/.well-known/openidconfiguration";
/** How long a fetched key set is used (the SDKs refresh daily). */
export const KEY_SET_TTL_MS = 24 * 60 * 60 * 1000;
/** The least time between two fetches of one key set. */
export const KEY_REFETCH_MIN_MS = 5 * 60 * 1000;

type CachedKeys = { keys: BotFrameworkJwk[]; fetchedAtMs: number };
const keySets = new Map<string, CachedKeys>();

/** Finds the key `kid` under the metadata at `openIdUrl`; null when the set does not have it. */
export async function botFrameworkKey(input: {
  openIdUrl: string;
  kid: string;
  policy: OutboundPolicy;
  nowMs: number;
}): Promise<BotFrameworkJwk | null> {
  let cached = keySets.get(input.openIdUrl);
  const stale = !cached || input.nowMs - cached.fetchedAtMs > KEY_SET_TTL_MS;
  const missing = cached && !cached.keys.some((key) => key.kid === input.kid);
  if (stale || (missing && input.nowMs - cached!.fetchedAtMs > KEY_REFETCH_MIN_MS)) {
    cached = { keys: await fetchKeySet(input.openIdUrl, input.policy), fetchedAtMs: input.nowMs };
    keySets.set(input.openIdUrl, cached);
  }
  return cached!.keys.find((candidate) => candidate.kid === input.kid) ?? null;
}

async function fetchKeySet(openIdUrl: string, policy: OutboundPolicy): Promise<BotFrameworkJwk[]> {
  const metadata = await readJson(openIdUrl, policy);
  const jwksUri = (metadata as { jwks_uri?: unknown }).jwks_uri;
  if (typeof jwksUri !== "string") throw new Error("OpenID metadata without jwks_uri");
  const set = await readJson(jwksUri, policy);
  const keys = (set as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) throw new Error("key set without keys");
  return keys.filter((key): key is BotFrameworkJwk => !!key && typeof key === "object" && key.kty === "RSA");
}

async function readJson(url: string, policy: OutboundPolicy): Promise<unknown> {
  const response = await guardedFetch(url, { headers: { accept: "application/json" } }, policy);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

/** Forgets every cached key set (tests that rotate a fake's key). */
export function forgetBotFrameworkKeys(): void {
  keySets.clear();
}
