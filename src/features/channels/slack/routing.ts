import type { SlackConfig, SlackEnvelope, SlackMessageEvent } from "../../../protocol/channels";
import type { TenantConfig } from "../../../protocol/config";
import type { InboundDecision } from "../adapter";
import { directRefusal, ignore, replyTurn } from "../inbound-decision";
import { directSessionKey, groupSessionKey } from "../session-route";
import { slackChannelRowFields, slackDirectRowFields, slackEnvelope } from "./context";
import { slackTurnText } from "./media-text";
import { isThreadFollowUp } from "./threads";

/**
 * Who may talk to the Slack app and which session a message lands in, as the real gateway
 * decides it in HTTP mode (SPEC §4.2, §5). Pure: the approved senders and the bot's user id
 * (from `auth.test`) come in.
 */

export const SLACK = "slack";
/** The account of a single-app config (OpenClaw's `accountId` "default"). */
export const SLACK_ACCOUNT = "default";

/** The app's bot user (`auth.test`'s `user_id`) and bot id. */
export type SlackBotIdentity = { userId: string; botId?: string; team?: string; teamId?: string };

/** Message subtypes that are still a person's message (others: edits, joins, bots… are not turns). */
const PERSON_SUBTYPES = new Set(["thread_broadcast", "file_share"]);

export type SlackRoutingInput = {
  envelope: SlackEnvelope;
  slack: SlackConfig;
  config: Pick<TenantConfig, "session">;
  agentId: string;
  bot: SlackBotIdentity;
  /** Senders approved through pairing (Slack user ids). */
  approved: ReadonlySet<string>;
  /** The channel's name (`conversations.info`), when known: it names the row. */
  channelName?: string;
  /** The sender's display name (`users.info`), when known: the envelope names the sender. */
  senderName?: string;
  /** Whether the bot posted in the thread the message replies in (slack/threads.ts). */
  botPostedInThread?: boolean;
};

/**
 * The inbox's dedupe key of an event: the message itself (`<channel>:<ts>`) for message and
 * app_mention events, so the `message` + `app_mention` pair Slack sends for one mention (two
 * event ids) is one update; the event id otherwise.
 */
export function slackUpdateId(envelope: {
  event_id: string;
  event?: { type?: unknown; channel?: unknown; ts?: unknown };
}) {
  const event = envelope.event;
  if (
    (event?.type === "message" || event?.type === "app_mention") &&
    typeof event.channel === "string" &&
    typeof event.ts === "string"
  )
    return `${event.channel}:${event.ts}`;
  return `event:${envelope.event_id}`;
}

export function decideSlack(input: SlackRoutingInput): InboundDecision {
  const event = input.envelope.event;
  if (event.type !== "message" && event.type !== "app_mention") return ignore(`event ${event.type}`);
  if (event.subtype && !PERSON_SUBTYPES.has(event.subtype)) return ignore(`subtype ${event.subtype}`);
  if (event.bot_id || (event.user && event.user === input.bot.userId)) return ignore("a bot's message");
  if (!event.user || !event.channel || !event.ts) return ignore("no sender, channel or ts");
  const text = slackTurnText(event);
  if (text.trim() === "") return ignore("no text");
  if (isDirect(event)) return decideDirect(input, event, text);
  if (event.channel_type === "mpim") return ignore("group DMs are not served");
  return decideChannel(input, event, text);
}

function isDirect(event: SlackMessageEvent): boolean {
  return event.channel_type === "im" || (event.channel_type === undefined && event.channel!.startsWith("D"));
}

function decideDirect(input: SlackRoutingInput, event: SlackMessageEvent, text: string): InboundDecision {
  const senderId = event.user!;
  const sender = { listed: listed(input.slack.allowFrom, senderId), approved: input.approved.has(senderId) };
  const refused = directRefusal(input.slack.dmPolicy, sender, () => ({
    senderId,
    chatId: event.channel!,
    meta: { accountId: SLACK_ACCOUNT },
  }));
  if (refused) return refused;
  const sessionKey = directSessionKey({
    config: input.config,
    agentId: input.agentId,
    channel: SLACK,
    accountId: SLACK_ACCOUNT,
    peerId: senderId,
  });
  // A DM thread stays in the DM's session; the reply goes into the thread (recorded).
  const replyTarget = {
    channel: SLACK,
    to: `user:${senderId}`,
    accountId: SLACK_ACCOUNT,
    ...(event.thread_ts ? { threadId: event.thread_ts } : {}),
  };
  return replyTurn({
    sessionKey,
    text,
    senderId,
    chatType: "direct",
    replyTarget,
    ack: { chatId: event.channel! },
    context: {
      envelope: envelopeOf(input, event, true, false),
      rowFields: input.senderName
        ? slackDirectRowFields(senderId, event.channel!, input.senderName, SLACK_ACCOUNT)
        : {},
    },
  });
}

function decideChannel(input: SlackRoutingInput, event: SlackMessageEvent, text: string): InboundDecision {
  const { slack } = input;
  const channelId = event.channel!;
  const policy = slack.groupPolicy ?? "allowlist";
  if (policy === "disabled") return ignore("channels disabled");
  const channels = slack.channels ?? {};
  const entry = channels[channelId] ?? channels["*"];
  // groupPolicy "open" answers channels not listed (recorded, unlike Telegram's groups).
  if (policy === "allowlist" && !entry) return ignore("channel not allowed");
  if (entry?.enabled === false) return ignore("channel disabled");
  if (entry?.users && entry.users.length > 0 && !listed(entry.users, event.user!))
    return ignore("sender not allowed in channel");
  const requireMention = entry?.requireMention ?? slack.requireMention ?? true;
  // Read from Slack's own markup: a `<@U…>` the user typed as text arrives escaped there.
  const mentioned = event.type === "app_mention" || (event.text ?? "").includes(`<@${input.bot.userId}>`);
  const threadTs = event.thread_ts && event.thread_ts !== event.ts ? event.thread_ts : undefined;
  // A reply in one of the bot's threads addresses it without a new mention (OpenClaw's implicit mention).
  const followUp =
    !mentioned &&
    isThreadFollowUp({
      ...(threadTs ? { threadTs } : {}),
      ...(typeof event.parent_user_id === "string" ? { parentUserId: event.parent_user_id } : {}),
      botUserId: input.bot.userId,
      botPostedInThread: input.botPostedInThread === true,
    });
  if (requireMention && !mentioned && !followUp) return ignore("no mention");
  const sessionKey = groupSessionKey({
    agentId: input.agentId,
    channel: SLACK,
    peerKind: "channel",
    groupId: channelId,
    ...(threadTs ? { thread: { kind: "thread" as const, id: threadTs } } : {}),
  });
  const replyTarget = {
    channel: SLACK,
    to: `channel:${channelId}`,
    accountId: SLACK_ACCOUNT,
    ...(threadTs ? { threadId: threadTs } : {}),
  };
  return replyTurn({
    sessionKey,
    text,
    senderId: event.user!,
    chatType: "channel",
    replyTarget,
    // The 👀 reaction answers a mention, required or not, explicit or a thread follow-up (OpenClaw's "group-mentions" scope).
    ack: { chatId: channelId, ...(mentioned || followUp ? { reactToMessageId: event.ts! } : {}) },
    context: {
      envelope: envelopeOf(input, event, false, mentioned),
      rowFields: input.channelName ? slackChannelRowFields(channelId, input.channelName, input.bot, SLACK_ACCOUNT) : {},
    },
  });
}

function envelopeOf(input: SlackRoutingInput, event: SlackMessageEvent, direct: boolean, mentioned: boolean) {
  return slackEnvelope({
    // The mentioned users are read from Slack's own markup, as the bot's mention is.
    event: { user: event.user!, channel: event.channel!, ts: event.ts!, text: event.text ?? "" },
    direct,
    workspace: input.bot,
    mentioned,
    ...(input.senderName ? { senderName: input.senderName } : {}),
    ...(input.channelName ? { channelName: input.channelName } : {}),
  });
}

/** Whether an allowFrom / users list names the sender (`slack:` / `user:` prefixes, any case, `*`). */
function listed(list: ReadonlyArray<string | number> | undefined, senderId: string): boolean {
  const sender = senderId.toUpperCase();
  return (list ?? []).some((entry) => {
    const value = String(entry)
      .trim()
      .replace(/^(slack:)?(user:)?/i, "")
      .toUpperCase();
    return value === "*" || value === sender;
  });
}
