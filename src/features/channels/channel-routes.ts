import { Hono, type MiddlewareHandler } from "hono";
import { z } from "zod";
import { type AppEnv, requireScope } from "../../http/context";
import { readJson } from "../../http/request";
import { outboundPolicy, serviceOrigin } from "../../policy/outbound-url";
import { TENANT_ID_PATTERN } from "../../protocol/http";
import { channelInboxApi, tenantApi } from "../../stubs";
import { channelsStatus, pairingApprove, pairingList, setTelegramWebhook } from "./channel-admin";
import { PLATFORMS } from "./platforms";
import { closingIfRefused, webhookRequestOf } from "./webhook";

/** Tenant paths that are never a channel webhook (no config lookup for them). */
const API_PREFIXES = [
  "/v1/",
  "/tools/",
  "/sessions/",
  "/mcp",
  "/oauth",
  "/.well-known/",
  "/health",
  "/docs",
  "/openapi.json",
];

/**
 * The chat webhooks at the tenant's base URL + each platform's path (the default tenant also at
 * the root). Each platform in PLATFORMS is asked in turn (src/features/channels/webhook.ts); the one that
 * serves the path answers as the real gateway does (SPEC §3.1, §4.1), and its 200 goes out only
 * once the updates it names are committed to the tenant's channel inbox, before any agent work.
 * Other requests pass through.
 */
export const channelIngress: MiddlewareHandler<AppEnv> = async (c, next) => {
  const url = new URL(c.req.url);
  const scoped = /^\/t\/([^/]+)(\/.*)$/.exec(url.pathname);
  // A tenant id is [a-z0-9-]: a segment with an escape (even a malformed one) names none.
  const tenantId = scoped ? scoped[1]! : c.env.DEFAULT_TENANT;
  const path = scoped ? scoped[2]! : url.pathname;
  if (!tenantId || !TENANT_ID_PATTERN.test(tenantId) || API_PREFIXES.some((p) => path.startsWith(p))) return next();
  // A webhook is a POST; a GET is looked at for a platform's URL check (WhatsApp) or Slack's 405.
  if (c.req.method !== "POST" && (c.req.method !== "GET" || path === "/")) return next();
  const tenant = tenantApi(c.env, tenantId);
  const context = {
    config: await tenant.config(),
    resolve: async (name: string) => tenant.resolveSecret(name),
    nowMs: Date.now(),
    outbound: outboundPolicy(c.env),
  };
  const request = webhookRequestOf(c.req.raw, path);
  for (const platform of PLATFORMS) {
    const answer = await platform.ingress.webhook(request, context);
    if (!answer) continue;
    if (answer.updates.length > 0) {
      const inbox = channelInboxApi(c.env, tenantId);
      const origin = serviceOrigin(c.env, c.req.url);
      for (const update of answer.updates) await inbox.accept(platform.name, update.updateId, update.body, origin);
    }
    return closingIfRefused(request, answer.response);
  }
  return next();
};

/** The operator's channel calls (authenticated tenant routes). */
export const channelRoutes = new Hono<AppEnv>();

channelRoutes.get("/v1/channels/status", requireScope("operator.read"), async (c) =>
  c.json({ ok: true, ...(await channelsStatus(c.var.tenant)) }),
);

// A refusal by Telegram (or no answer) is 502 with Telegram's description: the registration did not happen.
channelRoutes.post("/v1/channels/telegram/webhook", requireScope("operator.admin"), async (c) => {
  const answer = await setTelegramWebhook(c.var.tenant);
  return c.json(answer, answer.ok ? 200 : 502);
});

channelRoutes.get("/v1/channels/:channel/pairing", requireScope("operator.admin"), async (c) =>
  c.json({ ok: true, ...(await pairingList(c.var.tenant, c.req.param("channel"))) }),
);

channelRoutes.post("/v1/channels/:channel/pairing/approve", requireScope("operator.admin"), async (c) => {
  const { code } = await readJson(c, z.object({ code: z.string().min(1).max(64) }));
  return c.json(await pairingApprove(c.var.tenant, c.req.param("channel"), code));
});
