import type { Delivery } from "../../../model/delivery";
import { defaultAgentId } from "../../../policy/agent-config";
import type { OutboundPolicy } from "../../../policy/outbound-url";
import type { LineConfig } from "../../../protocol/channels";
import type { TenantConfig } from "../../../protocol/config";
import type { ChannelSender, InboundAdapter, InboundDecision } from "../adapter";
import { PAIRING_KIND } from "../adapter";
import type { BotMessagesPort } from "../bot-messages";
import { boundChannelCredential, type SecretResolver } from "../channel-registry";
import { type LineEvent, lineEventSchema } from "./events";
import { linePairingMessage, lineReplyParts } from "./format";
import { lineMediaSource, withLineMedia } from "./media-download";
import { LINE_API_ROOT, LineMessagingApi } from "./messaging-api";
import { lineNames } from "./names";
import { decideLine, LINE, lineChatOf, withLineNames } from "./routing";

/**
 * LINE's inbound side and sender, as the channel inbox and the outbox drive them. The host gives
 * the tenant's `channels.line` block and its Messaging API (the descriptor wires both).
 */
export type LineAdapterPorts = {
  line(config: TenantConfig): LineConfig | undefined;
  api(config: TenantConfig): Promise<LineMessagingApi | null>;
  /** The bot's recent messages (a quote of one is a mention); without it only `isSelf` mentions count. */
  botMessages?: BotMessagesPort;
};

/** The tenant's LINE channel, when it is enabled and has its channel access token. */
export async function lineApiOf(
  config: TenantConfig,
  resolve: SecretResolver,
  outbound: OutboundPolicy,
): Promise<LineMessagingApi | null> {
  const line = config.channels?.line;
  if (!line || line.enabled === false) return null;
  const apiRoot = line.apiRoot ?? LINE_API_ROOT;
  const token = await boundChannelCredential(line.channelAccessToken, resolve, apiRoot, outbound);
  if (!token) return null;
  return new LineMessagingApi(token, apiRoot, outbound);
}

/** Stored updates (`{ destination, event }`, ingress.ts) decided by routing.ts. */
export function lineInbound(ports: LineAdapterPorts): InboundAdapter {
  return {
    async decide({ body, config, approved }) {
      const line = ports.line(config);
      const api = line ? await ports.api(config) : null;
      if (!line || !api) return null;
      const parsed = lineEventSchema.safeParse((JSON.parse(body) as { event?: unknown }).event);
      if (!parsed.success) return { action: "ignore", reason: "not a LINE event" };
      const botMessages = ports.botMessages;
      const now = Date.now();
      const decided = decideLine({
        event: parsed.data,
        line,
        config,
        agentId: defaultAgentId(config),
        approved,
        ...(botMessages ? { botMessageIds: { has: (id: string) => botMessages.has(LINE, id, now) } } : {}),
      });
      // A turn is named (the profile, the group's summary) before it runs; an ignored message costs no call.
      const chat = lineChatOf(parsed.data.source) ?? undefined;
      const decision =
        decided.action === "turn"
          ? withLineNames(decided, parsed.data, await lineNames(api, decided.turn.senderId, chat))
          : decided;
      return withReplyToken(withLineMedia(decision, parsed.data.message), parsed.data);
    },
    async mediaSource(config) {
      const api = await ports.api(config);
      return api ? lineMediaSource(api) : null;
    },
    async acknowledge(config, ack) {
      // The loading animation: 1:1 chats only (startLoading skips group and room ids).
      await (await ports.api(config))?.startLoading(ack.chatId);
    },
    pairingMessage: linePairingMessage,
  };
}

/**
 * The event's reply token, as the run's (or the pairing code's) reply hint: it answers this one
 * event, so it rides the turn to its reply delivery and never becomes the session's route. Its
 * age counts from LINE's own timestamp of the event (no timestamp: not tried, the reply is pushed).
 */
function withReplyToken(decision: InboundDecision, event: LineEvent): InboundDecision {
  if (!event.replyToken || event.timestamp === undefined) return decision;
  const replyHint = { value: event.replyToken, atMs: event.timestamp };
  if (decision.action === "turn") return { action: "turn", turn: { ...decision.turn, replyHint } };
  if (decision.action === "pairing") return { action: "pairing", ask: { ...decision.ask, replyHint } };
  return decision;
}

/**
 * A sender for the outbox: pairing codes as recorded (one message, fences kept as text), replies
 * flattened and chunked; the delivery's reply hint (the answered event's reply token) first while
 * fresh, pushes for the rest and when it fails (messaging-api.ts).
 */
export function lineSender(api: LineMessagingApi): ChannelSender {
  return {
    credentials: api.credentials,
    send: (delivery, fromPart) => {
      const parts = delivery.kind === PAIRING_KIND ? [delivery.message] : lineReplyParts(delivery.message);
      // The outbox hands over its whole Delivery row: its key names the pushes' retry keys, its hint the reply token.
      const { idempotencyKey: id, replyHint } = delivery as Partial<Pick<Delivery, "idempotencyKey" | "replyHint">>;
      const replyToken = replyHint ? { token: replyHint.value, eventAtMs: replyHint.atMs } : undefined;
      return api.send(
        { ...(id ? { id } : {}), target: delivery.target, parts, ...(replyToken ? { replyToken } : {}) },
        fromPart,
      );
    },
  };
}
