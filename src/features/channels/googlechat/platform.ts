import { googlechatChannelConfig } from "../../../protocol/channels";
import type { ChatPlatform } from "../platform";
import { HTTP_429_RULE } from "../rate-limit";
import { googleChatAppOf, googleChatInbound } from "./adapter";
import { DEFAULT_GOOGLECHAT_WEBHOOK_PATH } from "./ingress";
import { GOOGLECHAT } from "./routing";
import { googleChatWebhook } from "./webhook";

/** A Google Chat app over its HTTP endpoint (a Google-signed Bearer JWT on every POST). */
export const googleChatPlatform = {
  name: GOOGLECHAT,
  config: googlechatChannelConfig,
  label: "Google Chat",
  senderLabel: "googleChatUserId",
  mode: "webhook",
  pairing: true,
  ingress: {
    defaultPath: DEFAULT_GOOGLECHAT_WEBHOOK_PATH,
    verification: "jwt",
    updateId: "message.name",
    webhook: googleChatWebhook,
  },
  inbound: (host) => googleChatInbound({ app: (config) => googleChatAppOf(config, host.resolve, host.outbound) }),
  rateLimit: HTTP_429_RULE,
  sender: async (config, resolve, outbound) => (await googleChatAppOf(config, resolve, outbound))?.sender() ?? null,
} as const satisfies ChatPlatform;
