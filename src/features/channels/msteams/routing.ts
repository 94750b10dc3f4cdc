import type { MsTeamsConfig } from "../../../protocol/channels";
import type { TenantConfig } from "../../../protocol/config";
import type { InboundDecision } from "../adapter";
import { directTurn, ignore, replyTurn } from "../inbound-decision";
import { groupSessionKey } from "../session-route";
import { conversationKind, MSTEAMS, mentionsBot, messageText, senderIdOf, splitConversationId } from "./activity";
import type { MsTeamsActivity } from "./bot-framework-schemas";

/**
 * Who may talk to the Teams bot and which session a message lands in, as OpenClaw's Teams
 * plugin decides it (read from its sources and docs; no recording exists): personal chats under
 * `dmPolicy` (default pairing) keyed like every DM; group chats and channels under
 * `groupPolicy`, answered only when the bot is `<at>`-mentioned unless `requireMention` is off
 * for the team or channel; a channel's session is the channel (reply chains share it), the
 * reply goes into the thread of the message that asked. Pure.
 */

export const DEFAULT_ACCOUNT = "default";

export type MsTeamsRoutingInput = {
  activity: MsTeamsActivity;
  msteams: MsTeamsConfig;
  config: Pick<TenantConfig, "session">;
  agentId: string;
  /** Senders approved through pairing. */
  approved: ReadonlySet<string>;
};

/** The delivery target of a conversation: `msteams:conversation:<id>`, `threadId` the reply chain's root. */
export function conversationTarget(conversationId: string): string {
  return `${MSTEAMS}:conversation:${conversationId}`;
}

export function decideMsTeams(input: MsTeamsRoutingInput): InboundDecision {
  const { activity, msteams } = input;
  if (activity.type !== "message") return ignore(`activity type ${activity.type}`);
  if (!activity.id || !activity.conversation) return ignore("no activity id or conversation");
  const senderId = senderIdOf(activity);
  if (!senderId) return ignore("no sender");
  if (activity.from?.id === activity.recipient?.id || activity.from?.id === `28:${msteams.appId}`)
    return ignore("the bot's own message");
  const tenantId = activity.conversation.tenantId ?? activity.channelData?.tenant?.id;
  if (msteams.tenantId && tenantId && tenantId !== msteams.tenantId) return ignore("another Azure tenant");
  const text = messageText(activity, msteams.appId);
  if (text === "") return ignore("no text");
  const kind = conversationKind(activity);
  if (kind === "direct") return decideDirect(input, senderId, text);
  return decideShared(input, kind, senderId, text);
}

function decideDirect(input: MsTeamsRoutingInput, senderId: string, text: string): InboundDecision {
  const { activity, msteams } = input;
  const conversationId = splitConversationId(activity.conversation!.id).conversationId;
  return directTurn({
    policy: msteams.dmPolicy,
    sender: { listed: listed(msteams.allowFrom, activity), approved: input.approved.has(senderId) },
    senderId,
    chatId: conversationId,
    meta: { ...(activity.from?.name ? { name: activity.from.name } : {}), accountId: DEFAULT_ACCOUNT },
    config: input.config,
    agentId: input.agentId,
    channel: MSTEAMS,
    accountId: DEFAULT_ACCOUNT,
    to: conversationTarget(conversationId),
    text,
    displayName: activity.from?.name ?? senderId,
  });
}

function decideShared(
  input: MsTeamsRoutingInput,
  kind: "group" | "channel",
  senderId: string,
  text: string,
): InboundDecision {
  const { activity, msteams } = input;
  const { conversationId, threadRootId } = splitConversationId(activity.conversation!.id);
  const policy = msteams.groupPolicy ?? "allowlist";
  if (policy === "disabled") return ignore("groups disabled");
  const teamId = activity.channelData?.team?.id;
  const team = teamId ? msteams.teams?.[teamId] : undefined;
  const channel = team?.channels?.[conversationId];
  // Under `allowlist` (the default) something must admit the chat: its team/channel in `teams`
  // (channels) or the sender in `groupAllowFrom`; with both, both (OpenClaw's Teams docs).
  const senders = msteams.groupAllowFrom;
  const senderListed = senders !== undefined && senders.length > 0 && listed(senders, activity);
  if (senders && senders.length > 0 && !senderListed) return ignore("sender not allowed in group");
  if (policy === "allowlist") {
    const teamsListed = kind === "channel" && msteams.teams !== undefined;
    if (teamsListed && (!team || (team.channels && !channel))) return ignore("team or channel not allowed");
    if (!teamsListed && !senderListed) return ignore("group not allowed");
  }
  const requireMention = channel?.requireMention ?? team?.requireMention ?? msteams.requireMention ?? true;
  if (requireMention && !mentionsBot(activity, msteams.appId)) return ignore("no mention");
  const sessionKey = groupSessionKey({
    agentId: input.agentId,
    channel: MSTEAMS,
    peerKind: kind,
    groupId: conversationId,
  });
  // In a channel the answer goes into the thread: the asking message's chain, or a new one under it.
  const threadId = kind === "channel" ? (threadRootId ?? activity.id!) : undefined;
  return replyTurn({
    sessionKey,
    text,
    senderId,
    chatType: kind,
    displayName: kind === "channel" ? `Channel ${conversationId}` : `Group ${conversationId}`,
    replyTarget: {
      channel: MSTEAMS,
      to: conversationTarget(conversationId),
      accountId: DEFAULT_ACCOUNT,
      ...(threadId ? { threadId } : {}),
    },
    ack: { chatId: conversationId },
  });
}

/** Whether an allowFrom list names the sender (AAD object id or Bot Framework id, `msteams:` prefix, `*`). */
function listed(list: readonly string[] | undefined, activity: MsTeamsActivity): boolean {
  const ids = [activity.from?.aadObjectId, activity.from?.id]
    .filter((id): id is string => !!id)
    .map((id) => id.toLowerCase());
  return (list ?? []).some((entry) => {
    const value = entry
      .trim()
      .replace(/^msteams:/i, "")
      .toLowerCase();
    return value === "*" || ids.includes(value);
  });
}
