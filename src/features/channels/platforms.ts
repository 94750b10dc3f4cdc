import type { OutboundPolicy } from "../../policy/outbound-url";
import type { TenantConfig } from "../../protocol/config";
import type { ChannelSender, InboundAdapter } from "./adapter";
import type { InboundHost, SecretResolver } from "./channel-registry";
import type { ConversationReferences } from "./conversation-reference-store";
import { googleChatPlatform } from "./googlechat/platform";
import { linePlatform } from "./line/platform";
import { msTeamsPlatform } from "./msteams/platform";
import type { ChatPlatform } from "./platform";
import { withRateLimitRule } from "./rate-limit";
import { slackPlatform } from "./slack/platform";
import { telegramPlatform } from "./telegram/platform";
import { whatsappPlatform } from "./whatsapp/platform";

/**
 * The chat platforms this service serves: the one list every per-platform place reads (a new
 * platform is one more entry here, its folder, and its config half in CHANNEL_CONFIGS).
 */
export const PLATFORMS = [
  telegramPlatform,
  slackPlatform,
  whatsappPlatform,
  msTeamsPlatform,
  linePlatform,
  googleChatPlatform,
] as const;

/** The channels of this service by name. */
export const CHANNEL_NAMES = PLATFORMS.map((platform) => platform.name);

/** The registered platform named `channel`, if any. */
export function platformOf(channel: string): ChatPlatform | undefined {
  return (PLATFORMS as readonly ChatPlatform[]).find((platform) => platform.name === channel);
}

/**
 * Who delivers to `channel` for this tenant, its refusals read by the platform's rate-limit rule
 * (the one path from a platform's sender to the outbox); null: not a configured channel (the
 * delivery webhook takes it).
 */
export async function channelSenderOf(
  channel: string,
  config: TenantConfig,
  resolve: SecretResolver,
  outbound: OutboundPolicy,
  conversations?: ConversationReferences,
): Promise<ChannelSender | null> {
  const platform = platformOf(channel);
  const sender = await platform?.sender(config, resolve, outbound, conversations);
  return platform && sender ? withRateLimitRule(sender, platform.rateLimit) : null;
}

/** The inbound adapters by channel name: the inbox drives these. */
export function inboundAdapters(host: InboundHost): Record<string, InboundAdapter> {
  return Object.fromEntries(PLATFORMS.map((platform) => [platform.name, platform.inbound(host)]));
}
