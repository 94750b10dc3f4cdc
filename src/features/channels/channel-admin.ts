import type { TenantContext } from "../../domain/context";
import { DomainError } from "../../domain/errors";
import { redactCredentials } from "../../secrets/redact-credentials";
import { toBase64Url } from "../../util/encoding";
import { channelCredential, channelCredentials, telegramBotOf } from "./channel-registry";
import { catalogueMeta } from "./control-ui-catalogue";
import { PAIRING_PENDING_MAX, PAIRING_TTL_MS, type PairingRequest } from "./inbox-store";
import type { ChatPlatform } from "./platform";
import { PLATFORMS } from "./platforms";
import { accountSendStatus } from "./send-health";
import { ALLOWED_UPDATES, TELEGRAM_API_ROOT } from "./telegram/bot-api";
import { DEFAULT_WEBHOOK_PATH } from "./telegram/ingress";
import { TELEGRAM } from "./telegram/routing";

/**
 * The operator's side of the channels: registering the Telegram webhook, the pairing queue
 * (OpenClaw's `pairing list` / `pairing approve` shapes) and `channels.status`.
 */

const ACCOUNT_ID = "default";
/** The admin answers' per-channel labels, derived from a list of platforms. */
export function adminLabels(platforms: readonly ChatPlatform[]) {
  const by = (value: (platform: ChatPlatform) => string): Record<string, string> =>
    Object.fromEntries(platforms.map((platform) => [platform.name, value(platform)]));
  return {
    channelLabels: by((platform) => platform.label),
    /** What a pairing request's sender id is, per channel (OpenClaw's pairing adapter `idLabel`). */
    senderLabels: by((platform) => platform.senderLabel),
    /** How each channel's webhook is run here (channels.status `mode`). */
    modes: by((platform) => platform.mode),
    pairingChannels: platforms.filter((platform) => platform.pairing).map((platform) => platform.name),
  };
}
const {
  channelLabels: CHANNEL_LABELS,
  senderLabels: SENDER_LABELS,
  modes: CHANNEL_MODES,
} = adminLabels(PLATFORMS as readonly ChatPlatform[]);
/** The channels whose DM senders can be paired. */
export const PAIRING_CHANNELS = PLATFORMS.filter((platform) => platform.pairing).map((platform) => platform.name);

const resolver = (ctx: TenantContext<"secrets">) => async (name: string) => ctx.tenant.resolveSecret(name);

/** The public URL Telegram posts to: `webhookUrl` when set, else the tenant's base URL + webhookPath. */
export function telegramWebhookUrl(ctx: Pick<TenantContext, "tenantId" | "origin" | "config">): string {
  const telegram = ctx.config.channels?.telegram;
  if (telegram?.webhookUrl) return telegram.webhookUrl;
  if (!ctx.origin) throw new DomainError("invalid", "the service's public origin is unknown (set PUBLIC_ORIGIN)");
  return `${ctx.origin}/t/${ctx.tenantId}${telegram?.webhookPath ?? DEFAULT_WEBHOOK_PATH}`;
}

/**
 * `setWebhook` with the tenant's URL and secret; answers what Telegram said. A refusal carries
 * Telegram's own description (redacted of the bot token and webhook secret) as `error`, for a
 * non-2xx answer.
 */
export async function setTelegramWebhook(ctx: TenantContext<"secrets">) {
  const bot = await telegramBotOf(ctx.config, resolver(ctx), ctx.outbound);
  if (!bot) throw new DomainError("invalid", "channels.telegram is not enabled or has no botToken");
  const secret = await channelCredential(
    ctx.config.channels?.telegram?.webhookSecret,
    resolver(ctx),
    ctx.config.channels?.telegram?.apiRoot ?? TELEGRAM_API_ROOT,
    ctx.outbound,
  );
  if (!secret) throw new DomainError("invalid", "channels.telegram.webhookSecret is required for webhook mode");
  const url = telegramWebhookUrl(ctx);
  const answer = await bot.call("setWebhook", { url, secret_token: secret, allowed_updates: ALLOWED_UPDATES });
  // Telegram's text (or a proxy's, or a self-hosted Bot API server's) may echo what it was sent:
  // the sender's declared credentials (the token and its secret half) and the channel's secrets.
  const credentials = [...bot.credentials, ...(await channelCredentials(ctx.config, TELEGRAM, resolver(ctx)))];
  const description = answer.description ? redactCredentials(answer.description, credentials) : undefined;
  const telegram = { status: answer.status, ...(description ? { description } : {}) };
  if (answer.ok) return { ok: true as const, url, telegram };
  const said = description ?? `HTTP ${answer.status}`;
  return {
    ok: false as const,
    url,
    telegram,
    error: {
      type: "upstream",
      message:
        answer.status === 0
          ? `could not reach Telegram: ${said}`
          : `Telegram refused setWebhook (${answer.status}): ${said}`,
    },
  };
}

/** `openclaw pairing list <channel> --json`: `{ channel, requests: [{ id, code, createdAt, lastSeenAt, meta }] }`. */
export async function pairingList(ctx: TenantContext<never>, channel: string) {
  return { channel, requests: await ctx.channelInbox.pairingList(known(channel)) };
}

/** `openclaw pairing approve <channel> <code>`: the sender may talk from now on (nothing is sent to them). */
export async function pairingApprove(ctx: TenantContext<never>, channel: string, code: string) {
  const senderId = await ctx.channelInbox.pairingApprove(known(channel), code);
  if (!senderId) throw new DomainError("not_found", `No pending pairing request found for code: ${code}`);
  return { ok: true, channel, id: senderId, message: `Approved ${channel} sender ${senderId}.` };
}

/** The tenant's channel accounts that take DM pairing (configured, enabled, dmPolicy pairing). */
function pairingAccounts(ctx: TenantContext<never>, channel?: string) {
  return PAIRING_CHANNELS.filter((name) => {
    const block = ctx.config.channels?.[name];
    return (
      (!channel || channel === name) &&
      block?.botToken &&
      block.enabled !== false &&
      (block.dmPolicy ?? "pairing") === "pairing"
    );
  }).map((name) => ({
    channel: name,
    channelLabel: CHANNEL_LABELS[name]!,
    accountId: ACCOUNT_ID,
    notifySupported: false,
  }));
}

/** OpenClaw's opaque request id: a digest of channel, account, sender and creation time (never the code). */
async function requestIdOf(channel: string, request: PairingRequest): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`${channel}\0${ACCOUNT_ID}\0${request.id}\0${request.createdAt}`),
  );
  return toBase64Url(new Uint8Array(digest)).slice(0, 32);
}

/** `channels.pairing.list` as the Control UI's Channels page reads it. */
export async function controlUiPairingList(ctx: TenantContext<never>, params: { channel?: string | undefined }) {
  const accounts = pairingAccounts(ctx, params.channel);
  const requests = [];
  for (const account of accounts) {
    for (const request of await ctx.channelInbox.pairingList(account.channel)) {
      const { accountId: _accountId, ...metadata } = request.meta;
      requests.push({
        requestId: await requestIdOf(account.channel, request),
        channel: account.channel,
        channelLabel: account.channelLabel,
        accountId: ACCOUNT_ID,
        senderId: request.id,
        senderLabel: SENDER_LABELS[account.channel]!,
        ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
        createdAt: request.createdAt,
        lastSeenAt: request.lastSeenAt,
        expiresAt: new Date(Date.parse(request.createdAt) + PAIRING_TTL_MS).toISOString(),
        notifySupported: false,
      });
    }
  }
  return {
    accounts,
    requests,
    commandOwnerConfigured: false,
    limits: { pendingPerAccount: PAIRING_PENDING_MAX, ttlMs: PAIRING_TTL_MS },
  };
}

/** `channels.pairing.approve {channel, accountId, requestId}` (the Control UI's approve button). */
export async function controlUiPairingApprove(
  ctx: TenantContext<never>,
  params: { channel: string; accountId: string; requestId: string },
) {
  if (pairingAccounts(ctx, params.channel).length === 0 || params.accountId !== ACCOUNT_ID)
    throw new DomainError("invalid", `channel account does not use DM pairing: ${params.channel}:${params.accountId}`);
  for (const request of await ctx.channelInbox.pairingList(params.channel)) {
    if ((await requestIdOf(params.channel, request)) !== params.requestId) continue;
    const senderId = await ctx.channelInbox.pairingApprove(params.channel, request.code);
    if (!senderId) break;
    return {
      requestId: params.requestId,
      senderId,
      notification: "not-requested",
      commandOwnerBootstrap: "not-requested",
    };
  }
  throw new DomainError("invalid", "pending DM access request no longer exists");
}

/** One channel's account as `channels.status` lists it. */
async function channelAccount(ctx: TenantContext<never>, channel: (typeof PAIRING_CHANNELS)[number]) {
  const block = ctx.config.channels?.[channel] as Record<string, unknown> | undefined;
  const credential = PLATFORMS.find((platform) => platform.name === channel)!.config.credential;
  const configured = Boolean(block?.[credential]);
  const counts = configured ? await ctx.channelInbox.status(channel) : null;
  const sends = accountSendStatus(channel, ACCOUNT_ID, counts?.sendHealth ?? {});
  return {
    accountId: ACCOUNT_ID,
    enabled: block?.enabled !== false && configured,
    configured,
    running: configured && block?.enabled !== false,
    mode: CHANNEL_MODES[channel]!,
    dmPolicy: (block?.dmPolicy as string | undefined) ?? "pairing",
    lastError: sends.lastError,
    lastOutboundAt: sends.lastOutboundAt,
    ...(counts
      ? { pendingUpdates: counts.pending, handledUpdates: counts.handled, pairingPending: counts.pairingPending }
      : {}),
    issues: configured ? sends.issues : [],
  };
}

/** `channels.status` as the Control UI's Channels page reads it (OpenClaw's shape). */
export async function channelsStatus(ctx: TenantContext<never>) {
  // Telegram is always listed (bundled with OpenClaw); Slack once configured (a plugin there).
  const listed = PAIRING_CHANNELS.filter((channel) => channel === TELEGRAM || ctx.config.channels?.[channel]);
  const found = await Promise.all(listed.map((channel) => channelAccount(ctx, channel)));
  const accounts = found.map(({ issues: _issues, ...account }) => account);
  const byChannel = <T>(value: (index: number) => T) =>
    Object.fromEntries(listed.map((channel, index) => [channel, value(index)]));
  return {
    ts: Date.now(),
    channelOrder: listed,
    channelLabels: CHANNEL_LABELS,
    channelDetailLabels: {},
    channelSystemImages: {},
    // The page's cards: the served platforms, then its catalogue's others marked unserved.
    channelMeta: catalogueMeta(PLATFORMS as readonly ChatPlatform[]),
    channels: byChannel((i) => ({
      configured: accounts[i]!.configured,
      running: accounts[i]!.running,
      mode: accounts[i]!.mode,
    })),
    channelAccounts: byChannel((i) => [accounts[i]!]),
    channelDefaultAccountId: byChannel(() => ACCOUNT_ID),
    // Auth failures first (each account lists its own first).
    statusIssues: found.flatMap((account) => account.issues).sort((a, b) => rank(a.kind) - rank(b.kind)),
  };
}

const rank = (kind: string) => (kind === "auth" ? 0 : 1);

function known(channel: string): string {
  if (!(PAIRING_CHANNELS as readonly string[]).includes(channel))
    throw new DomainError("invalid", `unknown channel: ${channel}`);
  return channel;
}
