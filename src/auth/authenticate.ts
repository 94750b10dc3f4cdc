import { OPERATOR_SCOPES } from "../protocol/http";
import { sessionApi, tenantApi } from "../stubs";
import { cachedAccess, rememberAccess } from "./access-cache";
import type { Access } from "./principal";
import { isRunToken, verifyRunToken } from "./run-token";
import { constantTimeEqual, parseTokenId, sha256Hex } from "./tokens";

/**
 * Resolves a bearer token for one tenant. A token is only ever checked against the
 * tenant named by the route, so a token of tenant A on tenant B is simply unknown there.
 */
export async function authenticate(env: Env, tenantId: string, token: string): Promise<Access | "wrong_tenant" | null> {
  const tokenHash = await sha256Hex(token);
  const cached = cachedAccess(tenantId, tokenHash);
  if (cached) return cached;
  const access = await resolveAccess(env, tenantId, token, tokenHash);
  // Run tokens are not cached: whether their run is still active is asked every time.
  if (access && access !== "wrong_tenant" && access.principal.kind === "operator") {
    rememberAccess(tenantId, tokenHash, access);
  }
  return access;
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
