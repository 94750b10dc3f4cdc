/**
 * Counters of a run, the progress display on stderr (a bar redrawn in place on a terminal,
 * a line at most once a second otherwise) and the closing summary.
 */

export type SessionOutcome = "new" | "updated" | "unchanged" | "skipped" | "failed";

export class Stats {
  readonly startedAt = Date.now();
  sessionsTotal = 0;
  sessionsDone = 0;
  readonly outcomes: Record<SessionOutcome, number> = { new: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0 };
  /** Messages written by this run, and the ones the target already held (resumed pages). */
  messages = 0;
  alreadyThere = 0;
  /** JSON bytes of the messages written. */
  bytes = 0;
  /** Sessions not copied (or not whole), with why. */
  readonly notes: Array<{ key: string; outcome: SessionOutcome; reason: string }> = [];
  /** Messages not copied, counted by reason. */
  readonly skippedMessages = new Map<string, number>();
  retries = 0;

  skipMessages(reason: string, count: number): void {
    this.skippedMessages.set(reason, (this.skippedMessages.get(reason) ?? 0) + count);
  }

  finish(key: string, outcome: SessionOutcome, reason?: string): void {
    this.sessionsDone++;
    this.outcomes[outcome]++;
    if (reason) this.notes.push({ key, outcome, reason });
  }

  rate(): number {
    const seconds = (Date.now() - this.startedAt) / 1000;
    return seconds > 0 ? this.messages / seconds : 0;
  }
}

const BAR_CELLS = 24;
const TTY_REDRAW_MS = 150;
const LINE_EVERY_MS = 1000;

export class Progress {
  private lastDraw = 0;
  private drawn = false;
  private started = false;
  private lastLine = "";
  private timer: NodeJS.Timeout | null = null;
  private readonly stats: Stats;
  private readonly out: NodeJS.WriteStream;
  private readonly enabled: boolean;

  constructor(stats: Stats, out: NodeJS.WriteStream, enabled: boolean) {
    this.stats = stats;
    this.out = out;
    this.enabled = enabled;
  }

  start(): void {
    this.started = true;
    if (!this.enabled || !this.out.isTTY) return;
    this.timer = setInterval(() => this.draw(), TTY_REDRAW_MS);
    this.timer.unref();
  }

  /** Something moved: redraw (terminal) or print a line (otherwise), rate-limited. */
  update(): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (this.out.isTTY) {
      if (now - this.lastDraw >= TTY_REDRAW_MS) this.draw();
      return;
    }
    // The first line comes at once, so a watcher sees the run has started writing.
    if (this.drawn && now - this.lastDraw < LINE_EVERY_MS) return;
    this.lastDraw = now;
    this.drawn = true;
    this.line();
  }

  /** A message above the bar (retries, warnings). */
  note(text: string): void {
    if (this.out.isTTY && this.drawn) this.out.write("\r\x1b[K");
    this.out.write(`${text}\n`);
    if (this.out.isTTY && this.drawn) this.draw();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (!this.enabled || !this.started) return;
    if (this.out.isTTY) {
      this.draw();
      this.out.write("\n");
    } else this.line();
  }

  /** One status line (not the same one twice in a row). */
  private line(): void {
    const text = `import: ${this.status()}`;
    if (text === this.lastLine) return;
    this.lastLine = text;
    this.out.write(`${text}\n`);
  }

  private draw(): void {
    this.lastDraw = Date.now();
    this.drawn = true;
    const { sessionsDone, sessionsTotal } = this.stats;
    const filled = sessionsTotal > 0 ? Math.round((sessionsDone / sessionsTotal) * BAR_CELLS) : 0;
    const bar = `[${"#".repeat(filled)}${"-".repeat(BAR_CELLS - filled)}]`;
    this.out.write(`\r\x1b[K${bar} ${this.status()}`);
  }

  private status(): string {
    const s = this.stats;
    return `${s.sessionsDone}/${s.sessionsTotal} sessions, ${count(s.messages)} messages, ${count(Math.round(s.rate()))} msg/s, ${megabytes(s.bytes)}`;
  }
}

export type Summary = {
  from: string;
  to: string;
  dryRun: boolean;
  seconds: number;
  sessions: { total: number } & Record<SessionOutcome, number>;
  messages: { copied: number; alreadyThere: number; perSecond: number; bytes: number };
  skippedSessions: Array<{ key: string; outcome: SessionOutcome; reason: string }>;
  skippedMessages: Array<{ reason: string; count: number }>;
  unmappedFields: string[];
  retries: number;
};

export function summarize(
  stats: Stats,
  run: { from: string; to: string; dryRun: boolean; unmapped: Iterable<string> },
) {
  const seconds = (Date.now() - stats.startedAt) / 1000;
  return {
    from: run.from,
    to: run.to,
    dryRun: run.dryRun,
    seconds: Math.round(seconds * 10) / 10,
    sessions: { total: stats.sessionsTotal, ...stats.outcomes },
    messages: {
      copied: stats.messages,
      alreadyThere: stats.alreadyThere,
      perSecond: Math.round(stats.rate()),
      bytes: stats.bytes,
    },
    skippedSessions: stats.notes,
    skippedMessages: [...stats.skippedMessages].map(([reason, n]) => ({ reason, count: n })),
    unmappedFields: [...run.unmapped].sort(),
    retries: stats.retries,
  } satisfies Summary;
}

/** The summary for people. */
export function formatSummary(summary: Summary): string {
  const s = summary.sessions;
  const m = summary.messages;
  const lines = [
    `${summary.dryRun ? "Dry run (nothing written)" : "Imported"} from ${summary.from} into ${summary.to} in ${summary.seconds} s`,
    summary.dryRun
      ? `  sessions: ${s.total} (${s.new} new, ${s.updated} to update, ${s.unchanged} unchanged, ${s.skipped} skipped)`
      : `  sessions: ${s.total} (${s.new} new, ${s.updated} updated, ${s.unchanged} unchanged, ${s.skipped} skipped, ${s.failed} failed)`,
    summary.dryRun
      ? `  messages: ${count(m.copied)} to copy`
      : `  messages: ${count(m.copied)} copied (${count(m.perSecond)}/s, ${megabytes(m.bytes)}), ${count(m.alreadyThere)} already there`,
  ];
  if (summary.skippedSessions.length > 0) {
    lines.push("  sessions not copied whole:");
    for (const note of summary.skippedSessions) lines.push(`    ${note.key}: ${note.outcome}: ${note.reason}`);
  }
  if (summary.skippedMessages.length > 0) {
    lines.push("  messages not copied:");
    for (const { reason, count: n } of summary.skippedMessages) lines.push(`    ${count(n)}: ${reason}`);
  }
  if (summary.unmappedFields.length > 0) {
    lines.push(`  source fields without an equivalent here: ${summary.unmappedFields.join(", ")}`);
  }
  if (summary.retries > 0) lines.push(`  retries: ${summary.retries}`);
  return lines.join("\n");
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
