import { msTeamsChannelConfig } from "../../../protocol/channels";
import type { ChatPlatform } from "../platform";
import { HTTP_429_RULE } from "../rate-limit";
import { MSTEAMS } from "./activity";
import { msTeamsConnectorOf, msTeamsInbound } from "./adapter";
import { DEFAULT_MSTEAMS_WEBHOOK_PATH } from "./ingress";
import { msTeamsWebhook } from "./webhook";

/** Microsoft Teams (the Bot Framework's messaging endpoint: a signed JWT per activity, replies to its serviceUrl). */
export const msTeamsPlatform = {
  name: MSTEAMS,
  config: msTeamsChannelConfig,
  label: "Microsoft Teams",
  senderLabel: "msteamsUserId",
  mode: "webhook",
  pairing: true,
  ingress: {
    defaultPath: DEFAULT_MSTEAMS_WEBHOOK_PATH,
    verification: "jwt",
    updateId: "conversation.id + id",
    webhook: msTeamsWebhook,
  },
  inbound: (host) =>
    msTeamsInbound({
      msteams: (config) => config.channels?.msteams,
      connector: (config) => msTeamsConnectorOf(config, host.resolve, host.outbound, host.conversations),
      remember: (conversationId, serviceUrl) => host.conversations?.remember(MSTEAMS, conversationId, serviceUrl),
    }),
  rateLimit: HTTP_429_RULE,
  sender: async (config, resolve, outbound, conversations) =>
    (await msTeamsConnectorOf(config, resolve, outbound, conversations))?.sender() ?? null,
} as const satisfies ChatPlatform;
