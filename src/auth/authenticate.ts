import { OPERATOR_SCOPES } from "../protocol/http";
import { sessionApi, tenantApi } from "../stubs";
import { accessForgottenAt, cachedAccess, forgetAccess, rememberAccess } from "./access-cache";
import { retireSharedAccess, shareAccess, sharedAccess } from "./grant-cache";
import type { Access } from "./principal";
import { isRunToken, verifyRunToken } from "./run-token";
import { constantTimeEqual, parseTokenId, sha256Hex } from "./tokens";

/**
 * Resolves a bearer token for one tenant. A token is only ever checked against the
 * tenant named by the route, so a token of tenant A on tenant B is simply unknown there.
 * An operator token is answered from this isolate's access cache, else from a sealed grant in
 * the data center's cache (grant-cache.ts), and only then by the tenant object.
 */
export async function authenticate(env: Env, tenantId: string, token: string): Promise<Access | "wrong_tenant" | null> {
  const tokenHash = await sha256Hex(token);
  const cached = cachedAccess(tenantId, tokenHash);
  if (cached) return cached;
  // Run tokens are not cached: whether their run is still active is asked every time.
  if (isRunToken(token)) return resolveAccess(env, tenantId, token, tokenHash);
  const shared = await sharedAccess(env, tenantId, tokenHash);
  if (shared && grantStillValid(env, tenantId, token, shared.access)) {
    rememberAccess(tenantId, tokenHash, shared.access, shared.expiresAt);
    return shared.access;
  }
  const askedAt = Date.now();
  const access = await resolveAccess(env, tenantId, token, tokenHash);
  // An answer that may predate a revoke or config change this isolate made meanwhile is used
  // for this request only (the change was in flight with it), never kept or shared.
  const forgotten = accessForgottenAt(tenantId);
  if (forgotten !== null && forgotten >= askedAt) return access;
  if (access && access !== "wrong_tenant" && access.principal.kind === "operator") {
    rememberAccess(tenantId, tokenHash, access);
    await shareAccess(env, tenantId, tokenHash, access, askedAt);
  }
  return access;
}

/**
 * The dev token has no record a revoke deletes: its grant serves only while it is still the dev
 * token (a deploy that unsets or changes DEV_OPERATOR_TOKEN ends it at once, not 30 s later).
 */
function grantStillValid(env: Env, tenantId: string, token: string, access: Access): boolean {
  const { principal } = access;
  return principal.kind !== "operator" || principal.tokenId !== undefined || isDevOperatorToken(env, tenantId, token);
}

/**
 * After a token is revoked or the tenant's config changed: this isolate forgets at once, the
 * grants of the tenant in this data center are retired, other isolates here follow within
 * ACCESS_TTL_MS and other data centers within ACCESS_GRANT_TTL_MS.
 */
export async function retireAccess(
  env: Pick<Env, "AUTH_GRANT_SECRET">,
  tenantId: string,
  tokenId?: string,
): Promise<void> {
  forgetAccess(tenantId, tokenId);
  await retireSharedAccess(env, tenantId);
}

async function resolveAccess(
  env: Env,
  tenantId: string,
  token: string,
  tokenHash: string,
): Promise<Access | "wrong_tenant" | null> {
  const tenant = tenantApi(env, tenantId);
  if (isRunToken(token)) {
    const claims = env.RUN_TOKEN_SECRET ? await verifyRunToken(env.RUN_TOKEN_SECRET, token) : null;
    if (!claims) return null;
    // A valid run token of another tenant is refused outright (403), never looked up here.
    if (claims.tenantId !== tenantId) return "wrong_tenant";
    const [config, run] = await Promise.all([
      tenant.config(),
      sessionApi(env, tenantId, claims.sessionKey).runSnapshot(claims.runId),
    ]);
    const runActive = run?.status === "pending";
    return { principal: { kind: "run", scopes: [], claims, runActive }, config };
  }
  if (isDevOperatorToken(env, tenantId, token)) {
    return { principal: { kind: "operator", scopes: OPERATOR_SCOPES }, config: await tenant.openDefault(tenantId) };
  }
  const tokenId = parseTokenId(token);
  if (!tokenId) return null;
  const access = await tenant.authenticate(tokenId, tokenHash);
  return access && { principal: { kind: "operator", scopes: access.scopes, tokenId }, config: access.config };
}

export function isDevOperatorToken(env: Env, tenantId: string, token: string): boolean {
  if (!env.DEV_OPERATOR_TOKEN || tenantId !== env.DEFAULT_TENANT) return false;
  return constantTimeEqual(token, env.DEV_OPERATOR_TOKEN);
}

/** The admin API is closed when ADMIN_TOKEN is unset. */
export function isAdminToken(env: Env, token: string | null): boolean {
  if (!env.ADMIN_TOKEN || !token) return false;
  return constantTimeEqual(token, env.ADMIN_TOKEN);
}
