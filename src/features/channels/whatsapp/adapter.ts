import { defaultAgentId } from "../../../policy/agent-config";
import type { OutboundPolicy } from "../../../policy/outbound-url";
import type { TenantConfig } from "../../../protocol/config";
import type { InboundAdapter } from "../adapter";
import { boundChannelCredential, type SecretResolver } from "../channel-registry";
import type { WhatsappInbound } from "./events";
import { whatsappPairingMessage } from "./format";
import { WHATSAPP_API_ROOT, WhatsappCloudApi } from "./graph-api";
import { whatsappMediaSource } from "./media-download";
import { decideWhatsapp } from "./routing";

/** The tenant's business number on the Cloud API, when the channel is enabled and has its id and token. */
export async function whatsappApiOf(
  config: TenantConfig,
  resolve: SecretResolver,
  outbound: OutboundPolicy,
): Promise<WhatsappCloudApi | null> {
  const whatsapp = config.channels?.whatsapp;
  if (!whatsapp || whatsapp.enabled === false || !whatsapp.phoneNumberId) return null;
  const apiRoot = whatsapp.apiRoot ?? WHATSAPP_API_ROOT;
  const token = await boundChannelCredential(whatsapp.accessToken, resolve, apiRoot, outbound);
  if (!token) return null;
  return new WhatsappCloudApi(token, whatsapp.phoneNumberId, apiRoot, outbound, whatsapp.textChunkLimit);
}

/** WhatsApp's inbound side: one stored message decided by routing.ts; the read receipt as the acknowledgement. */
export function whatsappInbound(ports: {
  api(config: TenantConfig): Promise<WhatsappCloudApi | null>;
}): InboundAdapter {
  return {
    async decide({ body, config, approved }) {
      const whatsapp = config.channels?.whatsapp;
      if (!whatsapp || !(await ports.api(config))) return null;
      const inbound = JSON.parse(body) as WhatsappInbound;
      return decideWhatsapp({ inbound, whatsapp, config, agentId: defaultAgentId(config), approved });
    },
    async acknowledge(config, ack) {
      // The two blue ticks on the message the agent now answers (OpenClaw's sendReadReceipts, default on).
      if (config.channels?.whatsapp?.sendReadReceipts === false || typeof ack.reactToMessageId !== "string") return;
      await (await ports.api(config))?.markRead(ack.reactToMessageId);
    },
    async mediaSource(config) {
      const api = await ports.api(config);
      return api ? whatsappMediaSource(api) : null;
    },
    pairingMessage: whatsappPairingMessage,
  };
}
