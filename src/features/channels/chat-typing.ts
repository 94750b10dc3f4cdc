import type { LiveEvent } from "../../contracts/tenant-api";
import type { DeliveryTarget } from "../../model/delivery";
import type { OutboundPolicy } from "../../policy/outbound-url";
import type { TenantConfig } from "../../protocol/config";
import { type SecretResolver, telegramBotOf } from "./channel-registry";
import { type DraftChat, PROGRESS_DRAFT_HTML, type ProgressDraftPorts, ProgressDrafts } from "./progress-draft";
import { parseTelegramTarget, type TelegramBotApi } from "./telegram/bot-api";
import { GENERAL_TOPIC_ID } from "./telegram/routing";
import { TypingKeepAlive, type TypingSender } from "./typing-keepalive";

/**
 * What a chat shows while a run works, per platform that has it: Telegram's `sendChatAction
 * typing` (in the target's topic) and its progress draft. Slack shows bots no typing (the 👀
 * reaction stands for it); the other platforms' acknowledgements are one-off.
 */

type ConfigPorts = { config: () => Promise<TenantConfig>; resolve: SecretResolver; outbound: OutboundPolicy };

/** What a session object hands the chat activity: its tenant's config and secrets, its runs and reply deliveries. */
export type ChatActivityPorts = ConfigPorts & Omit<ProgressDraftPorts, "draftChat">;

/** Watches a session's live events: each sees every event (a run's start, tool calls, end, its reply delivered). */
export type LiveEventWatcher = { offer(event: Omit<LiveEvent, "afterSeq">): void };

/**
 * The watchers a session object runs for its chat turns (handed to it as a reply route, so
 * session/ imports no channel): typing kept alive, and Telegram's progress draft.
 */
export function chatActivity(ports: ChatActivityPorts): LiveEventWatcher[] {
  return [
    new TypingKeepAlive({
      replyTargetOf: ports.replyTargetOf,
      typing: chatTypingSender(ports),
      waitUntil: ports.waitUntil,
    }),
    new ProgressDrafts({ ...ports, draftChat: chatDraftOpener(ports) }),
  ];
}

/** The Telegram bot and chat of a run's reply target; null off Telegram or without a bot. */
async function telegramChatOf(ports: ConfigPorts, target: DeliveryTarget) {
  if (target.channel !== "telegram") return null;
  const chat = parseTelegramTarget(target);
  if (!chat) return null;
  const config = await ports.config();
  const bot = await telegramBotOf(config, ports.resolve, ports.outbound);
  return bot ? { bot, config, chatId: Number(chat.chatId), threadId: chat.threadId } : null;
}

export function chatTypingSender(ports: ConfigPorts): TypingSender {
  return async (target) => {
    const chat = await telegramChatOf(ports, target);
    if (!chat) return null;
    return async () => {
      await chat.bot.typing(chat.chatId, chat.threadId);
    };
  };
}

/**
 * Telegram's progress draft in the reply's chat (topic as the reply: the General topic's is
 * omitted), unless `channels.telegram.streaming` turns it off (OpenClaw's key; `"progress"`
 * is its default).
 */
export function chatDraftOpener(ports: ConfigPorts): (target: DeliveryTarget) => Promise<DraftChat | null> {
  return async (target) => {
    const chat = await telegramChatOf(ports, target);
    const streaming = (chat?.config.channels?.telegram as { streaming?: unknown } | undefined)?.streaming;
    if (!chat || (streaming !== undefined && streaming !== "progress")) return null;
    return telegramDraft(chat.bot, chat.chatId, chat.threadId);
  };
}

function telegramDraft(bot: TelegramBotApi, chatId: number, threadId: number | undefined): DraftChat {
  const thread = threadId !== undefined && threadId !== GENERAL_TOPIC_ID ? { message_thread_id: threadId } : {};
  return {
    show: async () => {
      const answer = await bot.call("sendMessage", {
        chat_id: chatId,
        text: PROGRESS_DRAFT_HTML,
        parse_mode: "HTML",
        ...thread,
      });
      const messageId = (answer.result as { message_id?: unknown } | undefined)?.message_id;
      return answer.ok && typeof messageId === "number" ? messageId : null;
    },
    remove: async (messageId) => {
      await bot.call("deleteMessage", { chat_id: chatId, message_id: messageId });
    },
  };
}
