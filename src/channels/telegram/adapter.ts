import { defaultAgentId } from "../../policy/agent-config";
import { telegramUpdateSchema } from "../../protocol/channels";
import type { TenantConfig } from "../../protocol/config";
import type { InboundAdapter } from "../adapter";
import type { TelegramBotApi } from "./bot-api";
import { pairingMessage } from "./format";
import { type BotIdentity, decideTelegram } from "./routing";

/** What the Telegram adapter needs from its host: the tenant's bot, and a place to remember its identity. */
export type TelegramAdapterPorts = {
  bot(config: TenantConfig): Promise<TelegramBotApi | null>;
  identity: { get(): BotIdentity | null; save(bot: BotIdentity): void };
};

/** Telegram's inbound side: updates parsed and decided by src/channels/telegram/routing.ts. */
export function telegramInbound(ports: TelegramAdapterPorts): InboundAdapter {
  return {
    async decide({ body, config, approved }) {
      const telegram = config.channels?.telegram;
      const bot = telegram ? await ports.bot(config) : null;
      if (!telegram || !bot) return null;
      const parsed = telegramUpdateSchema.safeParse(JSON.parse(body));
      if (!parsed.success) return { action: "ignore", reason: "not an update" };
      return decideTelegram({
        update: parsed.data,
        telegram,
        config,
        agentId: defaultAgentId(config),
        bot: await identityOf(bot, ports.identity),
        approved,
      });
    },
    async acknowledge(config, ack) {
      await (await ports.bot(config))?.acknowledge(ack);
    },
    pairingMessage,
  };
}

/** The bot's id and username (mentions are matched against them), from getMe once per token. */
async function identityOf(bot: TelegramBotApi, cache: TelegramAdapterPorts["identity"]): Promise<BotIdentity> {
  const cached = cache.get();
  if (cached && cached.id === bot.botId) return cached;
  const me = await bot.getMe();
  cache.save(me);
  return me;
}
