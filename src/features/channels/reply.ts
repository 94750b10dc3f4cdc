import type { DeliveryInput } from "../../model/delivery";
import type { RunRecord } from "../../model/run-types";
import { isSilentResult } from "../../spawn/announce";

/** The outbox as a chat turn's reply needs it. */
type ReplyOutbox = { enqueue(input: DeliveryInput): unknown };

/** The delivery kind of a chat turn's reply (as the outbox lists it). */
export const CHANNEL_REPLY_KIND = "channel-reply";

/**
 * Queues a chat turn's reply to the chat it came from, inside the run's completion commit:
 * once per run (the idempotency key is the run id's), never for an empty or NO_REPLY answer.
 */
export function queueChannelReply(outbox: ReplyOutbox, run: RunRecord, text: string): void {
  const target = run.input.replyTarget;
  if (!target || text.trim() === "" || isSilentResult(text)) return;
  // The run's reply hint (a platform's one-time reply token) goes to this delivery only; blocks
  // (made for the turn's platform by the command that answered it: Slack's card, Telegram's
  // keyboard) likewise. Both are the delivery's, so a retry posts the same message.
  const hint = run.input.replyHint ? { replyHint: run.input.replyHint } : {};
  const blocks = target.channel === "slack" || target.channel === "telegram" ? run.input.replyBlocks : undefined;
  outbox.enqueue({
    idempotencyKey: `${run.runId}:reply`,
    kind: CHANNEL_REPLY_KIND,
    target,
    message: text,
    ...hint,
    ...(blocks ? { blocks } : {}),
  });
}
