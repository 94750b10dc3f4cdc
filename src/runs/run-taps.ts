import type { RunTap } from "../contracts/session-api";
import type { LiveEvent } from "../contracts/tenant-api";

/**
 * What a run tap carries, one JSON line each: the text the run added (as clients see it, after
 * the delta throttle), then one `end` once the run settled (ok, error, timeout or aborted).
 * The outcome itself (reply, usage, error) is read from the run afterwards, not from here.
 */
export type RunTapLine = { type: "delta"; text: string } | { type: "end"; state: string };

/** A tap nobody reads ends after this long (the run outlived every caller that wanted it). */
export const RUN_TAP_MAX_MS = 24 * 60 * 60 * 1000;

type Tap = { writer: WritableStreamDefaultWriter<Uint8Array>; timer: ReturnType<typeof setTimeout> };

/**
 * Live text of runs for callers that answer over HTTP (the OpenAI-compatible routes), taken
 * from the same events the tenant's WebSocket clients get. A tap is opened before its run
 * starts, so no delta is missed; it lives in memory only (a caller that loses it reads the
 * run's stored outcome instead).
 */
export class RunTaps {
  private readonly taps = new Map<string, Set<Tap>>();
  private readonly encoder = new TextEncoder();

  /** A byte stream of JSON lines (RunTapLine) for the run; cancelling it drops the tap. */
  open(runId: string): RunTap {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const tap: Tap = {
      writer: writable.getWriter(),
      timer: setTimeout(() => this.close(runId, tap), RUN_TAP_MAX_MS),
    };
    let set = this.taps.get(runId);
    if (!set) {
      set = new Set();
      this.taps.set(runId, set);
    }
    set.add(tap);
    // A reader that went away (client disconnected) shows up as a failed write.
    tap.writer.closed.catch(() => this.close(runId, tap));
    return readable;
  }

  /**
   * `start` of a run with its tap (when `follow`) opened first and answered as `tap`; a start
   * that throws drops it.
   */
  async around<T extends object>(
    runId: string,
    follow: boolean | undefined,
    start: () => Promise<T>,
  ): Promise<T & { tap?: RunTap }> {
    const tap = follow ? this.open(runId) : undefined;
    try {
      const answer = await start();
      return tap ? { ...answer, tap } : answer;
    } catch (error) {
      void tap?.cancel().catch(() => undefined);
      throw error;
    }
  }

  /** Every live event of the session passes here; the ones of a tapped run are forwarded. */
  offer(event: Omit<LiveEvent, "afterSeq">): void {
    if (event.event !== "chat" || this.taps.size === 0) return;
    const runId = event.payload.runId;
    if (typeof runId !== "string") return;
    const set = this.taps.get(runId);
    if (!set) return;
    const state = event.payload.state;
    let line: RunTapLine | null = null;
    if (state === "delta" && typeof event.payload.deltaText === "string") {
      line = { type: "delta", text: event.payload.deltaText };
    } else if (state === "final" || state === "error" || state === "aborted") {
      line = { type: "end", state: String(state) };
    }
    if (!line) return;
    const bytes = this.encoder.encode(`${JSON.stringify(line)}\n`);
    for (const tap of set) {
      tap.writer.write(bytes).catch(() => this.close(runId, tap));
      if (line.type === "end") this.close(runId, tap);
    }
  }

  /** Ends every tap (the session is deleted). */
  closeAll(): void {
    for (const [runId, set] of this.taps) for (const tap of set) this.close(runId, tap);
  }

  private close(runId: string, tap: Tap): void {
    const set = this.taps.get(runId);
    if (!set?.delete(tap)) return;
    if (set.size === 0) this.taps.delete(runId);
    clearTimeout(tap.timer);
    tap.writer.close().catch(() => undefined);
  }
}
