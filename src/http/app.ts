import { Hono, type MiddlewareHandler } from "hono";
import { oauthRoutes } from "../oauth/routes";
import { errorBody } from "../protocol/http";
import { type AppEnv, tenantAuth } from "./context";
import { controlUi } from "./control-ui/routes";
import { tenantCors } from "./cors";
import { toApiError } from "./errors";
import { refuseOwnHop } from "./hop-guard";
import { adminRoutes } from "./routes/admin";
import { automationRoutes } from "./routes/automations";
import { channelIngress, channelRoutes } from "./routes/channels";
import { configRoutes } from "./routes/config";
import { docsRoutes } from "./routes/docs";
import { gatewayUpgrade } from "./routes/gateway";
import { runStatusRoutes } from "./routes/run-status";
import { runRoutes } from "./routes/runs";
import { secretRoutes } from "./routes/secrets";
import { sessionRoutes } from "./routes/sessions";
import { streamTicketRoutes } from "./routes/stream-ticket";
import { toolRoutes } from "./routes/tools";
import { transferRoutes } from "./routes/transfer";

/** Routes of one tenant; mounted at /t/<tenantId> and, for DEFAULT_TENANT, at the root. */
function tenantApp() {
  const app = new Hono<AppEnv>();
  app.use("*", tenantCors);
  app.use("*", tenantAuth);
  app.route("/", sessionRoutes);
  app.route("/", configRoutes);
  app.route("/", toolRoutes);
  app.route("/", runRoutes);
  app.route("/", runStatusRoutes);
  app.route("/", streamTicketRoutes);
  app.route("/", transferRoutes);
  app.route("/", secretRoutes);
  app.route("/", channelRoutes);
  app.route("/", automationRoutes);
  return app;
}

/**
 * The slices that mount beside the core routes and use http/'s toolkit (errors, auth, CORS):
 * handed in by src/app.ts, so http/ imports none of them (docs/architecture.md, dependency rule).
 */
export type AppSlices = {
  mcp: Hono<AppEnv>;
  /** A fresh router per mount (the OpenAI routes at /t/<tenantId> and at the root). */
  openAi: () => Hono<AppEnv>;
  hookIngress: MiddlewareHandler<AppEnv>;
};

export function createApp(slices: AppSlices) {
  const app = new Hono<AppEnv>();

  // Before every route: the service never serves a request it sent itself.
  app.use("*", refuseOwnHop);
  app.get("/health", (c) => c.json({ ok: true, status: "live" }));
  app.route("/", docsRoutes);
  // The Control UI at / and /t/<tenantId>/ (browser navigations and its files; APIs pass through).
  app.use("*", controlUi);
  // The gateway WebSocket: `ws://host:port` (default tenant) or `wss://host/t/<tenantId>`.
  app.get("/", gatewayUpgrade);
  app.get("/t/:tenantId", gatewayUpgrade);
  app.get("/t/:tenantId/", gatewayUpgrade);
  app.route("/v1/admin", adminRoutes);
  // Chat platforms' webhooks (docs/channels.md): authenticated by their own secret, not a bearer token.
  app.use("*", channelIngress);
  // MCP and its OAuth come before the tenant routes, whose auth middleware would claim their paths.
  app.route("/", oauthRoutes);
  app.route("/", slices.mcp);
  // The OpenAI-compatible routes answer in OpenAI's error shape, so they come before the tenant routes too.
  app.route("/t/:tenantId", slices.openAi());
  app.route("/", slices.openAi());
  // OpenClaw's inbound webhooks at each tenant's `hooks.path` (their own token, so before tenant auth).
  app.use("*", slices.hookIngress);
  app.route("/t/:tenantId", tenantApp());
  app.route("/", tenantApp());

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
