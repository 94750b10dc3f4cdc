import { sha256Hex } from "../util/encoding";
import { accessForgottenAt } from "./access-cache";
import {
  ACCESS_GRANT_TTL_MS,
  accessGrant,
  openAccessGrant,
  sealAccessGrant,
  signRevocationEpoch,
  verifyRevocationEpoch,
} from "./access-grant";
import type { Access } from "./principal";

/**
 * Sealed access grants kept in the data center's cache (the Cache API, shared by every isolate
 * of the worker there), so that an isolate whose own access cache (access-cache.ts, 1 s) has no
 * entry still authenticates without a round trip to the tenant object. A revoke or config change
 * writes the tenant's revocation epoch next to them, which retires every older grant of the
 * tenant in that data center at once; elsewhere grants end within ACCESS_GRANT_TTL_MS. Without
 * AUTH_GRANT_SECRET nothing is kept (each isolate asks the tenant as before).
 */

// A host that never resolves: the keys name cache entries, never a request that is sent.
const CACHE_ORIGIN = "https://access-grants.invalid";
const GRANT_MAX_AGE_S = Math.ceil(ACCESS_GRANT_TTL_MS / 1000);
/** An epoch marker outlives every grant issued before it. */
const EPOCH_MAX_AGE_S = 2 * GRANT_MAX_AGE_S;
/**
 * An epoch is set this far past the writer's clock: a grant asked for before the change on a
 * machine whose clock is ahead of the writer's by up to this much is still retired (one whose
 * clock is behind stamps its grants earlier, so they are retired anyway).
 */
const CLOCK_SKEW_MARGIN_MS = 1_000;

type GrantEnv = Pick<Env, "AUTH_GRANT_SECRET">;

const grantUrl = async (tenantId: string, tokenHash: string) =>
  `${CACHE_ORIGIN}/${encodeURIComponent(tenantId)}/grant/${await sha256Hex(`access-grant:${tokenHash}`)}`;
const epochUrl = (tenantId: string) => `${CACHE_ORIGIN}/${encodeURIComponent(tenantId)}/epoch`;

// Where the Cache API is missing or fails, nothing is kept and every miss asks the tenant.
/** The text kept at `url`, null when nothing is, undefined when the cache could not be read. */
async function read(url: string): Promise<string | null | undefined> {
  try {
    const hit = await caches.default.match(url);
    return hit ? await hit.text() : null;
  } catch {
    return undefined;
  }
}

async function write(url: string, text: string, maxAgeSeconds: number): Promise<void> {
  try {
    await caches.default.put(url, new Response(text, { headers: { "cache-control": `max-age=${maxAgeSeconds}` } }));
  } catch {
    // Nothing kept: a revoke or config change still completes (connections closed, answered).
  }
}

/** The access a valid grant in the cache carries for this token (and its expiry), else undefined. */
export async function sharedAccess(
  env: GrantEnv,
  tenantId: string,
  tokenHash: string,
): Promise<{ access: Access; expiresAt: number } | undefined> {
  const secret = env.AUTH_GRANT_SECRET;
  if (!secret) return undefined;
  const [grant, marker] = await Promise.all([read(await grantUrl(tenantId, tokenHash)), read(epochUrl(tenantId))]);
  // A grant is trusted only beside a known epoch: none kept, or one of ours (an epoch that could
  // not be read or verified might retire it).
  if (!grant || marker === undefined) return undefined;
  const marked = await verifyRevocationEpoch(secret, marker, tenantId);
  if (marker !== null && marked === null) return undefined;
  const forgotten = accessForgottenAt(tenantId);
  const epoch = marked === null || forgotten === null ? (marked ?? forgotten) : Math.max(marked, forgotten);
  return (await openAccessGrant(secret, grant, { tenantId, tokenHash, epoch, now: Date.now() })) ?? undefined;
}

/** Keeps a grant for what the tenant answered; `issuedAt`: when the question was asked. */
export async function shareAccess(
  env: GrantEnv,
  tenantId: string,
  tokenHash: string,
  access: Access,
  issuedAt: number,
): Promise<void> {
  const secret = env.AUTH_GRANT_SECRET;
  if (!secret) return;
  const sealed = await sealAccessGrant(secret, accessGrant(tenantId, tokenHash, access, issuedAt));
  await write(await grantUrl(tenantId, tokenHash), sealed, GRANT_MAX_AGE_S);
}

/**
 * Retires every grant of the tenant issued until now (a token revoked, the config changed).
 * The epoch only moves forward: a writer whose clock is behind, or whose write lands after a
 * newer one, keeps the newer epoch (two writes racing within one cache round trip may still
 * keep the older; grants end within ACCESS_GRANT_TTL_MS whatever happens to the epoch).
 */
export async function retireSharedAccess(env: GrantEnv, tenantId: string): Promise<void> {
  const secret = env.AUTH_GRANT_SECRET;
  if (!secret) return;
  const url = epochUrl(tenantId);
  const current = await verifyRevocationEpoch(secret, (await read(url)) ?? null, tenantId);
  const epoch = Math.max(Date.now() + CLOCK_SKEW_MARGIN_MS, current ?? 0);
  await write(url, await signRevocationEpoch(secret, { tenantId, epoch }), EPOCH_MAX_AGE_S);
}
