import { whatsappChannelConfig } from "../../../protocol/channels";
import type { ChatPlatform } from "../platform";
import { whatsappApiOf, whatsappInbound } from "./adapter";
import { whatsappRateLimit } from "./graph-api";
import { DEFAULT_WHATSAPP_WEBHOOK_PATH } from "./ingress";
import { WHATSAPP } from "./routing";
import { whatsappSetup } from "./setup";
import { whatsappWebhook } from "./webhook";

/** The WhatsApp Cloud API (Meta's webhook: a GET subscription check, then HMAC-signed POSTs). */
export const whatsappPlatform = {
  name: WHATSAPP,
  config: whatsappChannelConfig,
  label: "WhatsApp",
  senderLabel: "whatsappPhoneNumber",
  mode: "webhook",
  pairing: true,
  setup: whatsappSetup,
  ingress: {
    defaultPath: DEFAULT_WHATSAPP_WEBHOOK_PATH,
    verificationGet: { defaultPath: DEFAULT_WHATSAPP_WEBHOOK_PATH },
    verification: "raw-body-hmac",
    updateId: "messages[].id",
    webhook: whatsappWebhook,
  },
  inbound: (host) => whatsappInbound({ api: (config) => whatsappApiOf(config, host.resolve, host.outbound) }),
  rateLimit: whatsappRateLimit,
  sender: async (config, resolve, outbound) => (await whatsappApiOf(config, resolve, outbound))?.sender() ?? null,
} as const satisfies ChatPlatform;
