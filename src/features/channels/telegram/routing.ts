import type { TelegramConfig, TelegramMessage, TelegramUpdate } from "../../../protocol/channels";
import type { TenantConfig } from "../../../protocol/config";
import type { InboundDecision } from "../adapter";
import { addressedCommand } from "../chat-command-turn";
import { directRefusal, ignore, replyTurn } from "../inbound-decision";
import { directSessionKey, groupSessionKey } from "../session-route";
import { commandsPagePress } from "./commands-pages";
import { telegramEnvelope, telegramRowFields } from "./context";
import { telegramTurnText } from "./media-text";

/**
 * Who may talk to the Telegram bot and which session a message lands in, as the real gateway
 * decides it (SPEC §3.3–3.4, §5). Pure: the approved senders and the bot's identity come in.
 */

export const TELEGRAM = "telegram";
/** The account of a single-bot config (OpenClaw's `accountId` "default"). */
export const DEFAULT_ACCOUNT = "default";
/** A forum's General topic: typing names it, replies omit it (SPEC §3.4). */
export const GENERAL_TOPIC_ID = 1;

export type BotIdentity = { id: number; username: string };

export type RoutingInput = {
  update: TelegramUpdate;
  telegram: TelegramConfig;
  config: Pick<TenantConfig, "session">;
  agentId: string;
  bot: BotIdentity;
  /** Senders approved through pairing (user ids as text). */
  approved: ReadonlySet<string>;
};

export function decideTelegram(input: RoutingInput): InboundDecision {
  const press = buttonPress(input.update);
  if (press) {
    const decision = decideMessage(input, press.message, true);
    if (decision.action !== "turn") return decision;
    const page = commandsPagePress(press, decision.turn, input.agentId);
    if (page) return page;
    // No 👀 on the bot's own message the button is under.
    const { reactToMessageId: _react, ...ack } = { ...decision.turn.ack, callbackQueryId: press.callbackQueryId };
    return { action: "turn", turn: { ...decision.turn, ack } };
  }
  const message = input.update.message;
  if (!message) return ignore("not a new message (edits and other updates are not turns)");
  return decideMessage(input, message, false);
}

function decideMessage(input: RoutingInput, message: TelegramMessage, buttonPressed: boolean): InboundDecision {
  const from = message.from;
  if (!from) return ignore("no sender");
  if (from.id === input.bot.id || from.is_bot) return ignore("a bot's own message");
  const text = telegramTurnText(message);
  if (text.trim() === "") return ignore("no text");
  // `/cmd@otherbot` is plain text for the model, not a mention (recorded from OpenClaw 2026.9.6).
  const forBot = addressedCommand(text, input.bot.username);
  const addressed = forBot && !forBot.toOtherBot ? forBot : null;
  const turnText = addressed?.text ?? text;
  if (message.chat.type === "private") return decideDirect(input, message, turnText);
  if (message.chat.type === "group" || message.chat.type === "supergroup")
    return decideGroup(input, message, turnText, buttonPressed || addressed !== null);
  return ignore(`chat type ${message.chat.type}`);
}

function decideDirect(input: RoutingInput, message: TelegramMessage, text: string): InboundDecision {
  const senderId = String(message.from!.id);
  const sender = { listed: listed(input.telegram.allowFrom, senderId), approved: input.approved.has(senderId) };
  const refused = directRefusal(input.telegram.dmPolicy, sender, () => ({
    senderId,
    chatId: String(message.chat.id),
    meta: senderMeta(message),
  }));
  if (refused) return refused;
  const sessionKey = directSessionKey({
    config: input.config,
    agentId: input.agentId,
    channel: TELEGRAM,
    accountId: DEFAULT_ACCOUNT,
    peerId: senderId,
  });
  return replyTurn({
    sessionKey,
    text,
    senderId,
    chatType: "direct",
    replyTarget: { channel: TELEGRAM, to: `${TELEGRAM}:${message.chat.id}`, accountId: DEFAULT_ACCOUNT },
    ack: { chatId: String(message.chat.id) },
    context: turnContext(message, false),
  });
}

function decideGroup(
  input: RoutingInput,
  message: TelegramMessage,
  text: string,
  addressedToBot: boolean,
): InboundDecision {
  const groupId = String(message.chat.id);
  const { telegram } = input;
  const policy = telegram.groupPolicy ?? "allowlist";
  if (policy === "disabled") return ignore("groups disabled");
  const groups = telegram.groups ?? {};
  const group = groups[groupId] ?? groups["*"];
  // With `groups` configured it is the allowlist, whatever groupPolicy says (recorded: SPEC §3.4).
  const listedGroups = Object.keys(groups).length > 0;
  if ((listedGroups || policy === "allowlist") && !group) return ignore("group not allowed");
  if (group?.enabled === false) return ignore("group disabled");
  const senderId = String(message.from!.id);
  const senders = group?.allowFrom ?? telegram.groupAllowFrom;
  if (senders && senders.length > 0 && !listed(senders, senderId)) return ignore("sender not allowed in group");
  const requireMention = group?.requireMention ?? true;
  const mentioned = addressedToBot || mentionsBot(message, input.bot);
  if (requireMention && !mentioned) return ignore("no mention", historyEntry(message, text));
  const topic = topicOf(message);
  const sessionKey = groupSessionKey({
    agentId: input.agentId,
    channel: TELEGRAM,
    groupId,
    ...(topic !== undefined ? { thread: { kind: "topic" as const, id: String(topic) } } : {}),
  });
  // The General topic is the group itself in OpenClaw's lastTo (replies omit its thread id too).
  const to =
    topic !== undefined && topic !== GENERAL_TOPIC_ID
      ? `${TELEGRAM}:${groupId}:topic:${topic}`
      : `${TELEGRAM}:${groupId}`;
  const replyTarget = {
    channel: TELEGRAM,
    to,
    accountId: DEFAULT_ACCOUNT,
    ...(topic !== undefined ? { threadId: topic } : {}),
  };
  return replyTurn({
    sessionKey,
    text,
    senderId,
    chatType: "group",
    replyTarget,
    context: { ...turnContext(message, mentioned), historyKey: historyKeyOf(message) },
    ack: {
      chatId: groupId,
      ...(topic !== undefined ? { typingThreadId: topic } : {}),
      // The 👀 reaction answers a mention, required or not (OpenClaw's "group-mentions", recorded).
      ...(mentioned ? { reactToMessageId: message.message_id } : {}),
    },
  });
}

/**
 * An inline-button press as OpenClaw takes it: a turn of the presser in the button message's chat
 * whose text is `callback_data: <data>` (addressed to the bot, like a mention); answered with
 * `answerCallbackQuery` first. A press without data or without its message is no turn; a
 * `/commands` page button's press is answered by an edit instead (commands-pages.ts).
 */
function buttonPress(
  update: TelegramUpdate,
): { message: TelegramMessage; callbackQueryId: string; data: string; messageId: number } | null {
  const query = update.callback_query;
  if (!query?.message || query.data === undefined) return null;
  const { entities: _entities, caption: _caption, reply_to_message: _reply, ...buttonMessage } = query.message;
  return {
    message: { ...buttonMessage, from: query.from, text: `callback_data: ${query.data}` },
    callbackQueryId: query.id,
    data: query.data,
    messageId: query.message.message_id,
  };
}

/** A forum message's topic: its thread id, or the General topic when a forum message has none. */
function topicOf(message: TelegramMessage): number | undefined {
  if (message.message_thread_id !== undefined && (message.is_topic_message || message.chat.is_forum))
    return message.message_thread_id;
  if (message.chat.is_forum) return GENERAL_TOPIC_ID;
  return undefined;
}

/** An `@bot` mention entity (or a text_mention of the bot), or a reply to one of the bot's messages. */
export function mentionsBot(message: TelegramMessage, bot: BotIdentity): boolean {
  if (message.reply_to_message?.from?.id === bot.id) return true;
  const text = message.text ?? message.caption ?? "";
  const entities = message.entities ?? message.caption_entities ?? [];
  const handle = `@${bot.username}`.toLowerCase();
  return entities.some((entity) => {
    if (entity.type === "text_mention") return entity.user?.id === bot.id;
    if (entity.type !== "mention") return false;
    return text.slice(entity.offset, entity.offset + entity.length).toLowerCase() === handle;
  });
}

/** Whether an allowFrom list names the sender (ids as numbers or text, `telegram:`/`tg:` prefixes, `*`). */
function listed(list: ReadonlyArray<string | number> | undefined, senderId: string): boolean {
  return (list ?? []).some((entry) => {
    const value = String(entry)
      .trim()
      .replace(/^(telegram|tg):/i, "");
    return value === "*" || value === senderId;
  });
}

function senderMeta(message: TelegramMessage): Record<string, string> {
  const from = message.from!;
  return {
    ...(from.username ? { username: from.username } : {}),
    ...(from.first_name ? { firstName: from.first_name } : {}),
    accountId: DEFAULT_ACCOUNT,
  };
}

/** OpenClaw's envelope for the model and the row fields of the turn's session. */
function turnContext(message: TelegramMessage, mentioned: boolean) {
  return { envelope: telegramEnvelope(message, mentioned), rowFields: telegramRowFields(message, DEFAULT_ACCOUNT) };
}

/** A group message that did not address the bot, kept for the group's next turn (`Conversation context`). */
function historyEntry(message: TelegramMessage, text: string) {
  const envelope = telegramEnvelope(message, false);
  const line = {
    messageId: envelope.messageId,
    timestampMs: envelope.timestampMs,
    senderName: envelope.sender.name ?? envelope.sender.id,
    text,
  };
  return { chatKey: historyKeyOf(message), line };
}

function historyKeyOf(message: TelegramMessage): string {
  return `${TELEGRAM}:${message.chat.id}`;
}
