import { AuthorizationError, type AuthRequest } from "@cloudflare/workers-oauth-provider";
import { type Context, Hono } from "hono";
import { authenticate } from "../auth/authenticate";
import { hasScope } from "../auth/principal";
import { sha256Hex } from "../auth/tokens";
import type { AppEnv } from "../http/context";
import { serviceOrigin } from "../policy/outbound-url";
import { TENANT_ID_PATTERN } from "../protocol/http";
import { BODY_TOO_LARGE, readBoundedBody } from "../util/bounded-body";
import { type GrantProps, grantUserId } from "./approver";
import { consentPage, errorPage } from "./consent-page";
import { authorizationServer, OAUTH_SCOPES, oauthUrls } from "./oauth-provider";

/**
 * OAuth for the MCP endpoint: protected-resource metadata (RFC 9728), the provider's endpoints
 * (authorization-server metadata, dynamic client registration, token, revocation) and the
 * authorization page, where an operator of the tenant approves by pasting an operator token.
 */
export const oauthRoutes = new Hono<AppEnv>();

const OAUTH_NEEDS_HTTPS = "OAuth is only offered over https (or plain http on a loopback host).";

/** Token and registration requests are small forms and JSON documents. */
const MAX_OAUTH_BODY_BYTES = 64 * 1024;

oauthRoutes.get("/.well-known/oauth-protected-resource/mcp", (c) => {
  const tenantId = c.env.DEFAULT_TENANT;
  if (!tenantId) return c.json({ error: "not_found", error_description: "No default tenant is configured" }, 404);
  return protectedResource(c, tenantId, `${origin(c)}/mcp`);
});
oauthRoutes.get("/.well-known/oauth-protected-resource/t/:tenantId/mcp", (c) => {
  const tenantId = c.req.param("tenantId");
  return protectedResource(c, tenantId, `${origin(c)}/t/${tenantId}/mcp`);
});

oauthRoutes.on(["GET", "HEAD", "OPTIONS"], "/.well-known/oauth-authorization-server/t/:tenantId", byProvider);
// MCP clients of the 2025-03-26 spec skip RFC 9728 and read the metadata at the origin's root:
// that is the default tenant's (whose MCP endpoint is the root `/mcp`); others stay path-scoped.
oauthRoutes.on(["GET", "HEAD", "OPTIONS"], "/.well-known/oauth-authorization-server", byDefaultTenant);
oauthRoutes.on(["POST", "OPTIONS"], "/t/:tenantId/oauth/token", byProvider);
oauthRoutes.on(["POST", "OPTIONS"], "/t/:tenantId/oauth/register", byProvider);
oauthRoutes.get("/t/:tenantId/oauth/authorize", showConsent);
oauthRoutes.post("/t/:tenantId/oauth/authorize", decideConsent);

function protectedResource(c: Context<AppEnv>, tenantId: string, resource: string): Response {
  if (!TENANT_ID_PATTERN.test(tenantId))
    return c.json({ error: "not_found", error_description: "Unknown resource" }, 404);
  c.header("Access-Control-Allow-Origin", "*");
  return c.json({
    resource,
    authorization_servers: [oauthUrls(c.env, origin(c), tenantId).issuer],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: `OpenClaw sessions of tenant ${tenantId}`,
  });
}

/** Endpoints the provider implements, for one tenant's authorization server. */
function byProvider(c: Context<AppEnv>): Promise<Response> {
  return answerByProvider(c, c.req.param("tenantId")!, c.req.raw);
}

function byDefaultTenant(c: Context<AppEnv>): Response | Promise<Response> {
  const tenantId = c.env.DEFAULT_TENANT;
  if (!tenantId) return c.json({ error: "not_found", error_description: "No default tenant is configured" }, 404);
  const url = new URL(c.req.url);
  url.pathname = `/.well-known/oauth-authorization-server/t/${tenantId}`;
  return answerByProvider(c, tenantId, new Request(url, c.req.raw));
}

async function answerByProvider(c: Context<AppEnv>, tenantId: string, raw: Request): Promise<Response> {
  if (!TENANT_ID_PATTERN.test(tenantId))
    return c.json({ error: "not_found", error_description: "Unknown tenant" }, 404);
  // The provider matches endpoints by full URL: the request is addressed to the service's origin.
  let request = atServiceOrigin(c, raw);
  if (c.req.method === "POST") {
    const tooLarge = () =>
      c.json({ error: "invalid_request", error_description: `Body exceeds ${MAX_OAUTH_BODY_BYTES} bytes` }, 413);
    const body = await readBoundedBody(c.req.raw, MAX_OAUTH_BODY_BYTES, "discard");
    if (body === BODY_TOO_LARGE) return tooLarge();
    request = new Request(request, { body });
  }
  const server = authorizationServer(c.env, origin(c), tenantId);
  if (!server) return c.json({ error: "invalid_request", error_description: OAUTH_NEEDS_HTTPS }, 400);
  // Hono's ExecutionContext type is narrower than the runtime's; it is the same object.
  return server.fetch(request, c.env, c.executionCtx as unknown as ExecutionContext);
}

async function showConsent(c: Context<AppEnv>): Promise<Response> {
  const tenantId = c.req.param("tenantId")!;
  if (!TENANT_ID_PATTERN.test(tenantId)) return c.html(errorPage("Unknown tenant."), 404);
  const api = authorizationServer(c.env, origin(c), tenantId)?.getOAuthApi(c.env);
  if (!api) return c.html(errorPage(OAUTH_NEEDS_HTTPS), 400);
  let authRequest: AuthRequest;
  try {
    authRequest = await api.parseAuthRequest(c.req.raw);
  } catch (error) {
    return authorizationFailed(c, error);
  }
  const consent = await api.describeConsent(authRequest);
  const { handle, headers } = await api.beginConsent(authRequest);
  const requested = OAUTH_SCOPES.filter((scope) => authRequest.scope.includes(scope));
  const page = consentPage({ tenantId, consent, handle, checked: requested.length > 0 ? requested : OAUTH_SCOPES });
  return new Response(page, { headers: withHtml(headers) });
}

async function decideConsent(c: Context<AppEnv>): Promise<Response> {
  const tenantId = c.req.param("tenantId")!;
  if (!TENANT_ID_PATTERN.test(tenantId)) return c.html(errorPage("Unknown tenant."), 404);
  const formBytes = await readBoundedBody(c.req.raw, MAX_OAUTH_BODY_BYTES, "discard");
  if (formBytes === BODY_TOO_LARGE) return c.html(errorPage("Form too large."), 413);
  const api = authorizationServer(c.env, origin(c), tenantId)?.getOAuthApi(c.env);
  if (!api) return c.html(errorPage(OAUTH_NEEDS_HTTPS), 400);
  const contentType = c.req.header("content-type") ?? "";
  const form = await new Response(formBytes, { headers: { "content-type": contentType } }).formData().catch(() => null);
  const field = (name: string) => {
    const value = form?.get(name);
    return typeof value === "string" ? value : "";
  };
  const handle = field("handle");
  try {
    if (field("action") === "deny") {
      const denied = await api.denyConsent(c.req.raw, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    const picked = OAUTH_SCOPES.filter((scope) => form?.getAll("scope").includes(scope));
    const token = field("token").trim();
    const access = token ? await authenticate(c.env, tenantId, token) : null;
    const operator =
      access && access !== "wrong_tenant" && access.principal.kind === "operator" ? access.principal : null;
    const granted = operator ? picked.filter((scope) => hasScope(operator, scope)) : [];
    const problem = !operator
      ? `That is not an operator token of tenant ${tenantId}.`
      : granted.length === 0
        ? "Pick at least one scope that the token holds."
        : null;
    if (problem) {
      // The handle is still unused: show the same request again with the reason.
      const authRequest = await api.parseAuthRequest(c.req.raw);
      const consent = await api.describeConsent(authRequest);
      const page = consentPage({ tenantId, consent, handle, checked: picked, error: problem });
      return new Response(page, { status: 400, headers: withHtml(new Headers({ "Cache-Control": "no-store" })) });
    }
    const approved = await api.approveConsent(c.req.raw, handle, { scope: granted });
    const props: GrantProps = {
      tenantId,
      ...(operator!.tokenId ? { tokenId: operator!.tokenId } : {}),
      tokenHash: await sha256Hex(token),
    };
    const { redirectTo } = await api.completeAuthorization({
      request: approved.request,
      userId: grantUserId(props),
      scope: granted,
      props,
      metadata: { tenantId, approvedAt: Date.now() },
    });
    approved.headers.set("Location", redirectTo);
    return new Response(null, { status: 302, headers: approved.headers });
  } catch (error) {
    return authorizationFailed(c, error);
  }
}

/** A request the provider refused: back to the client when that is safe, else a page saying why. */
function authorizationFailed(c: Context<AppEnv>, error: unknown): Response {
  if (!(error instanceof AuthorizationError)) throw error;
  if (error.redirectTo) return c.redirect(error.redirectTo, 302);
  return c.html(errorPage(error.description), 400);
}

/** The origin the service calls itself by (PUBLIC_ORIGIN when set, else the request's Host): the issuer's. */
function origin(c: Context<AppEnv>): string {
  return serviceOrigin(c.env, c.req.url);
}

/** `raw` addressed to the service's origin (with PUBLIC_ORIGIN set, whatever Host the client sent). */
function atServiceOrigin(c: Context<AppEnv>, raw: Request): Request {
  const url = new URL(raw.url);
  const own = new URL(origin(c));
  if (url.origin === own.origin) return raw;
  url.protocol = own.protocol;
  url.host = own.host;
  return new Request(url, raw);
}

function withHtml(headers: Headers): Headers {
  headers.set("Content-Type", "text/html; charset=utf-8");
  return headers;
}
