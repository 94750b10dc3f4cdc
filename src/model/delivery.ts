/** A channel delivery of a session's outbox ("posted to a channel"). */

export type DeliveryTarget = {
  channel: string;
  to: string;
  accountId?: string;
  threadId?: string | number;
  /** The message this one answers (Telegram's `reply_parameters`: the media download warning). */
  replyToMessageId?: number;
};
export type DeliveryStatus = "pending" | "delivered" | "dead" | "blocked";
export type Delivery = {
  id: string;
  idempotencyKey: string;
  kind: string;
  target: DeliveryTarget;
  message: string;
  status: DeliveryStatus;
  attempts: number;
  /** Parts already sent of a reply a channel splits (a retry resumes after them). */
  partsSent?: number;
  lastError?: string;
  deliveredTo?: string;
  createdAt: number;
  updatedAt: number;
};
