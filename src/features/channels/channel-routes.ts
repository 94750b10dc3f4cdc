import { type Context, Hono, type MiddlewareHandler } from "hono";
import { z } from "zod";
import { channelsStatus, pairingApprove, pairingList, setTelegramWebhook } from "../../channels/channel-admin";
import { channelSecretValue } from "../../channels/channel-registry";
import { checkSlackRequest, DEFAULT_SLACK_WEBHOOK_PATH } from "../../channels/slack/ingress";
import { SLACK } from "../../channels/slack/routing";
import { SIGNATURE_HEADER, slackHeadersPlausible, TIMESTAMP_HEADER } from "../../channels/slack/signature";
import {
  DEFAULT_WEBHOOK_PATH,
  SECRET_HEADER,
  telegramSecretOk,
  telegramUpdateVerdict,
} from "../../channels/telegram/ingress";
import { TELEGRAM } from "../../channels/telegram/routing";
import { checkWhatsappRequest, DEFAULT_WHATSAPP_WEBHOOK_PATH } from "../../channels/whatsapp/ingress";
import { WHATSAPP } from "../../channels/whatsapp/routing";
import {
  signatureHeaderPlausible,
  subscriptionChallenge,
  SIGNATURE_HEADER as WHATSAPP_SIGNATURE_HEADER,
} from "../../channels/whatsapp/signature";
import { type AppEnv, requireScope } from "../../http/context";
import { readJson } from "../../http/request";
import { serviceOrigin } from "../../policy/outbound-url";
import type { SlackConfig, WhatsappConfig } from "../../protocol/channels";
import type { TenantConfig } from "../../protocol/config";
import { TENANT_ID_PATTERN } from "../../protocol/http";
import { channelInboxApi, tenantApi } from "../../stubs";
import { announcesTooLarge, BODY_TOO_LARGE, discardBody, readBoundedText } from "../../util/bounded-body";

/** An update is a few KB; a body past this is refused before it is read further, parsed or stored. */
const MAX_UPDATE_BYTES = 1_000_000;

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
 * The chat webhooks at the tenant's base URL + each channel's path (the default tenant also at
 * the root): Telegram's `channels.telegram.webhookPath` (default `/telegram-webhook`) and
 * Slack's `channels.slack.webhookPath` (default `/slack/events`). Each answers as the real
 * gateway (SPEC §3.1, §4.1) and answers 200 only once the update is committed to the
 * tenant's channel inbox, before any agent work. Other requests pass through.
 */
export const channelIngress: MiddlewareHandler<AppEnv> = async (c, next) => {
  const url = new URL(c.req.url);
  const scoped = /^\/t\/([^/]+)(\/.*)$/.exec(url.pathname);
  // A tenant id is [a-z0-9-]: a segment with an escape (even a malformed one) names none.
  const tenantId = scoped ? scoped[1]! : c.env.DEFAULT_TENANT;
  const path = scoped ? scoped[2]! : url.pathname;
  if (!tenantId || !TENANT_ID_PATTERN.test(tenantId) || API_PREFIXES.some((p) => path.startsWith(p))) return next();
  // Only a POST can be a webhook; another method is looked at only to answer Slack's 405.
  if (c.req.method !== "POST" && (c.req.method !== "GET" || path === "/")) return next();
  const config = await tenantApi(c.env, tenantId).config();
  const slack = config.channels?.slack;
  if (slack && slack.enabled !== false && path === (slack.webhookPath ?? DEFAULT_SLACK_WEBHOOK_PATH))
    return (await slackIngress(c, tenantId, slack)) ?? next();
  const whatsapp = config.channels?.whatsapp;
  if (whatsapp && whatsapp.enabled !== false && path === (whatsapp.webhookPath ?? DEFAULT_WHATSAPP_WEBHOOK_PATH))
    return (await whatsappIngress(c, tenantId, whatsapp)) ?? next();
  if (c.req.method !== "POST") return next();
  return (await telegramIngress(c, tenantId, config, path)) ?? next();
};

/**
 * The WhatsApp Cloud API's webhook: Meta's subscription GET answered with its challenge for the
 * tenant's verify token (403 otherwise); a POST whose X-Hub-Signature-256 is not the app
 * secret's HMAC of the raw body 401, a body not JSON 400; each inbound message committed to the
 * inbox (its message id the dedupe key) before the 200; statuses and other changes 200 unstored.
 * Null: not configured (no app secret or verify token), the path is not served.
 */
async function whatsappIngress(c: Context<AppEnv>, tenantId: string, whatsapp: WhatsappConfig) {
  const resolve = async (name: string) => tenantApi(c.env, tenantId).resolveSecret(name);
  const plain = { "content-type": "text/plain; charset=utf-8" };
  if (c.req.method === "GET") {
    const verifyToken = await channelSecretValue(whatsapp.verifyToken, resolve);
    if (!verifyToken) return null;
    const challenge = await subscriptionChallenge(
      {
        mode: c.req.query("hub.mode") ?? null,
        token: c.req.query("hub.verify_token") ?? null,
        challenge: c.req.query("hub.challenge") ?? null,
      },
      verifyToken,
    );
    return challenge === null
      ? new Response("Forbidden", { status: 403, headers: plain })
      : new Response(challenge, { status: 200, headers: plain });
  }
  const appSecret = await channelSecretValue(whatsapp.appSecret, resolve);
  if (!appSecret) return null;
  if (announcesTooLarge(c.req.raw.headers, MAX_UPDATE_BYTES)) {
    discardBody(c.req.raw);
    return new Response("payload too large", { status: 413, headers: plain });
  }
  const signature = c.req.header(WHATSAPP_SIGNATURE_HEADER) ?? null;
  if (!signatureHeaderPlausible(signature)) {
    discardBody(c.req.raw);
    return new Response("invalid signature", { status: 401, headers: plain });
  }
  const body = await readBoundedText(c.req.raw, MAX_UPDATE_BYTES, "discard");
  if (body === BODY_TOO_LARGE) return new Response("payload too large", { status: 413, headers: plain });
  const verdict = await checkWhatsappRequest({ appSecret, signature, body });
  if (!verdict.ok)
    return new Response(verdict.status === 401 ? "invalid signature" : "invalid JSON", {
      status: verdict.status,
      headers: plain,
    });
  const inbox = channelInboxApi(c.env, tenantId);
  const origin = serviceOrigin(c.env, c.req.url);
  for (const update of verdict.updates) await inbox.accept(WHATSAPP, update.updateId, update.body, origin);
  return new Response(null, { status: 200, headers: { ...plain, "x-openclaw-delivery-accepted": "durable" } });
}

/** Telegram's webhook (SPEC §3.1); null: not this tenant's Telegram path. */
async function telegramIngress(c: Context<AppEnv>, tenantId: string, config: TenantConfig, path: string) {
  const telegram = config.channels?.telegram;
  if (!telegram || telegram.enabled === false || path !== (telegram.webhookPath ?? DEFAULT_WEBHOOK_PATH)) return null;
  const expectedSecret = await channelSecretValue(telegram.webhookSecret, async (name) =>
    tenantApi(c.env, tenantId).resolveSecret(name),
  );
  if (!expectedSecret) return null;
  const plain = { "content-type": "text/plain; charset=utf-8" };
  const tooLarge = () => new Response("payload too large", { status: 413, headers: plain });
  // The announced size, then the secret header, then the body read up to the limit: an
  // unauthenticated request is answered before its body is read, and the unread body is
  // discarded so the answer does not wait for the upload (issue 44, finding 4).
  if (announcesTooLarge(c.req.raw.headers, MAX_UPDATE_BYTES)) {
    discardBody(c.req.raw);
    return tooLarge();
  }
  const secretOk = telegramSecretOk(c.req.header(SECRET_HEADER), expectedSecret);
  if (!secretOk) discardBody(c.req.raw);
  const body = secretOk ? await readBoundedText(c.req.raw, MAX_UPDATE_BYTES, "discard") : "";
  if (body === BODY_TOO_LARGE) return tooLarge();
  const verdict = telegramUpdateVerdict(secretOk, body);
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
}

/**
 * Slack's Request URL (SPEC §4.1): 405 for another method, 401 (empty) for a bad signature or
 * a timestamp more than five minutes off (either way), the challenge of `url_verification`,
 * 400 (empty) for a non-JSON body; an event is committed to the inbox before its empty 200.
 * Null: the app is not configured (no signing secret), the path is not served.
 */
async function slackIngress(c: Context<AppEnv>, tenantId: string, slack: SlackConfig): Promise<Response | null> {
  const signingSecret = await channelSecretValue(slack.signingSecret, async (name) =>
    tenantApi(c.env, tenantId).resolveSecret(name),
  );
  if (!signingSecret || !slack.botToken) return null;
  if (c.req.method !== "POST")
    return new Response("Method Not Allowed", {
      status: 405,
      headers: { "content-type": "text/plain; charset=utf-8" },
    });
  // Slack's signature covers the body: the announced size, then headers that cannot be Slack's
  // (refused unread), then a read up to the limit, then the signature.
  if (announcesTooLarge(c.req.raw.headers, MAX_UPDATE_BYTES)) {
    discardBody(c.req.raw);
    return new Response(null, { status: 413 });
  }
  if (!slackHeadersPlausible(c.req.header(TIMESTAMP_HEADER), c.req.header(SIGNATURE_HEADER), Date.now())) {
    discardBody(c.req.raw);
    return new Response(null, { status: 401 });
  }
  const body = await readBoundedText(c.req.raw, MAX_UPDATE_BYTES, "discard");
  if (body === BODY_TOO_LARGE) return new Response(null, { status: 413 });
  const verdict = await checkSlackRequest({
    signingSecret,
    timestamp: c.req.header(TIMESTAMP_HEADER),
    signature: c.req.header(SIGNATURE_HEADER),
    contentType: c.req.header("content-type"),
    body,
    nowMs: Date.now(),
  });
  if (!verdict.ok) return verdict.json ? Response.json(verdict.json) : new Response(null, { status: verdict.status });
  await channelInboxApi(c.env, tenantId).accept(SLACK, verdict.updateId, verdict.body, serviceOrigin(c.env, c.req.url));
  return new Response(null, { status: 200, headers: { "x-openclaw-delivery-accepted": "durable" } });
}

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
