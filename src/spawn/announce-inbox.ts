import type { AnnounceDelivery, SessionRef, StartResult } from "../contracts/session-api";
import { deliveryTargetOf } from "../delivery/delivery-target";
import type { DeliveryTarget } from "../model/delivery";
import type { SessionEntry } from "../protocol/session";
import type { EngineStart } from "../runs/run-lifecycle";

/**
 * The requester side of a sub-agent's announce: appended as a message with provenance and run
 * (queued behind a busy run), and delivered to the requester's channel (or the child's fallback
 * route) through the outbox. Idempotent by run id; call inside one transaction.
 */
export function acceptAnnounce(
  ports: {
    runs: { start(request: EngineStart): StartResult };
    outbox: {
      enqueue(input: { idempotencyKey: string; kind: string; target: DeliveryTarget; message: string }): unknown;
    };
  },
  ref: SessionRef,
  entry: SessionEntry,
  announce: AnnounceDelivery,
): void {
  ports.runs.start({
    runId: announce.runId,
    tenantId: ref.tenantId,
    agentId: ref.agentId,
    input: {
      message: announce.text,
      origin: "tool",
      provenance: announce.provenance,
      deliver: announce.deliver,
      sandboxed: announce.sandboxed,
    },
    runner: announce.runner,
    userMessage: { role: "user", content: announce.text, provenance: announce.provenance },
  });
  const target = deliveryTargetOf(entry) ?? announce.fallbackTarget;
  if (announce.deliver && target) {
    ports.outbox.enqueue({
      idempotencyKey: announce.runId,
      kind: "subagent-announce",
      target,
      message: announce.channelText,
    });
  }
}
