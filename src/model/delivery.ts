/** A channel delivery of a session's outbox ("posted to a channel"). */

export type DeliveryTarget = { channel: string; to: string; accountId?: string; threadId?: string | number };
/** What a delivery is asked to post: the text, and for Slack optional blocks beside it. */
export type DeliveryInput = {
  idempotencyKey: string;
  kind: string;
  target: DeliveryTarget;
  message: string;
  blocks?: Record<string, unknown>[];
};
export type DeliveryStatus = "pending" | "delivered" | "dead" | "blocked";
export type Delivery = {
  id: string;
  idempotencyKey: string;
  kind: string;
  target: DeliveryTarget;
  message: string;
  /** Slack Block Kit blocks posted with `message` as their text fallback (the `/status` card). */
  blocks?: Record<string, unknown>[];
  status: DeliveryStatus;
  attempts: number;
  /** Parts already sent of a reply a channel splits (a retry resumes after them). */
  partsSent?: number;
  lastError?: string;
  deliveredTo?: string;
  createdAt: number;
  updatedAt: number;
};
