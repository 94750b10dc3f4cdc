import { retireAccess } from "../auth/authenticate";
import { tenantApi } from "../stubs";

// Apart from tenant-admin.ts: its grant port is the OAuth provider, a Workers-only module.

/**
 * Revokes the OAuth grants a token approved (their access and refresh tokens with them): the
 * OAuth provider's part (`revokeGrantsApprovedBy`, src/oauth/), handed in by the route so the
 * domain imports no transport. Required, so no caller can revoke a token and leave its grants.
 */
export type ApprovedGrantsRevoker = (env: Env, tenantId: string, tokenId: string) => Promise<unknown>;

/**
 * Revokes a token; its gateway connections close at once and the OAuth grants it approved are
 * revoked with their tokens (a connector can no longer refresh). False when the token is unknown.
 */
export async function revokeToken(
  env: Env,
  tenantId: string,
  tokenId: string,
  revokeApprovedGrants: ApprovedGrantsRevoker,
): Promise<boolean> {
  const revoked = await tenantApi(env, tenantId).revokeToken(tokenId);
  await retireAccess(env, tenantId, tokenId);
  if (revoked) await revokeApprovedGrants(env, tenantId, tokenId);
  return revoked;
}
