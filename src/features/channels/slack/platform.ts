import { slackChannelConfig } from "../../../protocol/channels";
import { slackApiOf } from "../channel-registry";
import type { ChatPlatform } from "../platform";
import { HTTP_429_RULE } from "../rate-limit";
import { slackInbound } from "./adapter";
import { DEFAULT_SLACK_WEBHOOK_PATH } from "./ingress";
import { SLACK } from "./routing";
import { slackSetup } from "./setup";
import type { CachedSlackIdentity } from "./web-api";
import { slackWebhook } from "./webhook";

/** Slack (Events API over HTTP, v0 signature on the raw body). */
export const slackPlatform = {
  name: SLACK,
  config: slackChannelConfig,
  label: "Slack",
  senderLabel: "slackUserId",
  mode: "http",
  pairing: true,
  setup: slackSetup,
  ingress: {
    defaultPath: DEFAULT_SLACK_WEBHOOK_PATH,
    verification: "raw-body-hmac",
    updateId: "event_id",
    webhook: slackWebhook,
  },
  inbound: (host) =>
    slackInbound({
      api: (config) => slackApiOf(config, host.resolve, host.outbound),
      identity: host.identity<CachedSlackIdentity>(SLACK),
      ...(host.botThreads ? { threads: host.botThreads } : {}),
    }),
  rateLimit: HTTP_429_RULE,
  sender: async (config, resolve, outbound) => (await slackApiOf(config, resolve, outbound))?.sender() ?? null,
} as const satisfies ChatPlatform;
