import { OAuthAuthorizationServer, OAuthError, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { approverAccess, type GrantProps, grantUserId } from "./approver";

/**
 * OAuth 2.1 for the MCP endpoint (@cloudflare/workers-oauth-provider): one authorization
 * server per tenant, issuer `<origin>/t/<tenantId>`, whose tokens are bound (audience) to that
 * tenant's MCP URL(s) only. Clients, grants and tokens live in the OAUTH_KV namespace.
 */

/** What a connector may be granted; a subset of the approving operator token's scopes. */
export const OAUTH_SCOPES = ["operator.read", "operator.write"] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;
const MAX_CACHED_SERVERS = 1000;

export type OAuthUrls = {
  issuer: string;
  authorize: string;
  token: string;
  register: string;
  /** The tenant's MCP endpoint URLs (the default tenant has two: /mcp and /t/<id>/mcp). */
  resources: string[];
};

export function oauthUrls(env: Pick<Env, "DEFAULT_TENANT">, origin: string, tenantId: string): OAuthUrls {
  const issuer = `${origin}/t/${tenantId}`;
  return {
    issuer,
    authorize: `${issuer}/oauth/authorize`,
    token: `${issuer}/oauth/token`,
    register: `${issuer}/oauth/register`,
    resources: [`${issuer}/mcp`, ...(tenantId === env.DEFAULT_TENANT ? [`${origin}/mcp`] : [])],
  };
}

/** RFC 9728 metadata URL of an MCP endpoint (`/mcp` → `/.well-known/oauth-protected-resource/mcp`). */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`;
}

function oauthCapableOrigin(origin: string): boolean {
  const url = new URL(origin);
  if (url.protocol === "https:") return true;
  const host = url.hostname;
  return url.protocol === "http:" && (host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host));
}

// Built once per origin and tenant per isolate; the server holds configuration only.
const servers = new Map<string, OAuthAuthorizationServer<Env>>();

/**
 * The tenant's authorization server for requests to `origin`, or null when OAuth cannot be
 * offered there: OAuth 2.1 needs https (plain http only on a loopback host, for local dev).
 */
export function authorizationServer(env: Env, origin: string, tenantId: string): OAuthAuthorizationServer<Env> | null {
  const cacheKey = `${origin}\n${tenantId}`;
  const cached = servers.get(cacheKey);
  if (cached) return cached;
  if (!oauthCapableOrigin(origin)) return null;
  const urls = oauthUrls(env, origin, tenantId);
  let server: OAuthAuthorizationServer<Env>;
  try {
    server = build(urls);
  } catch {
    // The provider refuses an origin it cannot use as an issuer: then there is no OAuth there.
    return null;
  }
  if (servers.size >= MAX_CACHED_SERVERS) servers.delete(servers.keys().next().value!);
  servers.set(cacheKey, server);
  return server;
}

function build(urls: OAuthUrls): OAuthAuthorizationServer<Env> {
  return new OAuthAuthorizationServer<Env>({
    issuer: urls.issuer,
    resources: urls.resources,
    defaultResource: urls.resources[0]!,
    authorizeEndpoint: urls.authorize,
    tokenEndpoint: urls.token,
    clientRegistrationEndpoint: urls.register,
    scopesSupported: [...OAUTH_SCOPES],
    accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTTL: REFRESH_TOKEN_TTL_SECONDS,
    // A refresh re-checks the approving token: once it is revoked, invalid_grant (the provider
    // then revokes the grant and its tokens), even if its eager revocation was missed.
    tokenExchangeCallback: async ({ grantType, props, env }) => {
      if (grantType !== "refresh_token") return;
      const grant = props as GrantProps;
      if (!(await approverAccess(env, grant.tenantId, grant))) {
        throw new OAuthError("invalid_grant", { description: "the token that approved this grant was revoked" });
      }
    },
    // Client mistakes are answered on the wire; they are not this service's errors to log.
    onError: () => undefined,
  });
}

/**
 * The provider's own grant store, for managing grants outside a request: grants live in
 * OAUTH_KV by user id whatever origin issued them, so any issuer of the tenant reaches them.
 */
const GRANT_STORE_ORIGIN = "https://localhost";

/** Revokes every OAuth grant (and its tokens) that the operator token `tokenId` approved. */
export async function revokeGrantsApprovedBy(env: Env, tenantId: string, tokenId: string): Promise<number> {
  const helpers: OAuthHelpers | undefined = authorizationServer(env, GRANT_STORE_ORIGIN, tenantId)?.getOAuthApi(env);
  if (!helpers) return 0;
  const userId = grantUserId({ tenantId, tokenId });
  const grantIds: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await helpers.listUserGrants(userId, { limit: 100, ...(cursor ? { cursor } : {}) });
    grantIds.push(...page.items.map((grant) => grant.id));
    cursor = page.cursor;
  } while (cursor);
  await Promise.all(grantIds.map((grantId) => helpers.revokeGrant(grantId, userId)));
  return grantIds.length;
}
