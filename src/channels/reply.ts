import type { RunRecord } from "../model/run-types";
import { isSilentResult } from "../spawn/announce";

/** The outbox as a chat turn's reply needs it. */
type ReplyOutbox = {
  enqueue(input: {
    idempotencyKey: string;
    kind: string;
    target: NonNullable<RunRecord["input"]["replyTarget"]>;
    message: string;
    replyHint?: NonNullable<RunRecord["input"]["replyHint"]>;
  }): unknown;
};

/** The delivery kind of a chat turn's reply (as the outbox lists it). */
export const CHANNEL_REPLY_KIND = "channel-reply";

/**
 * Queues a chat turn's reply to the chat it came from, inside the run's completion commit:
 * once per run (the idempotency key is the run id's), never for an empty or NO_REPLY answer.
 */
export function queueChannelReply(outbox: ReplyOutbox, run: RunRecord, text: string): void {
  const target = run.input.replyTarget;
  if (!target || text.trim() === "" || isSilentResult(text)) return;
  // The run's reply hint (a platform's one-time reply token) goes to this delivery only.
  const hint = run.input.replyHint ? { replyHint: run.input.replyHint } : {};
  outbox.enqueue({ idempotencyKey: `${run.runId}:reply`, kind: CHANNEL_REPLY_KIND, target, message: text, ...hint });
}
