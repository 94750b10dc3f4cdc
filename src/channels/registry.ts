import type { OutboundPolicy } from "../policy/outbound-url";
import type { ChannelSecret } from "../protocol/channels";
import type { TenantConfig } from "../protocol/config";
import type { ResolvedSecret } from "../protocol/secrets";
import type { ChannelSender, InboundAdapter } from "./adapter";
import { telegramInbound } from "./telegram/adapter";
import { TELEGRAM_API_ROOT, TelegramBotApi } from "./telegram/bot-api";
import { type BotIdentity, TELEGRAM } from "./telegram/routing";

/** Reads a secret store entry of the tenant (null: none). */
export type SecretResolver = (name: string) => Promise<ResolvedSecret | null>;

/** The channels of this service by name: the one place a new platform is registered. */
export const CHANNEL_NAMES = [TELEGRAM] as const;

/** A channel token's value: the plain value, or the store entry its SecretRef names. */
export async function channelSecretValue(
  secret: ChannelSecret | undefined,
  resolve: SecretResolver,
): Promise<string | null> {
  if (secret === undefined) return null;
  if (typeof secret === "string") return secret;
  return (await resolve(secret.id))?.value ?? null;
}

/** The tenant's Telegram bot, when the channel is enabled and has a token. */
export async function telegramBotOf(
  config: TenantConfig,
  resolve: SecretResolver,
  outbound: OutboundPolicy,
): Promise<TelegramBotApi | null> {
  const telegram = config.channels?.telegram;
  if (!telegram || telegram.enabled === false) return null;
  const token = await channelSecretValue(telegram.botToken, resolve);
  if (!token) return null;
  return new TelegramBotApi(token, telegram.apiRoot ?? TELEGRAM_API_ROOT, outbound, telegram.textChunkLimit);
}

/** Who delivers to `channel` for this tenant; null: not a configured channel (the delivery webhook takes it). */
export async function channelSenderOf(
  channel: string,
  config: TenantConfig,
  resolve: SecretResolver,
  outbound: OutboundPolicy,
): Promise<ChannelSender | null> {
  if (channel === TELEGRAM) return (await telegramBotOf(config, resolve, outbound))?.sender() ?? null;
  return null;
}

/** What the platforms' inbound sides need from the inbox: secrets, the outbound policy, a cache of the bot's identity. */
export type InboundHost = {
  resolve: SecretResolver;
  outbound: OutboundPolicy;
  identity(channel: string): { get(): BotIdentity | null; save(bot: BotIdentity): void };
};

/** The inbound adapters by channel name: the inbox drives these (a new platform is one more entry). */
export function inboundAdapters(host: InboundHost): Record<string, InboundAdapter> {
  return {
    [TELEGRAM]: telegramInbound({
      bot: (config) => telegramBotOf(config, host.resolve, host.outbound),
      identity: host.identity(TELEGRAM),
    }),
  };
}
