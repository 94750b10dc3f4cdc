import type { RouteRowFields } from "../../../model/entry";
import { type InboundEnvelope, utcSecond } from "../inbound-envelope";

/**
 * The row a Slack channel turn leaves, as OpenClaw's (recorded 2026-11-29, rec46/chat46-slack):
 * displayName and subject `<team> #<channel>`, space the team id, origin labelled `#<channel>`
 * with the channel's own id. Pure.
 */
export function slackChannelRowFields(
  channelId: string,
  channelName: string,
  workspace: { team?: string; teamId?: string },
  accountId: string,
): RouteRowFields {
  const label = `#${channelName}`;
  const subject = workspace.team ? `${workspace.team} ${label}` : label;
  return {
    displayName: subject,
    subject,
    ...(workspace.teamId ? { space: workspace.teamId } : {}),
    origin: {
      label,
      provider: "slack",
      surface: "slack",
      chatType: "channel",
      from: `slack:channel:${channelId}`,
      to: `channel:${channelId}`,
      nativeChannelId: channelId,
      accountId,
    },
  };
}

/**
 * The row a Slack DM leaves, as OpenClaw's (recorded 2026-11-26, dm-scope): displayName and
 * origin label the sender's name (`users.info`), from `slack:<user>`, to the `user:` route, the
 * DM channel as `nativeChannelId`. Pure.
 */
export function slackDirectRowFields(
  userId: string,
  dmChannelId: string,
  senderName: string,
  accountId: string,
): RouteRowFields {
  return {
    displayName: senderName,
    origin: {
      label: senderName,
      provider: "slack",
      surface: "slack",
      chatType: "direct",
      from: `slack:${userId}`,
      to: `user:${userId}`,
      nativeChannelId: dmChannelId,
      accountId,
    },
  };
}

/** What a Slack message tells the model about its sender and place (OpenClaw's recorded envelope). */
export function slackEnvelope(input: {
  event: { user: string; channel: string; ts: string; text: string };
  direct: boolean;
  senderName?: string;
  channelName?: string;
  workspace: { team?: string; teamId?: string };
  mentioned: boolean;
}): InboundEnvelope {
  const { event, direct, workspace } = input;
  const name = input.senderName ?? event.user;
  const timestampMs = Math.floor(Number(event.ts) * 1000);
  const label = `#${input.channelName ?? event.channel}`;
  const mentionedUserIds = [...event.text.matchAll(/<@([A-Z0-9]+)(?:\|[^>]*)?>/gi)].map((m) => m[1]!);
  const where = direct ? "Slack DM" : `Slack message in ${label}`;
  return {
    chatId: direct ? `user:${event.user}` : `channel:${event.channel}`,
    messageId: event.ts,
    timestampMs,
    sender: { id: event.user, name },
    ...(direct
      ? {}
      : {
          group: { label, subject: workspace.team ? `${workspace.team} ${label}` : label },
          mentioned: input.mentioned,
          mentionedUserIds,
        }),
    ...(workspace.teamId ? { space: workspace.teamId } : {}),
    systemLine: `System: [${utcSecond(timestampMs, false)}] ${where} from ${name}`,
  };
}
