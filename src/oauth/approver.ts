import type { Access } from "../auth/principal";
import { constantTimeEqual, sha256Hex } from "../auth/tokens";
import { OPERATOR_SCOPES, type OperatorScope } from "../protocol/http";
import { tenantApi } from "../stubs";

/**
 * What a grant remembers (encrypted by the provider with the token): the tenant and which
 * operator token approved it. Every request and every refresh re-checks that token, so revoking
 * it (or unsetting the dev token) ends its connectors' access too, and a grant never holds a
 * scope the token lost.
 */
export type GrantProps = { tenantId: string; tokenId?: string; tokenHash: string };

/** The OAuth user a grant belongs to: the tenant and the approving token (no ":", the provider's separator). */
export function grantUserId(props: Pick<GrantProps, "tenantId" | "tokenId">): string {
  return `${props.tenantId}.${props.tokenId ?? "dev"}`;
}

/** The approving token's scopes and tenant config, or null when it no longer authenticates. */
export async function approverAccess(
  env: Env,
  tenantId: string,
  props: GrantProps,
): Promise<{ scopes: readonly OperatorScope[]; config: Access["config"] } | null> {
  const tenant = tenantApi(env, tenantId);
  if (props.tokenId) {
    const access = await tenant.authenticate(props.tokenId, props.tokenHash);
    return access && { scopes: access.scopes, config: access.config };
  }
  if (!env.DEV_OPERATOR_TOKEN || tenantId !== env.DEFAULT_TENANT) return null;
  if (!constantTimeEqual(await sha256Hex(env.DEV_OPERATOR_TOKEN), props.tokenHash)) return null;
  return { scopes: OPERATOR_SCOPES, config: await tenant.openDefault(tenantId) };
}
