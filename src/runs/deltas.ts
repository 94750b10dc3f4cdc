// The silent token is OpenClaw's protocol (protocol/silent-reply.ts); re-exported for the engines here.
export { isSilentReply, SILENT_REPLY } from "../protocol/silent-reply";

/** Deltas reach clients at most once per this interval per run (while the text is short). */
export const DELTA_INTERVAL_MS = 150;
/**
 * Past this many characters a reply's deltas stop repeating the whole text: the chat delta
 * carries only `deltaText` (no `message`), and the agent frame no `delta` that equals its `text`.
 */
export const DELTA_FULL_TEXT_MAX_CHARS = 16 * 1024;
/** The longest wait between two deltas of a long text. */
export const DELTA_INTERVAL_MAX_MS = 2_000;

/**
 * The wait between deltas for a text this long: DELTA_INTERVAL_MS, growing in proportion past
 * DELTA_FULL_TEXT_MAX_CHARS, so the agent frames (each with the whole text) of a long reply
 * stay at about the same bytes per second however long it grows, up to DELTA_INTERVAL_MAX_MS.
 */
export function deltaIntervalMs(textChars: number): number {
  return Math.min(
    DELTA_INTERVAL_MAX_MS,
    Math.round(DELTA_INTERVAL_MS * Math.max(1, textChars / DELTA_FULL_TEXT_MAX_CHARS)),
  );
}

/**
 * What one delta carries on each stream. OpenClaw sends the whole text on both (agent `text`,
 * chat `message`); short texts keep exactly that. Past DELTA_FULL_TEXT_MAX_CHARS the chat delta
 * carries only `deltaText` — with `replace: true` when it is the whole text (the first delta, or
 * a text that was rewritten), which the Control UI renders as the text itself, and appended to
 * what it showed otherwise — and the agent frame leaves out a `delta` equal to its `text`
 * (openclaw-node then reads the new part from `text`).
 */
export function deltaPayloads(
  text: string,
  delta: string,
  now: number,
): { agent: Record<string, unknown>; chat: Record<string, unknown> } {
  const message = { role: "assistant", content: [{ type: "text", text }], timestamp: now };
  if (text.length <= DELTA_FULL_TEXT_MAX_CHARS) {
    return { agent: { text, delta }, chat: { state: "delta", deltaText: delta, message } };
  }
  const whole = delta === text;
  return {
    agent: whole ? { text } : { text, delta },
    chat: { state: "delta", deltaText: delta, ...(whole ? { replace: true } : {}) },
  };
}

/**
 * Throttles cumulative text updates to one per deltaIntervalMs, emitting the cumulative text
 * and what was added since the last emission. `flush` emits what is pending.
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
    const wait = this.lastAt + deltaIntervalMs(text.length) - this.now();
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
