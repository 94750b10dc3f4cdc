// The silent token is OpenClaw's protocol (protocol/silent-reply.ts); re-exported for the engines here.
export { isSilentReply, SILENT_REPLY } from "../protocol/silent-reply";

/** Deltas reach clients at most once per this interval per run. */
export const DELTA_INTERVAL_MS = 150;

/**
 * Throttles cumulative text updates to one per DELTA_INTERVAL_MS, emitting the cumulative
 * text and what was added since the last emission. `flush` emits what is pending.
 */
export class DeltaThrottle {
  latest = "";
  private emitted = "";
  private lastAt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly emit: (text: string, delta: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  push(text: string): void {
    this.latest = text;
    const wait = this.lastAt + DELTA_INTERVAL_MS - this.now();
    if (wait <= 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), wait);
  }

  /** Drops what is pending (the run ended another way). */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.emitted = this.latest;
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.latest === this.emitted) return;
    const delta = this.latest.startsWith(this.emitted) ? this.latest.slice(this.emitted.length) : this.latest;
    this.emitted = this.latest;
    this.lastAt = this.now();
    this.emit(this.latest, delta);
  }
}
