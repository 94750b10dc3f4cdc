import { Hono } from "hono";
import { errorBody } from "../protocol/http";
import { checkRoutes, composeOperations, type Slice } from "../registry/slice";
import { type AppEnv, tenantAuth } from "./context";
import { controlUi } from "./control-ui/control-ui-routes";
import { toApiError } from "./errors";
import { refuseOwnHop } from "./hop-guard";
import { knownTenantOnly } from "./known-tenant";
import { OPERATIONS as CORE_OPERATIONS } from "./openapi/operations";
import { adminRoutes } from "./routes/admin";
import { docsRoutes } from "./routes/docs";
import { gatewayUpgrade } from "./routes/gateway";
import { tenantCors } from "./tenant-cors";

/** Routes of one tenant (the slices'); mounted at /t/<tenantId> and, for DEFAULT_TENANT, at the root. */
function tenantApp(slices: readonly Slice[]) {
  const app = new Hono<AppEnv>();
  app.use("*", tenantCors);
  app.use("*", tenantAuth);
  for (const slice of slices) for (const routes of slice.routes?.tenant ?? []) app.route("/", routes);
  return app;
}

/** A router with its own auth and error shape for each tenant: at /t/<tenantId>, and the default tenant's at the root. */
export function atTenantAndRoot(router: () => Hono<AppEnv>): Hono<AppEnv> {
  // A fresh router per mount.
  return new Hono<AppEnv>().route("/t/:tenantId", router()).route("/", router());
}

/**
 * The worker's HTTP app: the core routes (health, docs, Control UI, gateway upgrade, admin,
 * OAuth) and the feature slices' routes (src/slices.ts), handed in so that http/ imports none
 * of them (docs/architecture.md, dependency rule). A route two slices register throws here.
 */
export function createApp(slices: readonly Slice[]) {
  checkRoutes(slices);
  const app = new Hono<AppEnv>();

  // Before every route: the service never serves a request it sent itself.
  app.use("*", refuseOwnHop);
  // Before anything addresses a tenant object: an id the directory does not list is 404 (no object made).
  app.use("*", knownTenantOnly);
  app.get("/health", (c) => c.json({ ok: true, status: "live" }));
  app.route("/", docsRoutes(composeOperations(CORE_OPERATIONS, slices)));
  // The Control UI at / and /t/<tenantId>/ (browser navigations and its files; APIs pass through).
  app.use("*", controlUi);
  // The gateway WebSocket: `ws://host:port` (default tenant) or `wss://host/t/<tenantId>`.
  app.get("/", gatewayUpgrade);
  app.get("/t/:tenantId", gatewayUpgrade);
  app.get("/t/:tenantId/", gatewayUpgrade);
  app.route("/v1/admin", adminRoutes);
  // The slices' own routes (MCP and its OAuth, the OpenAI routes in OpenAI's error shape) come
  // before the tenant routes, whose auth middleware would claim their paths.
  for (const slice of slices) if (slice.routes?.own) app.route("/", slice.routes.own);
  // Webhooks with their own secret (chat platforms, OpenClaw's hooks), so before tenant auth;
  // they never claim this service's own paths.
  for (const slice of slices) if (slice.routes?.ingress) app.use("*", slice.routes.ingress);
  app.route("/t/:tenantId", tenantApp(slices));
  app.route("/", tenantApp(slices));

  app.notFound((c) =>
    c.json(errorBody("not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}`), 404),
  );
  app.onError((error, c) => {
    const api = toApiError(error);
    if (api.retryAfterSeconds !== undefined) c.header("Retry-After", String(api.retryAfterSeconds));
    return c.json(errorBody(api.type, api.message), api.status);
  });
  return app;
}
