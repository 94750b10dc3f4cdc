import type { DeliveryTarget } from "../../model/delivery";
import type { RunRecord } from "../../model/run-types";
import { terminalReply } from "../../runs/run-payloads";

/** The outbox's kind for a hook run's reply (what the delivery row and webhook say). */
export const HOOK_DELIVERY_KIND = "hook";

/** A hook run's outbox row: `<runId>:deliver`, so a repeated reply commit queues nothing new. */
export function hookDeliveryKey(runId: string): string {
  return `${runId}:deliver`;
}

/**
 * The hand-off of a hook run's reply to a chat: a visible reply of a run started with
 * `deliverTo` is queued in the session's outbox (src/delivery/outbox.ts) in the same commit
 * as the reply, so a crash cannot lose or repeat it. The outbox sends it to the channel adapter
 * of `target.channel` (or the tenant's delivery webhook / the log until one exists).
 */
export function queueHookReply(
  outbox: {
    enqueue(input: { idempotencyKey: string; kind: string; target: DeliveryTarget; message: string }): unknown;
  },
  run: RunRecord,
  text: string,
): void {
  const target = run.input.deliverTo;
  if (!target) return;
  const reply = terminalReply(text);
  if (reply.disposition !== "visible") return;
  outbox.enqueue({
    idempotencyKey: hookDeliveryKey(run.runId),
    kind: HOOK_DELIVERY_KIND,
    target,
    message: text.trim(),
  });
}
