import type { LineConfig } from "../../../protocol/channels";
import type { TenantConfig } from "../../../protocol/config";
import type { InboundDecision } from "../adapter";
import { directTurn, ignore, replyTurn } from "../inbound-decision";
import { groupSessionKey } from "../session-route";
import type { LineEvent } from "./events";
import { lineMediaRefs, lineMediaText } from "./media-download";

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
  // A file LINE holds is a turn too, described (fetched by the inbox: media-download.ts).
  const text = message?.type === "text" ? (message.text ?? "") : lineMediaText(lineMediaRefs(message));
  if (!message || !text.trim()) return ignore("no text");
  const source = event.source;
  const senderId = source?.userId;
  if (!senderId) return ignore("no sender");
  if (source.type === "user") return decideDirect(input, senderId, text);
  const chat =
    source.type === "group" && source.groupId
      ? { kind: "group" as const, id: source.groupId }
      : source.type === "room" && source.roomId
        ? { kind: "room" as const, id: source.roomId }
        : null;
  if (!chat) return ignore(`source ${source.type}`);
  return decideGroup(input, senderId, chat, text);
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
  });
}

function decideGroup(
  input: LineRoutingInput,
  senderId: string,
  chat: { kind: "group" | "room"; id: string },
  text: string,
): InboundDecision {
  const { line, event } = input;
  const policy = line.groupPolicy ?? "allowlist";
  if (policy === "disabled") return ignore("groups disabled");
  // Sender-based (recorded): a sender in groupAllowFrom is admitted in any group, listed or not.
  if (policy === "allowlist" && !listed(line.groupAllowFrom, senderId)) return ignore("sender not in groupAllowFrom");
  const groups = line.groups ?? {};
  const entry = groups[chat.id] ?? groups["*"];
  if (entry?.enabled === false) return ignore("group disabled");
  const requireMention = entry?.requireMention ?? true;
  if (requireMention && !mentionsBot(event, input.botMessageIds)) return ignore("no mention");
  // Rooms share the group key shape (SPEC §3.5); their route says room.
  const sessionKey = groupSessionKey({ agentId: input.agentId, channel: LINE, groupId: chat.id });
  return replyTurn({
    sessionKey,
    text,
    senderId,
    chatType: "group",
    replyTarget: { channel: LINE, to: `line:${chat.kind}:${chat.id}`, accountId: LINE_ACCOUNT },
    ack: { chatId: chat.id },
  });
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
