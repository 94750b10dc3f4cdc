import { defaultAgentId } from "../../../policy/agent-config";
import { type TelegramMessage, telegramUpdateSchema } from "../../../protocol/channels";
import type { TenantConfig } from "../../../protocol/config";
import type { InboundAdapter, InboundDecision } from "../adapter";
import type { TelegramBotApi } from "./bot-api";
import { pairingMessage } from "./format";
import { telegramMediaRefs, telegramMediaSource } from "./media-download";
import { type BotIdentity, decideTelegram } from "./routing";

/** What the Telegram adapter needs from its host: the tenant's bot, and a place to remember its identity. */
export type TelegramAdapterPorts = {
  bot(config: TenantConfig): Promise<TelegramBotApi | null>;
  identity: { get(): BotIdentity | null; save(bot: BotIdentity): void };
};

/** Telegram's inbound side: updates parsed and decided by src/features/channels/telegram/routing.ts. */
export function telegramInbound(ports: TelegramAdapterPorts): InboundAdapter {
  return {
    async decide({ body, config, approved }) {
      const telegram = config.channels?.telegram;
      const bot = telegram ? await ports.bot(config) : null;
      if (!telegram || !bot) return null;
      const parsed = telegramUpdateSchema.safeParse(JSON.parse(body));
      if (!parsed.success) return { action: "ignore", reason: "not an update" };
      const decision = decideTelegram({
        update: parsed.data,
        telegram,
        config,
        agentId: defaultAgentId(config),
        bot: await identityOf(bot, ports.identity),
        approved,
      });
      return withMedia(decision, parsed.data.message);
    },
    async mediaSource(config) {
      const bot = await ports.bot(config);
      return bot ? telegramMediaSource(bot) : null;
    },
    async acknowledge(config, ack) {
      await (await ports.bot(config))?.acknowledge(ack);
    },
    pairingMessage,
  };
}

/** A turn of a message with files names them (fetched by the inbox before the run), its caption and its id. */
function withMedia(decision: InboundDecision, message: TelegramMessage | undefined): InboundDecision {
  if (decision.action !== "turn" || !message) return decision;
  const media = telegramMediaRefs(message);
  if (media.length === 0) return decision;
  const captionText = message.caption ?? message.text ?? "";
  return { action: "turn", turn: { ...decision.turn, media, captionText, messageId: message.message_id } };
}

/** The bot's id and username (mentions are matched against them), from getMe once per token. */
async function identityOf(bot: TelegramBotApi, cache: TelegramAdapterPorts["identity"]): Promise<BotIdentity> {
  const cached = cache.get();
  if (cached && cached.id === bot.botId) return cached;
  const me = await bot.getMe();
  cache.save(me);
  return me;
}
