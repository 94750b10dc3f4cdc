import type { Access } from "../auth/principal";
import { hasScope } from "../auth/principal";
import { approverAccess, type GrantProps } from "./approver";
import { authorizationServer, OAUTH_SCOPES, oauthUrls } from "./oauth-provider";

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
