import { defaultAgentId } from "../../policy/agent-config";
import type { TenantConfig } from "../../protocol/config";
import type { ChannelSender, InboundAdapter } from "../adapter";
import { PAIRING_KIND } from "../adapter";
import type { LineConfig } from "./config";
import { lineEventSchema } from "./events";
import { linePairingMessage, lineReplyParts } from "./format";
import type { LineMessagingApi } from "./messaging-api";
import { decideLine } from "./routing";
import type { LineReplyToken } from "./send-plan";

/**
 * LINE's inbound side and sender, as the channel inbox and the outbox drive them. The host gives
 * the tenant's `channels.line` block and its Messaging API (the descriptor wires both).
 */
export type LineAdapterPorts = {
  line(config: TenantConfig): LineConfig | undefined;
  api(config: TenantConfig): Promise<LineMessagingApi | null>;
};

/** Stored updates (`{ destination, event }`, ingress.ts) decided by routing.ts. */
export function lineInbound(ports: LineAdapterPorts): InboundAdapter {
  return {
    async decide({ body, config, approved }) {
      const line = ports.line(config);
      if (!line || !(await ports.api(config))) return null;
      const parsed = lineEventSchema.safeParse((JSON.parse(body) as { event?: unknown }).event);
      if (!parsed.success) return { action: "ignore", reason: "not a LINE event" };
      return decideLine({ event: parsed.data, line, config, agentId: defaultAgentId(config), approved });
    },
    async acknowledge(config, ack) {
      // The loading animation: 1:1 chats only (startLoading skips group and room ids).
      await (await ports.api(config))?.startLoading(ack.chatId);
    },
    pairingMessage: linePairingMessage,
  };
}

/**
 * A sender for the outbox: pairing codes as recorded (one message, fences kept as text), replies
 * flattened and chunked; the reply token of the answered event, when the host has one, first.
 */
export function lineSender(
  api: LineMessagingApi,
  replyTokenOf: (delivery: { target: { to: string } }) => LineReplyToken | undefined = () => undefined,
): ChannelSender {
  return {
    credentials: api.credentials,
    send: (delivery, fromPart) => {
      const parts = delivery.kind === PAIRING_KIND ? [delivery.message] : lineReplyParts(delivery.message);
      const replyToken = replyTokenOf(delivery);
      // The outbox hands over its whole Delivery row: its key names the pushes' retry keys.
      const id = (delivery as { idempotencyKey?: string }).idempotencyKey;
      return api.send(
        { ...(id ? { id } : {}), target: delivery.target, parts, ...(replyToken ? { replyToken } : {}) },
        fromPart,
      );
    },
  };
}
