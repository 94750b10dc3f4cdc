import type { Access } from "./principal";

/**
 * Successful authentications, cached per worker isolate for a second: most requests then
 * skip the round trip to the tenant object. Revoking a token or changing the config clears
 * the entries of this isolate at once; other isolates follow within ACCESS_TTL_MS.
 */
export const ACCESS_TTL_MS = 1_000;
const MAX_ENTRIES = 10_000;

type Cached = { access: Access; tenantId: string; until: number };

const entries = new Map<string, Cached>();

export function cachedAccess(tenantId: string, tokenHash: string, now = Date.now()): Access | undefined {
  const key = `${tenantId}:${tokenHash}`;
  const hit = entries.get(key);
  if (!hit) return undefined;
  if (hit.until <= now) {
    entries.delete(key);
    return undefined;
  }
  return hit.access;
}

/** `validUntil`: when what answered ends sooner (a signed grant), the entry ends with it. */
export function rememberAccess(
  tenantId: string,
  tokenHash: string,
  access: Access,
  validUntil = Number.POSITIVE_INFINITY,
  now = Date.now(),
): void {
  // Oldest first: a full cache drops its oldest entry (Map keeps insertion order).
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  entries.set(`${tenantId}:${tokenHash}`, { access, tenantId, until: Math.min(now + ACCESS_TTL_MS, validUntil) });
}

/**
 * When this isolate last forgot a tenant's access (by tenant): grants issued before then are not
 * trusted here either, whether or not the cache holds the tenant's revocation epoch yet.
 */
const forgottenAt = new Map<string, number>();

export function accessForgottenAt(tenantId: string): number | null {
  return forgottenAt.get(tenantId) ?? null;
}

/** Drops every cached access of a tenant (config changed) or of one of its tokens (revoked). */
export function forgetAccess(tenantId: string, tokenId?: string, now = Date.now()): void {
  if (forgottenAt.size >= MAX_ENTRIES) forgottenAt.delete(forgottenAt.keys().next().value!);
  forgottenAt.delete(tenantId);
  forgottenAt.set(tenantId, now);
  for (const [key, cached] of entries) {
    if (cached.tenantId !== tenantId) continue;
    const principal = cached.access.principal;
    if (tokenId === undefined || (principal.kind === "operator" && principal.tokenId === tokenId)) entries.delete(key);
  }
}

/** Empties this isolate's access state, as a new isolate starts (tests stand in for one with it). */
export function resetIsolateAccess(): void {
  entries.clear();
  forgottenAt.clear();
}
