import type { DeliveryTarget } from "../../model/delivery";
import type { RouteRowFields } from "../../model/entry";
import type { DM_POLICIES } from "../../protocol/channels";
import type { TenantConfig } from "../../protocol/config";
import type { ChannelAck, InboundDecision, PairingAsk } from "./adapter";
import type { HistoryLine, InboundEnvelope } from "./inbound-envelope";
import { directSessionKey } from "./session-route";

/** The steps every channel's routing decision shares (telegram/routing.ts, slack/routing.ts). */

/** `history`: a group message kept for the group's next turn (OpenClaw's `Conversation context`). */
export function ignore(reason: string, history?: { chatKey: string; line: HistoryLine }): InboundDecision {
  return history ? { action: "ignore", reason, history } : { action: "ignore", reason };
}

/**
 * A direct message under `dmPolicy` (default `pairing`): null when the sender may talk (`open`,
 * named in allowFrom, or approved through pairing); else ignored, or `ask`ed to pair.
 */
export function directRefusal(
  policy: (typeof DM_POLICIES)[number] | undefined,
  sender: { listed: boolean; approved: boolean },
  ask: () => PairingAsk,
): InboundDecision | null {
  const dmPolicy = policy ?? "pairing";
  if (dmPolicy === "disabled") return ignore("direct messages disabled");
  if (dmPolicy === "open" || sender.listed || sender.approved) return null;
  if (dmPolicy !== "pairing") return ignore("sender not in allowFrom");
  return { action: "pairing", ask: ask() };
}

/** A turn answered where it came from: the session's route (its seed) and the reply are `replyTarget`. */
export function replyTurn(input: {
  sessionKey: string;
  text: string;
  senderId: string;
  chatType: "direct" | "group" | "channel";
  displayName?: string;
  replyTarget: DeliveryTarget;
  ack: ChannelAck;
  /** OpenClaw's envelope for the model and the row fields (`displayName` is then theirs). */
  context?: { envelope?: InboundEnvelope; rowFields: RouteRowFields; historyKey?: string };
}): InboundDecision {
  const { sessionKey, text, senderId, chatType, displayName, replyTarget, ack, context } = input;
  const seed = {
    channel: replyTarget.channel,
    chatType,
    ...(displayName !== undefined ? { displayName } : {}),
    ...context?.rowFields,
    deliveryContext: replyTarget,
  };
  const turn = { sessionKey, text, senderId, seed, replyTarget, ack, ...context };
  return { action: "turn", turn };
}

/**
 * A direct message end to end: `dmPolicy` (pairing asks carry `meta`), the session per
 * `session.dmScope`, and the reply to `to` (added for LINE; Telegram and Slack may use it too).
 */
export function directTurn(input: {
  policy: (typeof DM_POLICIES)[number] | undefined;
  sender: { listed: boolean; approved: boolean };
  senderId: string;
  chatId: string;
  meta: Record<string, string>;
  config: Pick<TenantConfig, "session">;
  agentId: string;
  channel: string;
  accountId: string;
  to: string;
  text: string;
  /** The row's name for the sender, when the platform gives one. */
  displayName?: string;
  /** The acknowledgement before the turn (default: typing in the chat). */
  ack?: ChannelAck;
  /** OpenClaw's envelope for the model and the row fields, as replyTurn takes them. */
  context?: { envelope?: InboundEnvelope; rowFields: RouteRowFields };
}): InboundDecision {
  const { senderId, channel, accountId } = input;
  const refused = directRefusal(input.policy, input.sender, () => ({
    senderId,
    chatId: input.chatId,
    meta: input.meta,
  }));
  if (refused) return refused;
  const sessionKey = directSessionKey({
    config: input.config,
    agentId: input.agentId,
    channel,
    accountId,
    peerId: senderId,
  });
  return replyTurn({
    sessionKey,
    text: input.text,
    senderId,
    chatType: "direct",
    ...(input.displayName !== undefined ? { displayName: input.displayName } : {}),
    replyTarget: { channel, to: input.to, accountId },
    ack: input.ack ?? { chatId: input.chatId },
    ...(input.context ? { context: input.context } : {}),
  });
}
