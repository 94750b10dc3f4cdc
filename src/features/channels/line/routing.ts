import type { LineConfig } from "../../../protocol/channels";
import type { TenantConfig } from "../../../protocol/config";
import type { InboundDecision } from "../adapter";
import { directTurn, ignore, replyTurn } from "../inbound-decision";
import { groupSessionKey } from "../session-route";
import { lineEnvelope, lineRowFields } from "./context";
import type { LineEvent } from "./events";
import { lineMessageText } from "./message-text";
import type { LineChat, LineNames } from "./names";

/**
 * Who may talk to the LINE bot and which session a message lands in, as the real gateway decides
 * it (SPEC §3.2–§3.5): DMs under `dmPolicy`, groups and rooms admitted by sender
 * (`groupAllowFrom`, any group), `requireMention` per listed group (default true), a mention
 * being `mentionees[].isSelf` or a quote of one of the bot's messages. Pure.
 */

export const LINE = "line";
/** The account of a single-channel config (OpenClaw's `accountId` "default"). */
export const LINE_ACCOUNT = "default";

export type LineRoutingInput = {
  event: LineEvent;
  line: LineConfig;
  config: Pick<TenantConfig, "session">;
  agentId: string;
  /** Senders approved through pairing (LINE user ids). */
  approved: ReadonlySet<string>;
  /** Ids of messages the bot sent, when known (a quote of one is a mention). */
  botMessageIds?: Pick<ReadonlySet<string>, "has">;
};

export function decideLine(input: LineRoutingInput): InboundDecision {
  const { event } = input;
  if (event.type !== "message") return ignore(`event ${event.type}`);
  const message = event.message;
  // A sticker, a location and a file LINE holds are turns too (message-text.ts; files fetched by the inbox).
  const text = lineMessageText(message);
  if (!message || !text.trim()) return ignore("no text");
  const source = event.source;
  const senderId = source?.userId;
  if (!senderId) return ignore("no sender");
  if (source.type === "user") return decideDirect(input, senderId, text);
  const chat = lineChatOf(source);
  if (!chat) return ignore(`source ${source.type}`);
  return decideGroup(input, senderId, chat, text);
}

/** The group or room a message was written in; null for a 1:1 chat or an unknown source. */
export function lineChatOf(source: LineEvent["source"]): LineChat | null {
  if (source?.type === "group" && source.groupId) return { kind: "group", id: source.groupId };
  if (source?.type === "room" && source.roomId) return { kind: "room", id: source.roomId };
  return null;
}

function decideDirect(input: LineRoutingInput, senderId: string, text: string): InboundDecision {
  // The ack's chat is the sender: the loading indicator exists in 1:1 chats only.
  return directTurn({
    policy: input.line.dmPolicy,
    sender: { listed: listed(input.line.allowFrom, senderId), approved: input.approved.has(senderId) },
    senderId,
    chatId: senderId,
    meta: { accountId: LINE_ACCOUNT },
    config: input.config,
    agentId: input.agentId,
    channel: LINE,
    accountId: LINE_ACCOUNT,
    to: `line:${senderId}`,
    text,
    context: turnContext(input.event, senderId, undefined, false, {}),
  });
}

function decideGroup(input: LineRoutingInput, senderId: string, chat: LineChat, text: string): InboundDecision {
  const { line, event } = input;
  const policy = line.groupPolicy ?? "allowlist";
  if (policy === "disabled") return ignore("groups disabled");
  // Sender-based (recorded): a sender in groupAllowFrom is admitted in any group, listed or not.
  if (policy === "allowlist" && !listed(line.groupAllowFrom, senderId)) return ignore("sender not in groupAllowFrom");
  const groups = line.groups ?? {};
  const entry = groups[chat.id] ?? groups["*"];
  if (entry?.enabled === false) return ignore("group disabled");
  const requireMention = entry?.requireMention ?? true;
  const mentioned = mentionsBot(event, input.botMessageIds);
  if (requireMention && !mentioned) return ignore("no mention");
  // Rooms share the group key shape (SPEC §3.5); their route says room.
  const sessionKey = groupSessionKey({ agentId: input.agentId, channel: LINE, groupId: chat.id });
  return replyTurn({
    sessionKey,
    text,
    senderId,
    chatType: "group",
    replyTarget: { channel: LINE, to: `line:${chat.kind}:${chat.id}`, accountId: LINE_ACCOUNT },
    ack: { chatId: chat.id },
    context: turnContext(input.event, senderId, chat, mentioned, {}),
  });
}

/**
 * A turn told again once its names are known (names.ts, looked up by the adapter for turns only):
 * OpenClaw's envelope names the sender and the group, the row takes their names.
 */
export function withLineNames(decision: InboundDecision, event: LineEvent, names: LineNames): InboundDecision {
  if (decision.action !== "turn") return decision;
  const { turn } = decision;
  const chat = lineChatOf(event.source) ?? undefined;
  const context = turnContext(event, turn.senderId, chat, turn.envelope?.mentioned === true, names);
  return { action: "turn", turn: { ...turn, ...context, seed: { ...turn.seed, ...context.rowFields } } };
}

/** OpenClaw's envelope for the model and the row fields, named as far as the names are known. */
function turnContext(
  event: LineEvent,
  senderId: string,
  chat: LineChat | undefined,
  mentioned: boolean,
  names: LineNames,
) {
  return {
    envelope: lineEnvelope({ event, senderId, ...(chat ? { chat } : {}), names, mentioned }),
    rowFields: lineRowFields(senderId, chat, names, LINE_ACCOUNT),
  };
}

/** A mention of the bot: a mentionee marked `isSelf`, or a quote of one of the bot's messages. */
export function mentionsBot(event: LineEvent, botMessageIds?: Pick<ReadonlySet<string>, "has">): boolean {
  const message = event.message;
  if (message?.mention?.mentionees?.some((mentionee) => mentionee.isSelf === true)) return true;
  return message?.quotedMessageId !== undefined && (botMessageIds?.has(message.quotedMessageId) ?? false);
}

/** Whether an allowFrom list names the sender (`line:` / `user:` prefixes, exact ids, `*`). */
function listed(list: ReadonlyArray<string | number> | undefined, senderId: string): boolean {
  return (list ?? []).some((entry) => {
    const value = String(entry)
      .trim()
      .replace(/^(line:)?(user:)?/i, "");
    return value === "*" || value === senderId;
  });
}
