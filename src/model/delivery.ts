/** A channel delivery of a session's outbox ("posted to a channel"). */

export type DeliveryTarget = {
  channel: string;
  to: string;
  accountId?: string;
  threadId?: string | number;
  /** The message this one answers (Telegram's `reply_parameters`: the media download warning). */
  replyToMessageId?: number;
  /** The message this delivery rewrites instead of posting a new one (Telegram's `editMessageText`: a `/commands` page). */
  editMessageId?: number;
};
/**
 * What a platform gave with an inbound update for answering it once, beside the reply's target
 * (LINE's reply token): opaque here, read only by that platform's sender. It rides the turn →
 * run → the run's reply delivery, never the session's route (a later reply must not reuse it).
 * `atMs`: when the platform issued it (its sender decides how long it stays usable).
 */
export type ReplyHint = { value: string; atMs: number };
/** What a delivery is asked to post: the text, and the platform's structure beside it (Delivery.blocks). */
export type DeliveryInput = {
  idempotencyKey: string;
  kind: string;
  target: DeliveryTarget;
  message: string;
  blocks?: Record<string, unknown>[];
  /** The run's ReplyHint (this delivery only). */
  replyHint?: ReplyHint;
};
export type DeliveryStatus = "pending" | "delivered" | "dead" | "blocked";
export type Delivery = {
  id: string;
  idempotencyKey: string;
  kind: string;
  target: DeliveryTarget;
  message: string;
  /**
   * Slack Block Kit blocks posted with `message` as their text fallback (the `/status` card), or
   * Telegram's `reply_markup` as the one element (a `/commands` page's inline keyboard).
   */
  blocks?: Record<string, unknown>[];
  status: DeliveryStatus;
  attempts: number;
  /** Parts already sent of a reply a channel splits (a retry resumes after them). */
  partsSent?: number;
  /** The run's reply hint (ReplyHint), on the delivery of the run's reply only. */
  replyHint?: ReplyHint;
  lastError?: string;
  deliveredTo?: string;
  createdAt: number;
  updatedAt: number;
};
