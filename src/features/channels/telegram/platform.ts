import { telegramChannelConfig } from "../../../protocol/channels";
import { telegramBotOf } from "../channel-registry";
import type { ChatPlatform } from "../platform";
import { telegramInbound } from "./adapter";
import { telegramRateLimit } from "./bot-api";
import { DEFAULT_WEBHOOK_PATH } from "./ingress";
import { type BotIdentity, TELEGRAM } from "./routing";
import { telegramSetup } from "./setup";
import { telegramWebhook } from "./webhook";

/** Telegram (Bot API webhook, secret header checked before the body). */
export const telegramPlatform = {
  name: TELEGRAM,
  config: telegramChannelConfig,
  label: "Telegram",
  senderLabel: "telegramUserId",
  mode: "webhook",
  pairing: true,
  setup: telegramSetup,
  ingress: {
    defaultPath: DEFAULT_WEBHOOK_PATH,
    verification: "header",
    updateId: "update_id",
    webhook: telegramWebhook,
  },
  inbound: (host) =>
    telegramInbound({
      bot: (config) => telegramBotOf(config, host.resolve, host.outbound),
      identity: host.identity<BotIdentity>(TELEGRAM),
    }),
  rateLimit: telegramRateLimit,
  sender: async (config, resolve, outbound) => (await telegramBotOf(config, resolve, outbound))?.sender() ?? null,
} as const satisfies ChatPlatform;
