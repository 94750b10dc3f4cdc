import type { DeliveryTarget, ReplyHint } from "../../model/delivery";
import type { RouteRowFields } from "../../model/entry";
import type { TenantConfig } from "../../protocol/config";
import type { SessionSeed } from "../../protocol/session";
import type { HistoryLine, InboundEnvelope } from "./inbound-envelope";
import type { MediaRef, MediaSource } from "./inbound-media";

/**
 * What a chat platform plugs into the channels slice (docs/channels.md, "Adding a platform").
 * The path is the same for every platform:
 *
 *   ingress route ── verify ──► ChannelInboxObject.accept (durable, dedupe by update id) ── 200
 *        │                            │ alarm
 *        │                            ▼
 *        │                      adapter.decide (pure: access, session key, reply route)
 *        │                      ├─ pairing: request stored + code sent through the inbox's outbox
 *        │                      └─ turn: session.startRun(runId = <channel>:<update id>, replyTarget)
 *        │                                   │ run ends (same SQLite transaction)
 *        │                                   ▼
 *        └──────────────────────────── session outbox row ── adapter.send (retries, parts)
 *
 * An adapter supplies the pure parts (verify, parse, decide, render) and a sender; the inbox,
 * the run and the outbox are shared.
 */

/** One inbound message that becomes a turn. */
export type ChannelTurn = {
  sessionKey: string;
  /** The user message as the transcript stores it. */
  text: string;
  /** Fields of a session the turn creates (its route is also updated on every turn). */
  seed: SessionSeed;
  /** Where the turn's reply goes (the session's new deliveryContext). */
  replyTarget: DeliveryTarget;
  /** The platform's one-time way to answer this update (LINE's reply token): the reply's delivery only, never the route. */
  replyHint?: ReplyHint;
  senderId: string;
  /** The platform's own acknowledgement before the run (typing, a reaction), best effort. */
  ack: ChannelAck;
  /** Who is speaking where: the model gets OpenClaw's inbound envelope of it instead of `text`. */
  envelope?: InboundEnvelope;
  /** A group's chat, whose recent unmentioned messages the envelope lists (then clears). */
  historyKey?: string;
  /** Row fields the turn sets on its session, new or not (rows follow the user). */
  rowFields?: RouteRowFields;
  /** Files the message carries, fetched into the bucket before the run (src/features/channels/inbound-media.ts). */
  media?: MediaRef[];
  /** The message's own text or caption, without the media descriptions `text` starts with. */
  captionText?: string;
  /** The platform's id of the message (a warning about it is sent as a reply to it). */
  messageId?: number | string;
};

/** `reactToMessageId`: Telegram's message_id (a number), Slack's message ts (text). */
export type ChannelAck = {
  chatId: string;
  typingThreadId?: number;
  reactToMessageId?: number | string;
  /** Telegram's inline-button press, answered (`answerCallbackQuery`) before anything else. */
  callbackQueryId?: string;
  /** false: nothing is typed (a press answered without a turn). */
  typing?: boolean;
};

/**
 * An update the platform answers without a turn (a press of a `/commands` page button): the
 * acknowledgement, then at most one message through the inbox's outbox (an edit of the pressed
 * message), queued with the update's completion so it goes once.
 */
export type PlatformAnswer = {
  ack: ChannelAck;
  delivery?: { kind: string; target: DeliveryTarget; message: string; blocks?: Record<string, unknown>[] };
};

/** A sender asking for access under dmPolicy `pairing`. */
export type PairingAsk = {
  senderId: string;
  chatId: string;
  meta: Record<string, string>;
  /** The platform's one-time way to answer the asking message (ChannelTurn.replyHint), for the code's delivery. */
  replyHint?: ReplyHint;
};

export type InboundDecision =
  | { action: "ignore"; reason: string; history?: { chatKey: string; line: HistoryLine } }
  | { action: "pairing"; ask: PairingAsk }
  | { action: "turn"; turn: ChannelTurn }
  | { action: "answer"; answer: PlatformAnswer };

/** The answer of a refused platform call, as it came: status, its `Retry-After` header, its JSON body. */
export type PlatformRefusal = { status: number; retryAfter?: string | null; body?: unknown };

/**
 * Outcome of ONE platform call of a delivery, starting at part `fromPart`: a sender sends one
 * part per call (LINE: the up to 5 messages one reply or push carries) and answers `moreParts`
 * when parts remain, so the outbox paces every platform alike (`REPLY_PART_SPACING_MS` on its
 * timer, each part recorded as sent before the next: a crash resends at most the part in flight).
 * `refusal`: a refused call's answer as it came (status, `Retry-After`, body); the platform's
 * RateLimitRule reads it (rate-limit.ts) into `retryAfterMs`, how long the platform asked to be
 * left alone (Telegram's `429` `parameters.retry_after`, a `Retry-After` header, WhatsApp's
 * rate-limit codes); the outbox retries no sooner. `final`: the platform said retrying cannot
 * help (WhatsApp's closed 24-hour window), so the delivery ends dead now with the error.
 * `sentMessageIds`: the platform's ids of the messages sent (LINE's `sentMessages[].id`; bot-messages.ts).
 */
export type SendOutcome = {
  partsSent: number;
  error?: string;
  refusal?: PlatformRefusal;
  retryAfterMs?: number;
  final?: boolean;
  sentMessageIds?: string[];
  /** Parts of the reply remain: the outbox sends the next on its timer, `REPLY_PART_SPACING_MS` later. */
  moreParts?: boolean;
};

/** The delivery kind of a pairing code message (sent as the platform's prepared text, not as Markdown). */
export const PAIRING_KIND = "pairing";

/** The delivery kind of a `/commands` page: an edit of the message its target names (`editMessageId`), plain text. */
export const COMMANDS_PAGE_KIND = "commands-page";

/**
 * Delivers text to a platform target, one call per `send` (the outbox calls it and paces the
 * next; it must not resend parts already sent).
 * `credentials` are every secret its requests carry (a token in the URL path, a bearer, a signing
 * secret): the outbox redacts them from every error text before it is stored, logged or evented
 * (a platform, a proxy or a self-hosted API server may echo them), so a sender need not.
 */
export type ChannelSender = {
  readonly credentials: readonly string[];
  send(
    delivery: { target: DeliveryTarget; message: string; kind: string; blocks?: Record<string, unknown>[] },
    fromPart: number,
  ): Promise<SendOutcome>;
};

/** The inbound side of a platform, as the channel inbox drives it (src/features/channels/inbox.ts). */
export type InboundAdapter = {
  /**
   * Reads a stored update and decides what it is (pure rules, plus what the platform client
   * needs, e.g. the bot's identity); null when the channel is not configured (the update is dropped).
   */
  decide(input: { body: string; config: TenantConfig; approved: ReadonlySet<string> }): Promise<InboundDecision | null>;
  /** The platform's acknowledgement before a turn (typing, a reaction); best effort. */
  acknowledge(config: TenantConfig, ack: ChannelAck): Promise<void>;
  /** The message that carries a pairing code (sent through the outbox as kind PAIRING_KIND). */
  pairingMessage(senderId: string, code: string): string;
  /** Where a turn's files are downloaded from (Telegram's getFile); absent: the platform's files are described only. */
  mediaSource?(config: TenantConfig): Promise<MediaSource | null>;
};
