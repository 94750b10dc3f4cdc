import type { LiveEvent } from "../../contracts/tenant-api";
import type { DeliveryTarget } from "../../model/delivery";

/**
 * Typing kept alive while a chat turn's run works (issue 46, "progress while the agent works"):
 * the inbox shows typing once as the turn starts (its acknowledgement); a platform's indicator
 * fades by itself (Telegram's after 5 s), so the session that runs the turn repeats it every
 * TYPING_KEEPALIVE_MS from the run's start until it ends, when the reply follows. OpenClaw
 * 2026.9.6 was recorded repeating `sendChatAction typing` every ~4–5 s while a run lasted
 * (../shared/peer/channels/SPEC.md §3.5). Best effort and in memory, like the indicator itself:
 * a failed repeat is skipped, and a run resumed after an eviction is not kept typing.
 */

/** How often the indicator is repeated while a run works (Telegram's lasts 5 s). */
export const TYPING_KEEPALIVE_MS = 5_000;
/** A run still open after this long stops being shown typing (past any run's timeout). */
export const TYPING_KEEPALIVE_MAX_MS = 15 * 60 * 1000;

/** Shows typing in a chat; `null` for a target whose platform has no typing indicator. */
export type TypingSender = (target: DeliveryTarget) => Promise<(() => Promise<void>) | null>;

export type TypingPorts = {
  /** The chat a run answers (its reply target), if it answers one. */
  replyTargetOf(runId: string): DeliveryTarget | undefined;
  /** The platform's typing for that chat, resolved once per run (the bot and its token). */
  typing: TypingSender;
  /** Keeps the object alive for a pending repeat (ctx.waitUntil). */
  waitUntil?(promise: Promise<unknown>): void;
};

type Keeping = { timer: ReturnType<typeof setInterval>; deadline: ReturnType<typeof setTimeout> };

export class TypingKeepAlive {
  private readonly keeping = new Map<string, Keeping>();

  constructor(
    private readonly ports: TypingPorts,
    private readonly intervalMs = TYPING_KEEPALIVE_MS,
  ) {}

  /** Every live event of the session passes here: a run's start and end (`sessions.changed`) drive it. */
  offer(event: Omit<LiveEvent, "afterSeq">): void {
    if (event.event !== "sessions.changed") return;
    const { phase, runId } = event.payload as { phase?: unknown; runId?: unknown };
    if (typeof runId !== "string") return;
    if (phase === "start") this.start(runId);
    else if (phase === "end" || phase === "error") this.stop(runId);
  }

  /** Runs being kept typing (for tests and the object's state). */
  get size(): number {
    return this.keeping.size;
  }

  private start(runId: string): void {
    const target = this.ports.replyTargetOf(runId);
    if (!target || this.keeping.has(runId)) return;
    // Resolved at the first repeat: a run shorter than the interval (most) costs nothing here.
    let typing: ReturnType<TypingSender> | undefined;
    const repeat = () => {
      typing ??= this.ports.typing(target).catch(() => null);
      const sent = typing.then((send) => send?.()).catch(() => undefined);
      this.ports.waitUntil?.(sent);
    };
    this.keeping.set(runId, {
      timer: setInterval(repeat, this.intervalMs),
      deadline: setTimeout(() => this.stop(runId), TYPING_KEEPALIVE_MAX_MS),
    });
  }

  private stop(runId: string): void {
    const keeping = this.keeping.get(runId);
    if (!keeping) return;
    clearInterval(keeping.timer);
    clearTimeout(keeping.deadline);
    this.keeping.delete(runId);
  }
}
