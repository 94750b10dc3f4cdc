import { lineChannelConfig } from "../../../protocol/channels";
import type { ChatPlatform } from "../platform";
import { HTTP_429_RULE } from "../rate-limit";
import { lineApiOf, lineInbound, lineSender } from "./adapter";
import { DEFAULT_LINE_WEBHOOK_PATH } from "./ingress";
import { LINE } from "./routing";
import { lineWebhook } from "./webhook";

/** LINE's Messaging API (webhook only: X-Line-Signature on the raw body; reply token, then push). */
export const linePlatform = {
  name: LINE,
  config: lineChannelConfig,
  label: "LINE",
  senderLabel: "lineUserId",
  mode: "webhook",
  pairing: true,
  ingress: {
    defaultPath: DEFAULT_LINE_WEBHOOK_PATH,
    verification: "raw-body-hmac",
    updateId: "events[].message.id (else webhookEventId)",
    webhook: lineWebhook,
  },
  inbound: (host) =>
    lineInbound({
      line: (config) => config.channels?.line,
      api: (config) => lineApiOf(config, host.resolve, host.outbound),
      ...(host.botMessages ? { botMessages: host.botMessages } : {}),
    }),
  rateLimit: HTTP_429_RULE,
  sender: async (config, resolve, outbound) => {
    const api = await lineApiOf(config, resolve, outbound);
    return api ? lineSender(api) : null;
  },
} as const satisfies ChatPlatform;
