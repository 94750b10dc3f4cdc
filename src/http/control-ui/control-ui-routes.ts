import type { MiddlewareHandler } from "hono";
import { authenticate } from "../../auth/authenticate";
import { bearerToken } from "../../auth/tokens";
import { defaultAgentId } from "../../policy/agent-config";
import { agentIdentity } from "../../policy/agent-models";
import { errorBody, TENANT_ID_PATTERN } from "../../protocol/http";
import { SERVER_VERSION } from "../../protocol/server-version";
import type { AppContext, AppEnv } from "../context";
import { classify, mountOf, rebase } from "./paths";

/**
 * The OpenClaw Control UI, served from this service's origin like the real gateway serves it:
 * `/` for the default tenant, `/t/<tenantId>/` per tenant. The files are the `openclaw`
 * package's build in the ASSETS folder (scripts/assets.mjs); index.html gets the base path the
 * UI reads, so it connects its WebSocket to `ws(s)://host<base>`. Everything else passes on to
 * the API routes. Without the build in the folder, the API is served as before.
 */
export const controlUi: MiddlewareHandler<AppEnv> = async (c, next) => {
  const method = c.req.method;
  if ((method !== "GET" && method !== "HEAD") || c.req.header("upgrade")) return next();
  const url = new URL(c.req.url);
  const mount = mountOf(url.pathname);
  const tenantId = mount.tenantId ?? c.env.DEFAULT_TENANT;
  if (!tenantId || !TENANT_ID_PATTERN.test(tenantId)) return next();
  const route = classify(mount.rest, url.search, mount.base, c.req.header("accept"));
  switch (route.kind) {
    case "pass":
      return next();
    case "redirect":
      return c.redirect(route.location, 302);
    case "config":
      return bootstrapConfig(c, tenantId, mount.base);
    case "missing":
      return c.json(errorBody("not_found", `No such file: ${mount.rest}`), 404);
    case "asset": {
      const asset = await c.env.ASSETS.fetch(new Request(new URL(route.path, url), { method }));
      if (asset.status === 404) return withUiHeaders(new Response("Not Found", { status: 404 }));
      const response = withUiHeaders(new Response(asset.body, asset));
      // Fingerprinted bundle files never change under their name.
      if (route.immutable && asset.ok) response.headers.set("cache-control", "public, max-age=31536000, immutable");
      return response;
    }
    case "html":
      return indexHtml(c, mount.base, next);
  }
};

async function indexHtml(c: AppContext, base: string, next: () => Promise<void>) {
  const index = await c.env.ASSETS.fetch(new Request(new URL("/index.html", c.req.url)));
  // No UI build in the folder: the API answers (e.g. the service JSON at `/`).
  if (!index.ok) return next();
  const rewriter = new HTMLRewriter()
    .on("html", {
      element(element) {
        element.setAttribute("data-openclaw-control-ui-base-path", base);
      },
    })
    .on("script[src]", {
      element(element) {
        element.setAttribute("src", rebase(element.getAttribute("src")!, base));
      },
    })
    .on("link[href]", {
      element(element) {
        element.setAttribute("href", rebase(element.getAttribute("href")!, base));
      },
    });
  const response = withUiHeaders(
    new Response(c.req.method === "HEAD" ? null : index.body, {
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" },
    }),
  );
  return c.req.method === "HEAD" ? response : rewriter.transform(response);
}

/** The real gateway's security headers on every UI response. */
function withUiHeaders(response: Response): Response {
  response.headers.set("x-frame-options", "DENY");
  response.headers.set("x-content-type-options", "nosniff");
  response.headers.set("referrer-policy", "no-referrer");
  return response;
}

/**
 * `<base>/control-ui-config.json`, the UI's bootstrap settings. Like the real gateway, only for
 * a valid token of that tenant (Bearer); features this service lacks are off.
 */
async function bootstrapConfig(c: AppContext, tenantId: string, base: string) {
  const token = bearerToken(c.req.header("authorization"));
  const access = token ? await authenticate(c.env, tenantId, token) : null;
  if (!access || access === "wrong_tenant" || access.principal.kind !== "operator") {
    return c.json({ error: { message: "Unauthorized", type: "unauthorized" } }, 401);
  }
  c.header("cache-control", "no-cache");
  if (c.req.method === "HEAD") return c.body(null, 200);
  const identity = agentIdentity(access.config, defaultAgentId(access.config));
  return c.json({
    basePath: base,
    assistantName: identity.name,
    assistantAvatar: identity.avatar,
    assistantAvatarSource: null,
    assistantAvatarStatus: null,
    assistantAvatarReason: null,
    assistantAgentId: identity.agentId,
    serverVersion: SERVER_VERSION,
    embedSandbox: "strict",
    allowExternalEmbedUrls: false,
    automaticallyFetchFavicons: false,
    communityInvite: false,
    terminalEnabled: false,
    cliAgentsEnabled: false,
    pluginAssetsRequireAuth: true,
    pluginFrameGrants: [],
  });
}
