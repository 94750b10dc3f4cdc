import type { DM_POLICIES } from "../../../protocol/channels";
import type { TenantConfig } from "../../../protocol/config";
import type { InboundDecision } from "../adapter";
import { directTurn, ignore, replyTurn } from "../inbound-decision";
import { groupSessionKey } from "../session-route";
import type { GoogleChatEvent } from "./event";

/**
 * Who may talk to the Google Chat app and which session a message lands in, as the real gateway
 * decides it (SPEC channels-2 §4.4, §4.5). Pure: the approved senders come in.
 */

export const GOOGLECHAT = "googlechat";
/** The account of a single-app config (OpenClaw's `accountId` "default"). */
export const GOOGLECHAT_ACCOUNT = "default";

/** The access keys of OpenClaw's `channels.googlechat` this decision reads. */
export type GoogleChatAccess = {
  botUser?: string;
  dmPolicy?: (typeof DM_POLICIES)[number];
  allowFrom?: readonly string[];
  groupPolicy?: "open" | "allowlist" | "disabled";
  groupAllowFrom?: readonly string[];
  groups?: Record<string, { requireMention?: boolean; users?: readonly string[]; enabled?: boolean }>;
  requireMention?: boolean;
};

export type GoogleChatRoutingInput = {
  event: GoogleChatEvent;
  access: GoogleChatAccess;
  config: Pick<TenantConfig, "session">;
  agentId: string;
  /** Senders approved through pairing (`users/<id>`). */
  approved: ReadonlySet<string>;
};

/** OpenClaw's pairing reply for a Google Chat DM (recorded text, googlechat-dm-pairing). */
export function googleChatPairingMessage(senderId: string, code: string): string {
  return [
    "OpenClaw: access not configured.",
    "",
    `Your Google Chat user id: ${senderId}`,
    "Pairing code:",
    "```",
    code,
    "```",
    "",
    "Ask the bot owner to approve with:",
    "```",
    `openclaw pairing approve googlechat ${code}`,
    "```",
  ].join("\n");
}

export function decideGoogleChat(input: GoogleChatRoutingInput): InboundDecision {
  const { event } = input;
  if (event.type !== "MESSAGE") return ignore(`event ${event.type}`);
  const message = event.message;
  const space = message?.space ?? event.space;
  const sender = message?.sender ?? event.user;
  if (!message || !space || !sender) return ignore("no message, space or sender");
  if (sender.type === "BOT") return ignore("a bot's message");
  const text = message.argumentText ?? message.text ?? "";
  if (text.trim() === "") return ignore("no text");
  const direct = space.type === "DM" || space.spaceType === "DIRECT_MESSAGE" || space.singleUserBotDm === true;
  const ctx = {
    input,
    spaceName: space.name,
    senderId: sender.name,
    text: message.text ?? text,
    messageName: message.name,
  };
  if (direct) return decideDirect(ctx, sender.displayName, sender.email);
  return decideSpace(ctx, space.displayName, message.annotations ?? []);
}

type Context = {
  input: GoogleChatRoutingInput;
  spaceName: string;
  senderId: string;
  text: string;
  messageName: string;
};

function listed(list: readonly string[] | undefined, senderId: string): boolean {
  if (!list) return false;
  const id = senderId.toLowerCase();
  return list.some((entry) => entry === "*" || entry.toLowerCase() === id);
}

function decideDirect(ctx: Context, displayName?: string, email?: string): InboundDecision {
  const { input, senderId, spaceName } = ctx;
  return directTurn({
    policy: input.access.dmPolicy,
    sender: { listed: listed(input.access.allowFrom, senderId), approved: input.approved.has(senderId) },
    senderId,
    chatId: spaceName,
    meta: {
      ...(displayName ? { name: displayName } : {}),
      ...(email ? { email } : {}),
      accountId: GOOGLECHAT_ACCOUNT,
    },
    config: input.config,
    agentId: input.agentId,
    channel: GOOGLECHAT,
    accountId: GOOGLECHAT_ACCOUNT,
    // The route is the DM space, not the user (recorded deliveryContext.to).
    to: `${GOOGLECHAT}:${spaceName}`,
    text: ctx.text,
    // The acknowledgement is the typing placeholder, named after this message (sender.ts).
    ack: { chatId: spaceName, reactToMessageId: ctx.messageName },
  });
}

function decideSpace(
  ctx: Context,
  displayName: string | undefined,
  annotations: NonNullable<NonNullable<GoogleChatEvent["message"]>["annotations"]>,
): InboundDecision {
  const { input, senderId, spaceName } = ctx;
  const { access } = input;
  const policy = access.groupPolicy ?? "allowlist";
  if (policy === "disabled") return ignore("spaces disabled");
  const entry = access.groups?.[spaceName] ?? access.groups?.["*"];
  // An unlisted space is dropped even with a mention and an allowed sender (recorded).
  if (policy === "allowlist" && !entry) return ignore("space not allowed");
  if (entry?.enabled === false) return ignore("space disabled");
  // The sender list is the space's `users` or `groupAllowFrom`, never `allowFrom` (recorded).
  const senders = entry?.users && entry.users.length > 0 ? entry.users : access.groupAllowFrom;
  if (!listed(senders, senderId)) return ignore("sender not allowed in space");
  const requireMention = entry?.requireMention ?? access.requireMention ?? true;
  const mentioned = annotations.some(
    (a) => a.type === "USER_MENTION" && access.botUser !== undefined && a.userMention?.user.name === access.botUser,
  );
  if (requireMention && !mentioned) return ignore("no mention");
  // Every thread of a space shares the space's session (no `:thread:` suffix, recorded).
  const sessionKey = groupSessionKey({ agentId: input.agentId, channel: GOOGLECHAT, groupId: spaceName });
  const replyTarget = { channel: GOOGLECHAT, to: `${GOOGLECHAT}:${spaceName}`, accountId: GOOGLECHAT_ACCOUNT };
  return replyTurn({
    sessionKey,
    text: ctx.text,
    senderId,
    chatType: "channel",
    ...(displayName !== undefined ? { displayName } : {}),
    replyTarget,
    ack: { chatId: spaceName, reactToMessageId: ctx.messageName },
  });
}
