import { retireAccess } from "../auth/authenticate";
import { revokeGrantsApprovedBy } from "../oauth/oauth-provider";
import { tenantApi } from "../stubs";

// Apart from tenant-admin.ts: the OAuth provider it reaches is a Workers-only module.

/**
 * Revokes a token; its gateway connections close at once and the OAuth grants it approved are
 * revoked with their tokens (a connector can no longer refresh). False when the token is unknown.
 */
export async function revokeToken(env: Env, tenantId: string, tokenId: string): Promise<boolean> {
  const revoked = await tenantApi(env, tenantId).revokeToken(tokenId);
  await retireAccess(env, tenantId, tokenId);
  if (revoked) await revokeGrantsApprovedBy(env, tenantId, tokenId);
  return revoked;
}
