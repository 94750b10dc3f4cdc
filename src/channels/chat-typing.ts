import type { OutboundPolicy } from "../policy/outbound-url";
import type { TenantConfig } from "../protocol/config";
import { type SecretResolver, telegramBotOf } from "./channel-registry";
import { parseTelegramTarget } from "./telegram/bot-api";
import type { TypingSender } from "./typing-keepalive";

/**
 * The typing indicator of each platform that has one a bot may show, for a run's reply target:
 * Telegram's `sendChatAction typing` (in the target's topic). Slack shows bots no typing (the 👀
 * reaction stands for it); the other platforms' acknowledgements are one-off.
 */
export function chatTypingSender(
  config: () => Promise<TenantConfig>,
  resolve: SecretResolver,
  outbound: OutboundPolicy,
): TypingSender {
  return async (target) => {
    if (target.channel !== "telegram") return null;
    const chat = parseTelegramTarget(target);
    const bot = chat ? await telegramBotOf(await config(), resolve, outbound) : null;
    if (!chat || !bot) return null;
    return async () => {
      await bot.typing(Number(chat.chatId), chat.threadId);
    };
  };
}
