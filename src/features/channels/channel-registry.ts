import { DomainError } from "../../domain/errors";
import { type BoundCredential, boundCredentialRefusal, unboundCredential } from "../../policy/bound-credential";
import type { OutboundPolicy } from "../../policy/outbound-url";
import { CHANNEL_SECRET_KEYS, type ChannelSecret } from "../../protocol/channels";
import type { TenantConfig } from "../../protocol/config";
import type { ResolvedSecret } from "../../protocol/secrets";
import type { BotMessagesPort } from "./bot-messages";
import type { ConversationMemory } from "./conversation-reference-store";
import type { BotThreadsPort } from "./slack/threads";
import { SLACK_API_ROOT, SlackWebApi } from "./slack/web-api";
import { TELEGRAM_API_ROOT, TelegramBotApi } from "./telegram/bot-api";

/** Reads a secret store entry of the tenant (null: none). */
export type SecretResolver = (name: string) => Promise<ResolvedSecret | null>;

/** A channel token's value: the plain value, or the store entry its SecretRef names. */
export async function channelSecretValue(
  secret: ChannelSecret | undefined,
  resolve: SecretResolver,
): Promise<string | null> {
  if (secret === undefined) return null;
  if (typeof secret === "string") return secret;
  return (await resolve(secret.id))?.value ?? null;
}

/**
 * A channel credential as its sender holds it: the value with its store entry's `allowedHosts`
 * (docs/secrets.md; a plain config value is bound to no host). The sender names it on every
 * request that attaches it, and `guardedFetch` holds each such request to those hosts, so a
 * URL the platform hands back (Slack's `url_private`) is checked as the API root is.
 */
export async function channelBoundCredential(
  secret: ChannelSecret | undefined,
  resolve: SecretResolver,
): Promise<BoundCredential | null> {
  if (secret === undefined) return null;
  if (typeof secret === "string") return unboundCredential(secret);
  const resolved = await resolve(secret.id);
  return resolved ? { value: resolved.value, secretId: secret.id, allowedHosts: resolved.allowedHosts } : null;
}

/**
 * A channel credential the service sends to `destination` (the platform's API root, or the
 * token endpoint it is exchanged at): its value, held to its store entry's `allowedHosts` as a
 * runner's key is (docs/secrets.md): an entry bound to hosts goes only to one of them, over
 * https to port 443. A refusal throws (the send fails with it, in the delivery and the log);
 * nothing is sent.
 */
export async function channelCredential(
  secret: ChannelSecret | undefined,
  resolve: SecretResolver,
  destination: string,
  outbound: OutboundPolicy,
): Promise<string | null> {
  return (await boundChannelCredential(secret, resolve, destination, outbound))?.value ?? null;
}

/** channelBoundCredential, refused at once (a clear error before any request) when `destination` is outside its hosts. */
export async function boundChannelCredential(
  secret: ChannelSecret | undefined,
  resolve: SecretResolver,
  destination: string,
  outbound: OutboundPolicy,
): Promise<BoundCredential | null> {
  const credential = await channelBoundCredential(secret, resolve);
  const refusal = credential && boundCredentialRefusal(credential, new URL(destination), outbound.allowLoopback);
  if (refusal) throw new DomainError("invalid", refusal);
  return credential;
}

/** The values of a channel's credentials (bot token, webhook or signing secret): what its platform's answers are redacted of. */
export async function channelCredentials(
  config: TenantConfig,
  channel: string,
  resolve: SecretResolver,
): Promise<string[]> {
  const keys = (CHANNEL_SECRET_KEYS as Record<string, readonly string[]>)[channel] ?? [];
  const block = (config.channels as Record<string, Record<string, ChannelSecret | undefined>> | undefined)?.[channel];
  const values = await Promise.all(keys.map((key) => channelSecretValue(block?.[key], resolve).catch(() => null)));
  return values.filter((value): value is string => !!value);
}

/** The tenant's Telegram bot, when the channel is enabled and has a token. */
export async function telegramBotOf(
  config: TenantConfig,
  resolve: SecretResolver,
  outbound: OutboundPolicy,
): Promise<TelegramBotApi | null> {
  const telegram = config.channels?.telegram;
  if (!telegram || telegram.enabled === false) return null;
  const apiRoot = telegram.apiRoot ?? TELEGRAM_API_ROOT;
  const token = await boundChannelCredential(telegram.botToken, resolve, apiRoot, outbound);
  if (!token) return null;
  return new TelegramBotApi(token, apiRoot, outbound, telegram.textChunkLimit);
}

/** The tenant's Slack app (HTTP mode), when the channel is enabled and has a bot token. */
export async function slackApiOf(
  config: TenantConfig,
  resolve: SecretResolver,
  outbound: OutboundPolicy,
): Promise<SlackWebApi | null> {
  const slack = config.channels?.slack;
  if (!slack || slack.enabled === false) return null;
  const apiRoot = slack.apiRoot ?? SLACK_API_ROOT;
  const token = await boundChannelCredential(slack.botToken, resolve, apiRoot, outbound);
  if (!token) return null;
  return new SlackWebApi(token, apiRoot, outbound, slack.textChunkLimit);
}

/** What the platforms' inbound sides need from the inbox: secrets, the outbound policy, a cache of the bot's identity. */
export type InboundHost = {
  resolve: SecretResolver;
  outbound: OutboundPolicy;
  /** The identity a channel's bot learned from its platform (getMe, auth.test), kept per channel. */
  identity<T>(channel: string): { get(): T | null; save(bot: T): void };
  /** Where the platform reaches each conversation (Teams' serviceUrl), kept as activities arrive. */
  conversations?: ConversationMemory;
  /** The Slack threads the bot posted in (thread follow-ups without a mention; slack/threads.ts). */
  botThreads?: BotThreadsPort;
  /** The bot's recent messages per channel (a quote of one is a mention; bot-messages.ts). */
  botMessages?: BotMessagesPort;
};
