import { all, first } from "../storage/sql";
import type { RunInput, RunRecord, RunState, RunUsage } from "./run-types";

/**
 * SQL for runs and the timer table of a SessionObject. The object has one alarm; every
 * timer (run timeout, watchdog, flow steps, delivery retries, spawn announce/archive) is a row here and the
 * alarm is always set to the earliest due row.
 */

export const RUN_MIGRATIONS = [
  `CREATE TABLE runs (
     run_id TEXT PRIMARY KEY,
     seq INTEGER NOT NULL,
     state TEXT NOT NULL,
     input TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     started_at INTEGER,
     ended_at INTEGER,
     stop_reason TEXT,
     error TEXT,
     usage TEXT,
     reply TEXT,
     user_seq INTEGER,
     reply_seq INTEGER,
     attempts INTEGER NOT NULL DEFAULT 0
   )`,
  `CREATE INDEX runs_by_state ON runs (state, seq)`,
  `CREATE TABLE timers (
     id INTEGER PRIMARY KEY,
     due_at INTEGER NOT NULL,
     kind TEXT NOT NULL,
     ref TEXT NOT NULL,
     UNIQUE (kind, ref)
   )`,
  `CREATE INDEX timers_by_due ON timers (due_at)`,
  // A webhook host acknowledged with 202: the run now waits for its callbacks, not a retry.
  `ALTER TABLE runs ADD COLUMN deferred INTEGER NOT NULL DEFAULT 0`,
] as const;

type RunRow = {
  run_id: string;
  seq: number;
  state: string;
  input: string;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
  stop_reason: string | null;
  error: string | null;
  usage: string | null;
  reply: string | null;
  user_seq: number | null;
  reply_seq: number | null;
  attempts: number;
  deferred: number;
};

export type Timer = { id: number; dueAt: number; kind: string; ref: string };

export class RunStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly sessionKey: () => string,
  ) {}

  get(runId: string): RunRecord | undefined {
    const row = first<RunRow>(this.sql, "SELECT * FROM runs WHERE run_id = ?", runId);
    return row && this.toRecord(row);
  }

  insert(runId: string, input: RunInput, at: number, userSeq: number | undefined): void {
    const seq = first<{ n: number }>(this.sql, "SELECT coalesce(max(seq), 0) + 1 AS n FROM runs")?.n ?? 1;
    this.sql.exec(
      "INSERT INTO runs (run_id, seq, state, input, created_at, user_seq) VALUES (?, ?, 'queued', ?, ?, ?)",
      runId,
      seq,
      JSON.stringify(input),
      at,
      userSeq ?? null,
    );
  }

  /** The run currently running, if any (one per session). */
  active(): RunRecord | undefined {
    const row = first<RunRow>(this.sql, "SELECT * FROM runs WHERE state = 'running' ORDER BY seq LIMIT 1");
    return row && this.toRecord(row);
  }

  /** The oldest queued run (FIFO). */
  nextQueued(): RunRecord | undefined {
    const row = first<RunRow>(this.sql, "SELECT * FROM runs WHERE state = 'queued' ORDER BY seq LIMIT 1");
    return row && this.toRecord(row);
  }

  unfinished(): RunRecord[] {
    return all<RunRow>(this.sql, "SELECT * FROM runs WHERE state IN ('queued', 'running') ORDER BY seq").map((r) =>
      this.toRecord(r),
    );
  }

  /** Runs newest first, `limit` of them before `beforeSeq` (exclusive); each with its seq (the cursor). */
  page(limit: number, beforeSeq?: number): Array<{ seq: number; run: RunRecord }> {
    return all<RunRow>(
      this.sql,
      "SELECT * FROM runs WHERE seq < ? ORDER BY seq DESC LIMIT ?",
      beforeSeq ?? Number.MAX_SAFE_INTEGER,
      limit,
    ).map((row) => ({ seq: row.seq, run: this.toRecord(row) }));
  }

  markDeferred(runId: string): void {
    this.sql.exec("UPDATE runs SET deferred = 1 WHERE run_id = ?", runId);
  }

  markRunning(runId: string, at: number): void {
    this.sql.exec(
      "UPDATE runs SET state = 'running', started_at = coalesce(started_at, ?), attempts = attempts + 1 WHERE run_id = ?",
      at,
      runId,
    );
  }

  /** Ends a run once; returns false when it had already ended (late or duplicate completion). */
  finish(
    runId: string,
    outcome: {
      state: RunState;
      at: number;
      stopReason?: string;
      error?: string;
      usage?: RunUsage;
      reply?: string;
      replySeq?: number;
    },
  ): boolean {
    return (
      this.sql.exec(
        `UPDATE runs SET state = ?, ended_at = ?, stop_reason = ?, error = ?, usage = ?, reply = ?, reply_seq = ?
         WHERE run_id = ? AND state IN ('queued', 'running')`,
        outcome.state,
        outcome.at,
        outcome.stopReason ?? null,
        outcome.error ?? null,
        outcome.usage ? JSON.stringify(outcome.usage) : null,
        outcome.reply ?? null,
        outcome.replySeq ?? null,
        runId,
      ).rowsWritten > 0
    );
  }

  // ── Timers ──────────────────────────────────────────────────────────────

  setTimer(kind: string, ref: string, dueAt: number): void {
    this.sql.exec(
      "INSERT INTO timers (due_at, kind, ref) VALUES (?, ?, ?) ON CONFLICT(kind, ref) DO UPDATE SET due_at = excluded.due_at",
      dueAt,
      kind,
      ref,
    );
  }

  clearTimer(kind: string, ref: string): void {
    this.sql.exec("DELETE FROM timers WHERE kind = ? AND ref = ?", kind, ref);
  }

  clearTimersFor(ref: string): void {
    this.sql.exec("DELETE FROM timers WHERE ref = ?", ref);
  }

  dueTimers(now: number): Timer[] {
    return all<{ id: number; due_at: number; kind: string; ref: string }>(
      this.sql,
      "SELECT id, due_at, kind, ref FROM timers WHERE due_at <= ? ORDER BY due_at LIMIT 100",
      now,
    ).map((t) => ({ id: t.id, dueAt: t.due_at, kind: t.kind, ref: t.ref }));
  }

  deleteTimer(id: number): void {
    this.sql.exec("DELETE FROM timers WHERE id = ?", id);
  }

  nextTimerDue(): number | undefined {
    return first<{ due: number | null }>(this.sql, "SELECT min(due_at) AS due FROM timers")?.due ?? undefined;
  }

  private toRecord(row: RunRow): RunRecord {
    return {
      runId: row.run_id,
      sessionKey: this.sessionKey(),
      state: row.state as RunState,
      input: JSON.parse(row.input) as RunInput,
      createdAt: row.created_at,
      ...(row.started_at !== null ? { startedAt: row.started_at } : {}),
      ...(row.ended_at !== null ? { endedAt: row.ended_at } : {}),
      ...(row.stop_reason !== null ? { stopReason: row.stop_reason } : {}),
      ...(row.error !== null ? { error: row.error } : {}),
      ...(row.usage !== null ? { usage: JSON.parse(row.usage) as RunUsage } : {}),
      ...(row.reply !== null ? { reply: row.reply } : {}),
      ...(row.user_seq !== null ? { userSeq: row.user_seq } : {}),
      ...(row.reply_seq !== null ? { replySeq: row.reply_seq } : {}),
      attempts: row.attempts,
      deferred: row.deferred === 1,
    };
  }
}
