import type { Outbox } from "../delivery/outbox";
import type { chatActivity } from "../features/channels/chat-typing";
import type { channelSenderOf } from "../features/channels/platforms";
import type { RunRecord } from "../model/run-types";

/**
 * The doors a run's reply leaves by besides the transcript (a chat it came from, a hook's
 * `deliverTo`) and who carries a delivery to a chat platform: handed to the session object where
 * the worker assembles it (src/index.ts), so session/ imports no channel and no hook, and a new
 * door is added there, not in every session's wiring (docs/architecture.md, "The dependency rule").
 */
export type ReplyRoutes = {
  /**
   * Each queues a settled run's reply in the outbox when the run came by its door, inside the
   * reply's commit (nothing when it did not); called in this order.
   */
  queueReply: ReadonlyArray<(outbox: Outbox, run: RunRecord, text: string) => void>;
  /** Who delivers to a chat platform for the tenant (null: not a configured channel): the outbox's `channelSender`. */
  channelSender: typeof channelSenderOf;
  /** What a chat shows while a turn's run works (typing kept alive, a progress draft), fed the session's live events. */
  chatActivity: typeof chatActivity;
};
