import { z } from "zod";
import type { Operation } from "../../http/openapi/operations";

/** The operator's channel routes, for the OpenAPI document (channel-routes.ts, docs/channels.md). */

const tag = "Channels";
const pairingRequest = z.looseObject({
  id: z.string().describe("The sender's platform user id."),
  code: z.string().describe("The 8-character code the sender was sent."),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  meta: z.record(z.string(), z.string()),
});

export const CHANNEL_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/channels/status",
    scope: "tenant",
    tag,
    summary: "The tenant's chat channels (OpenClaw's `channels.status`)",
    auth: "operator.read",
    ok: { status: 200, schema: z.looseObject({ ok: z.literal(true) }), description: "Channels and accounts." },
  },
  {
    method: "post",
    path: "/v1/channels/telegram/webhook",
    scope: "tenant",
    tag,
    summary: "Register the tenant's Telegram webhook (`setWebhook` with its URL and secret)",
    description:
      "Telegram then posts updates to `<base>/t/<tenant>/telegram-webhook` (or `channels.telegram.webhookPath`), checked by the `X-Telegram-Bot-Api-Secret-Token` header and answered `200` with `x-openclaw-delivery-accepted: durable` once committed. When Telegram refuses (a wrong bot token: 401) or cannot be reached, the answer is `502` with `ok: false`, Telegram's own description in `telegram.description` and `error.message`, redacted of the bot token and webhook secret.",
    auth: "operator.admin",
    ok: {
      status: 200,
      schema: z.object({ ok: z.boolean(), url: z.string(), telegram: z.looseObject({ status: z.number() }) }),
      description: "What Telegram answered.",
    },
    errors: [400, 502],
  },
  {
    method: "get",
    path: "/v1/channels/:channel/pairing",
    scope: "tenant",
    tag,
    summary: "Pending DM pairing requests (`openclaw pairing list <channel> --json`)",
    auth: "operator.admin",
    ok: {
      status: 200,
      schema: z.object({ ok: z.literal(true), channel: z.string(), requests: z.array(pairingRequest) }),
      description: "Requests, oldest first.",
    },
    errors: [400],
  },
  {
    method: "post",
    path: "/v1/channels/:channel/pairing/approve",
    scope: "tenant",
    tag,
    summary: "Approve a sender by pairing code (`openclaw pairing approve <channel> <code>`)",
    auth: "operator.admin",
    body: z.object({ code: z.string() }),
    ok: {
      status: 200,
      schema: z.object({ ok: z.literal(true), channel: z.string(), id: z.string(), message: z.string() }),
      description: "Approved; the sender's next message is a turn.",
    },
    errors: [400, 404],
  },
];
