import type { Access } from "../auth/principal";
import { hasScope } from "../auth/principal";
import { constantTimeEqual, sha256Hex } from "../auth/tokens";
import { OPERATOR_SCOPES, type OperatorScope } from "../protocol/http";
import { tenantApi } from "../stubs";
import { authorizationServer, OAUTH_SCOPES, oauthUrls } from "./server";

/**
 * What a grant remembers (encrypted by the provider with the token): the tenant and which
 * operator token approved it. Every request re-checks that token, so revoking it (or unsetting
 * the dev token) ends its connectors' access too, and a grant never holds a scope the token lost.
 */
export type GrantProps = { tenantId: string; tokenId?: string; tokenHash: string };

/** The OAuth user a grant belongs to: the tenant and the approving token (no ":", the provider's separator). */
export function grantUserId(props: GrantProps): string {
  return `${props.tenantId}.${props.tokenId ?? "dev"}`;
}

/**
 * Resolves an OAuth access token presented to tenant `tenantId`'s MCP endpoint: valid for one
 * of that tenant's MCP URLs (audience), unrevoked, unexpired, and its approver still valid.
 */
export async function oauthAccess(env: Env, origin: string, tenantId: string, token: string): Promise<Access | null> {
  const server = authorizationServer(env, origin, tenantId);
  if (!server) return null;
  let validated = null;
  for (const resource of oauthUrls(env, origin, tenantId).resources) {
    validated = await server.validateToken<GrantProps>(resource, token, env);
    if (validated) break;
  }
  if (!validated || validated.props?.tenantId !== tenantId) return null;
  const approver = await approverAccess(env, tenantId, validated.props);
  if (!approver) return null;
  const holder = { kind: "operator" as const, scopes: approver.scopes };
  const scopes = OAUTH_SCOPES.filter((scope) => validated.scope.includes(scope) && hasScope(holder, scope));
  return { principal: { kind: "operator", scopes, ...tokenIdOf(validated.props) }, config: approver.config };
}

const tokenIdOf = (props: GrantProps) => (props.tokenId ? { tokenId: props.tokenId } : {});

async function approverAccess(
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
