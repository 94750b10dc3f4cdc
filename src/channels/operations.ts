import type { TenantContext } from "../domain/context";
import { DomainError } from "../domain/errors";
import { channelInboxApi } from "../stubs";
import { channelSecretValue, telegramBotOf } from "./registry";
import { ALLOWED_UPDATES } from "./telegram/bot-api";
import { DEFAULT_WEBHOOK_PATH } from "./telegram/ingress";
import { TELEGRAM } from "./telegram/routing";

/**
 * The operator's side of the channels: registering the Telegram webhook, the pairing queue
 * (OpenClaw's `pairing list` / `pairing approve` shapes) and `channels.status`.
 */

export type ChannelsEnv = { CHANNEL_INBOX: Parameters<typeof channelInboxApi>[0]["CHANNEL_INBOX"] };

const resolver = (ctx: TenantContext) => async (name: string) => ctx.tenant.resolveSecret(name);

/** The public URL Telegram posts to: `webhookUrl` when set, else the tenant's base URL + webhookPath. */
export function telegramWebhookUrl(ctx: Pick<TenantContext, "tenantId" | "origin" | "config">): string {
  const telegram = ctx.config.channels?.telegram;
  if (telegram?.webhookUrl) return telegram.webhookUrl;
  if (!ctx.origin) throw new DomainError("invalid", "the service's public origin is unknown (set PUBLIC_ORIGIN)");
  return `${ctx.origin}/t/${ctx.tenantId}${telegram?.webhookPath ?? DEFAULT_WEBHOOK_PATH}`;
}

/** `setWebhook` with the tenant's URL and secret; answers what Telegram said. */
export async function setTelegramWebhook(ctx: TenantContext) {
  const bot = await telegramBotOf(ctx.config, resolver(ctx), ctx.outbound);
  if (!bot) throw new DomainError("invalid", "channels.telegram is not enabled or has no botToken");
  const secret = await channelSecretValue(ctx.config.channels?.telegram?.webhookSecret, resolver(ctx));
  if (!secret) throw new DomainError("invalid", "channels.telegram.webhookSecret is required for webhook mode");
  const url = telegramWebhookUrl(ctx);
  const answer = await bot.call("setWebhook", { url, secret_token: secret, allowed_updates: ALLOWED_UPDATES });
  return { ok: answer.ok, url, telegram: { status: answer.status, ...(answer.description ? { description: answer.description } : {}) } };
}

export async function pairingList(ctx: TenantContext, env: ChannelsEnv, channel: string) {
  return { channel, requests: await channelInboxApi(env, ctx.tenantId).pairingList(known(channel)) };
}

/** Approves a code; the sender may talk from now on (OpenClaw sends nothing to the user). */
export async function pairingApprove(ctx: TenantContext, env: ChannelsEnv, channel: string, code: string) {
  const senderId = await channelInboxApi(env, ctx.tenantId).pairingApprove(known(channel), code);
  if (!senderId) throw new DomainError("not_found", `No pending pairing request found for code: ${code}`);
  return { ok: true, channel, id: senderId, message: `Approved ${channel} sender ${senderId}.` };
}

/** `channels.status` as the Control UI's Channels page reads it (OpenClaw's shape, Telegram only). */
export async function channelsStatus(ctx: TenantContext, env: ChannelsEnv) {
  const telegram = ctx.config.channels?.telegram;
  const configured = Boolean(telegram?.botToken);
  const counts = configured ? await channelInboxApi(env, ctx.tenantId).status(TELEGRAM) : null;
  const account = {
    accountId: "default",
    enabled: telegram?.enabled !== false && configured,
    configured,
    running: configured && telegram?.enabled !== false,
    mode: "webhook",
    dmPolicy: telegram?.dmPolicy ?? "pairing",
    ...(counts ? { pendingUpdates: counts.pending, handledUpdates: counts.handled, pairingPending: counts.pairingPending } : {}),
  };
  return {
    ts: Date.now(),
    channelOrder: [TELEGRAM],
    channelLabels: { [TELEGRAM]: "Telegram" },
    channels: { [TELEGRAM]: { configured, running: account.running, mode: "webhook" } },
    channelAccounts: { [TELEGRAM]: [account] },
    channelDefaultAccountId: { [TELEGRAM]: "default" },
  };
}

function known(channel: string): string {
  if (channel !== TELEGRAM) throw new DomainError("invalid", `unknown channel: ${channel}`);
  return channel;
}

