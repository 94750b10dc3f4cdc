import { Hono, type MiddlewareHandler } from "hono";
import { z } from "zod";
import { channelsStatus, pairingApprove, pairingList, setTelegramWebhook } from "../../channels/operations";
import { channelSecretValue } from "../../channels/registry";
import { checkTelegramUpdate, DEFAULT_WEBHOOK_PATH, SECRET_HEADER } from "../../channels/telegram/ingress";
import { TELEGRAM } from "../../channels/telegram/routing";
import { serviceOrigin } from "../../policy/outbound-url";
import { TENANT_ID_PATTERN } from "../../protocol/http";
import { channelInboxApi, tenantApi } from "../../stubs";
import { type AppEnv, requireScope } from "../context";
import { readJson } from "../request";

/** An update is a few KB; a body past this is refused before it is parsed or stored. */
const MAX_UPDATE_CHARS = 1_000_000;

/** Tenant paths that are never a channel webhook (no config lookup for them). */
const API_PREFIXES = ["/v1/", "/tools/", "/mcp", "/oauth", "/.well-known/", "/health", "/docs"];

/**
 * The Telegram webhook at the tenant's base URL + `channels.telegram.webhookPath` (default
 * `/telegram-webhook`; the default tenant also at the root). Answers as the real gateway
 * (SPEC §3.1): 200 with `x-openclaw-delivery-accepted: durable` once the update is committed
 * to the tenant's channel inbox, before any agent work. Other requests pass through.
 */
export const channelIngress: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== "POST") return next();
  const url = new URL(c.req.url);
  const scoped = /^\/t\/([^/]+)(\/.*)$/.exec(url.pathname);
  const tenantId = scoped ? decodeURIComponent(scoped[1]!) : c.env.DEFAULT_TENANT;
  const path = scoped ? scoped[2]! : url.pathname;
  if (!tenantId || !TENANT_ID_PATTERN.test(tenantId) || API_PREFIXES.some((p) => path.startsWith(p))) return next();
  const config = await tenantApi(c.env, tenantId).config();
  const telegram = config.channels?.telegram;
  if (!telegram || telegram.enabled === false || path !== (telegram.webhookPath ?? DEFAULT_WEBHOOK_PATH)) return next();
  const expectedSecret = await channelSecretValue(telegram.webhookSecret, async (name) =>
    tenantApi(c.env, tenantId).resolveSecret(name),
  );
  if (!expectedSecret) return next();
  const plain = { "content-type": "text/plain; charset=utf-8" };
  const body = await c.req.text();
  if (body.length > MAX_UPDATE_CHARS) return new Response("payload too large", { status: 413, headers: plain });
  const verdict = checkTelegramUpdate({ secretHeader: c.req.header(SECRET_HEADER), expectedSecret, body });
  if (!verdict.ok) {
    return new Response(verdict.text, {
      status: verdict.status,
      headers: verdict.status === 401 ? { ...plain, connection: "close" } : plain,
    });
  }
  await channelInboxApi(c.env, tenantId).accept(
    TELEGRAM,
    verdict.updateId,
    verdict.body,
    serviceOrigin(c.env, c.req.url),
  );
  return new Response(null, { status: 200, headers: { ...plain, "x-openclaw-delivery-accepted": "durable" } });
};

/** The operator's channel calls (authenticated tenant routes). */
export const channelRoutes = new Hono<AppEnv>();

channelRoutes.get("/v1/channels/status", requireScope("operator.read"), async (c) =>
  c.json({ ok: true, ...(await channelsStatus(c.var.tenant)) }),
);

channelRoutes.post("/v1/channels/telegram/webhook", requireScope("operator.admin"), async (c) =>
  c.json(await setTelegramWebhook(c.var.tenant)),
);

channelRoutes.get("/v1/channels/:channel/pairing", requireScope("operator.admin"), async (c) =>
  c.json({ ok: true, ...(await pairingList(c.var.tenant, c.req.param("channel"))) }),
);

channelRoutes.post("/v1/channels/:channel/pairing/approve", requireScope("operator.admin"), async (c) => {
  const { code } = await readJson(c, z.object({ code: z.string().min(1).max(64) }));
  return c.json(await pairingApprove(c.var.tenant, c.req.param("channel"), code));
});
