import type { RouteRowFields } from "../../model/entry";

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
