import type { LiveEvent } from "../../contracts/tenant-api";
import type { DeliveryTarget } from "../../model/delivery";
import { CHANNEL_REPLY_KIND } from "./reply";

/**
 * OpenClaw's default Telegram `streaming: "progress"` draft (issue 46, "progress while the agent
 * works"), as 2026.9.6 was recorded doing it (../shared/peer/channels/SPEC.md §6): a run that
 * calls a tool shows `<b>Working</b>` in its chat (a `sendMessage` at its first tool call), the
 * answer comes as a new message, then the draft is deleted (`deleteMessage`). A plain reply
 * shows no draft (§3.5). Driven by the session's live events: a run's first `tool` start opens
 * it; the run's reply delivered (or given up), or the run ending without one, removes it. Best
 * effort and in memory: a draft whose session object was evicted meanwhile stays in the chat.
 */

/** The draft's text, as recorded (Telegram HTML). */
export const PROGRESS_DRAFT_HTML = "<b>Working</b>";

/** A chat a draft can be shown in: its message id once sent (null: not sent), and its removal. */
export type DraftChat = {
  show(): Promise<number | null>;
  remove(messageId: number): Promise<void>;
};

export type ProgressDraftPorts = {
  replyTargetOf(runId: string): DeliveryTarget | undefined;
  /** The platform's draft for that chat; null where drafts are not shown (every platform but Telegram). */
  draftChat(target: DeliveryTarget): Promise<DraftChat | null>;
  /** The run whose reply a delivery is (its idempotency key `<runId>:reply`), and whether that reply is still owed. */
  replyDelivery(runId: string): "pending" | "settled" | "none";
  runOfDelivery(deliveryId: string): string | undefined;
  waitUntil(promise: Promise<unknown>): void;
};

type Shown = { chat: DraftChat; messageId: number } | null;

export class ProgressDrafts {
  private readonly drafts = new Map<string, Promise<Shown>>();

  constructor(private readonly ports: ProgressDraftPorts) {}

  /** Every live event of the session passes here. */
  offer(event: Omit<LiveEvent, "afterSeq">): void {
    const payload = event.payload as Record<string, unknown>;
    if (event.event === "agent") {
      const data = payload.data as { phase?: unknown } | undefined;
      if (payload.stream === "tool" && data?.phase === "start" && typeof payload.runId === "string")
        this.open(payload.runId);
      return;
    }
    if (event.event !== "sessions.changed" || this.drafts.size === 0) return;
    if (payload.reason === "delivery" && payload.deliveryKind === CHANNEL_REPLY_KIND) {
      const runId = typeof payload.deliveryId === "string" ? this.ports.runOfDelivery(payload.deliveryId) : undefined;
      if (runId && payload.deliveryStatus !== "pending") this.close(runId);
      return;
    }
    // A run that ended owing no reply (NO_REPLY, an error) removes its draft now.
    const { phase, runId } = payload;
    if ((phase === "end" || phase === "error") && typeof runId === "string") {
      if (this.ports.replyDelivery(runId) !== "pending") this.close(runId);
    }
  }

  private open(runId: string): void {
    if (this.drafts.has(runId)) return;
    const target = this.ports.replyTargetOf(runId);
    if (!target) return;
    const shown = (async (): Promise<Shown> => {
      const chat = await this.ports.draftChat(target);
      const messageId = chat ? await chat.show() : null;
      return chat && messageId !== null ? { chat, messageId } : null;
    })().catch(() => null);
    this.drafts.set(runId, shown);
    this.ports.waitUntil(shown);
  }

  private close(runId: string): void {
    const shown = this.drafts.get(runId);
    if (!shown) return;
    this.drafts.delete(runId);
    this.ports.waitUntil(shown.then((draft) => draft?.chat.remove(draft.messageId)).catch(() => undefined));
  }
}
