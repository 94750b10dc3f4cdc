import type { MiddlewareHandler } from "hono";
import {
  allowedOrigin,
  CORS_ALLOW_HEADERS,
  CORS_ALLOW_METHODS,
  CORS_EXPOSE_HEADERS,
  CORS_MAX_AGE_SECONDS,
} from "../policy/cors-origins";
import { TENANT_ID_PATTERN } from "../protocol/http";
import type { AppEnv } from "./context";

/**
 * CORS for a tenant's routes, from its config (`gateway.controlUi.allowedOrigins`). A normal
 * request is answered first and the config that authentication loaded decides the headers (no
 * extra round trip); a preflight, which carries no token, reads the tenant's config.
 */
export const tenantCors: MiddlewareHandler<AppEnv> = async (c, next) => {
  const origin = c.req.header("origin");
  if (!origin) return next();
  const tenantId = c.req.param("tenantId") ?? c.env.DEFAULT_TENANT;
  const isPreflight = c.req.method === "OPTIONS" && c.req.header("access-control-request-method") !== undefined;
  if (isPreflight) {
    const allowed = await lookupOrigin(c.env, tenantId, origin);
    const headers = new Headers({ Vary: "Origin" });
    if (allowed) {
      const requested = (c.req.header("access-control-request-headers") ?? "")
        .split(",")
        .map((h) => h.trim().toLowerCase())
        .filter((h) => CORS_ALLOW_HEADERS.includes(h));
      headers.set("Access-Control-Allow-Origin", allowed);
      headers.set("Access-Control-Allow-Methods", CORS_ALLOW_METHODS);
      if (requested.length > 0) headers.set("Access-Control-Allow-Headers", requested.join(", "));
      headers.set("Access-Control-Max-Age", String(CORS_MAX_AGE_SECONDS));
    }
    return new Response(null, { status: 204, headers });
  }
  await next();
  if (c.res.status === 101) return; // a WebSocket upgrade carries no CORS headers
  // Authenticated: the config is at hand. Refused: look it up, so the browser can read the 401.
  const tenant = c.get("tenant");
  const allowed = tenant ? allowedOrigin(tenant.config, origin) : await lookupOrigin(c.env, tenantId, origin);
  const headers = new Headers(c.res.headers);
  headers.append("Vary", "Origin");
  if (allowed) {
    headers.set("Access-Control-Allow-Origin", allowed);
    headers.set("Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
  }
  c.res = new Response(c.res.body, { status: c.res.status, statusText: c.res.statusText, headers });
};

async function lookupOrigin(env: AppEnv["Bindings"], tenantId: string | undefined, origin: string) {
  if (!tenantId || !TENANT_ID_PATTERN.test(tenantId)) return null;
  // Only existing tenants have config; for others this answers {} (nothing allowed).
  return allowedOrigin(await env.TENANTS.getByName(tenantId).config(), origin);
}
