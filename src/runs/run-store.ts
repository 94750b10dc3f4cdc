import type { ClientToolCall, RunRecord, RunState, RunUsage, StoredRunInput } from "../model/run-types";
import type { Schema } from "../storage/migrations";
import { all, first } from "../storage/sql";

/** SQL of a session's runs: one row per run, its state, input, outcome and attempts. */

export const RUN_SCHEMA: Schema = {
  module: "runs",
  migrations: [
    {
      name: "create runs",
      sql: `CREATE TABLE runs (
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
    },
    { name: "index runs_by_state", sql: "CREATE INDEX runs_by_state ON runs (state, seq)" },
    // A webhook host acknowledged with 202: the run now waits for its callbacks, not a retry.
    { name: "add runs.deferred", sql: "ALTER TABLE runs ADD COLUMN deferred INTEGER NOT NULL DEFAULT 0" },
    // Reads find the run of a user message or a reply by its transcript position.
    { name: "index runs_by_user_seq", sql: "CREATE INDEX runs_by_user_seq ON runs (user_seq)" },
    { name: "index runs_by_reply_seq", sql: "CREATE INDEX runs_by_reply_seq ON runs (reply_seq)" },
    // A run that stopped at client tool calls (the OpenAI routes) answers them to its caller.
    { name: "add runs.client_tool_calls", sql: "ALTER TABLE runs ADD COLUMN client_tool_calls TEXT" },
    // Billing (issue 48): every index entry a write touches is a billed row. The state index was
    // rewritten on every transition (queued → running → ended) and kept an entry for every run
    // ever; the queries only look for unfinished runs. A partial index on seq of the runs not
    // ended yet (`finish` always sets ended_at; nothing else does) is written when a run is
    // added and when it ends, not when it starts running. The seq indexes of the transcript
    // positions hold only the runs that have one (a held run has no user_seq until released;
    // a run has no reply_seq until it ends).
    {
      name: "partial run indexes",
      sql: `DROP INDEX IF EXISTS runs_by_state;
        CREATE INDEX runs_unfinished ON runs (seq) WHERE ended_at IS NULL;
        DROP INDEX IF EXISTS runs_by_user_seq;
        CREATE INDEX runs_by_user_seq ON runs (user_seq) WHERE user_seq IS NOT NULL;
        DROP INDEX IF EXISTS runs_by_reply_seq;
        CREATE INDEX runs_by_reply_seq ON runs (reply_seq) WHERE reply_seq IS NOT NULL`,
    },
    // Billing (issue 48): keyed by run_id itself (no rowid, no separate key index), a new run is
    // one row fewer written.
    {
      name: "runs keyed by run_id",
      sql: `CREATE TABLE runs_by_id (
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
          attempts INTEGER NOT NULL DEFAULT 0,
          deferred INTEGER NOT NULL DEFAULT 0,
          client_tool_calls TEXT
        ) WITHOUT ROWID;
        INSERT INTO runs_by_id (run_id, seq, state, input, created_at, started_at, ended_at, stop_reason, error,
            usage, reply, user_seq, reply_seq, attempts, deferred, client_tool_calls)
          SELECT run_id, seq, state, input, created_at, started_at, ended_at, stop_reason, error,
            usage, reply, user_seq, reply_seq, attempts, deferred, client_tool_calls FROM runs;
        DROP TABLE runs;
        ALTER TABLE runs_by_id RENAME TO runs;
        CREATE INDEX runs_unfinished ON runs (seq) WHERE ended_at IS NULL;
        CREATE INDEX runs_by_user_seq ON runs (user_seq) WHERE user_seq IS NOT NULL;
        CREATE INDEX runs_by_reply_seq ON runs (reply_seq) WHERE reply_seq IS NOT NULL`,
    },
  ],
};

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
  client_tool_calls: string | null;
};

export class RunStore {
  constructor(
    private readonly sql: SqlStorage,
    private readonly sessionKey: () => string,
  ) {}

  get(runId: string): RunRecord | undefined {
    const row = first<RunRow>(this.sql, "SELECT * FROM runs WHERE run_id = ?", runId);
    return row && this.toRecord(row);
  }

  insert(runId: string, input: StoredRunInput, at: number, userSeq: number | undefined): void {
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
    const row = first<RunRow>(
      this.sql,
      "SELECT * FROM runs WHERE ended_at IS NULL AND state = 'running' ORDER BY seq LIMIT 1",
    );
    return row && this.toRecord(row);
  }

  /** The oldest queued run (FIFO). */
  nextQueued(): RunRecord | undefined {
    const row = first<RunRow>(
      this.sql,
      "SELECT * FROM runs WHERE ended_at IS NULL AND state = 'queued' ORDER BY seq LIMIT 1",
    );
    return row && this.toRecord(row);
  }

  unfinished(): RunRecord[] {
    return all<RunRow>(
      this.sql,
      "SELECT * FROM runs WHERE ended_at IS NULL AND state IN ('queued', 'running') ORDER BY seq",
    ).map((r) => this.toRecord(r));
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

  /**
   * The runs whose user message or reply sits between `fromSeq` and `toSeq` of the transcript
   * that was current from `since` until `until` (null: still current).
   */
  forMessages(
    fromSeq: number,
    toSeq: number,
    since: number,
    until: number | null,
  ): Array<{ runId: string; userSeq: number | null; replySeq: number | null }> {
    return all<{ run_id: string; user_seq: number | null; reply_seq: number | null }>(
      this.sql,
      `SELECT run_id, user_seq, reply_seq FROM runs
       WHERE (user_seq BETWEEN ?1 AND ?2 OR reply_seq BETWEEN ?1 AND ?2) AND created_at >= ?3 AND created_at < ?4`,
      fromSeq,
      toSeq,
      since,
      until ?? Number.MAX_SAFE_INTEGER,
    ).map((r) => ({ runId: r.run_id, userSeq: r.user_seq, replySeq: r.reply_seq }));
  }

  /** The user message a released held run appended. */
  setUserSeq(runId: string, userSeq: number): void {
    this.sql.exec("UPDATE runs SET user_seq = ? WHERE run_id = ?", userSeq, runId);
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
      clientToolCalls?: ClientToolCall[];
    },
  ): boolean {
    return (
      this.sql.exec(
        `UPDATE runs SET state = ?, ended_at = ?, stop_reason = ?, error = ?, usage = ?, reply = ?, reply_seq = ?,
           client_tool_calls = ?
         WHERE run_id = ? AND state IN ('queued', 'running')`,
        outcome.state,
        outcome.at,
        outcome.stopReason ?? null,
        outcome.error ?? null,
        outcome.usage ? JSON.stringify(outcome.usage) : null,
        outcome.reply ?? null,
        outcome.replySeq ?? null,
        outcome.clientToolCalls?.length ? JSON.stringify(outcome.clientToolCalls) : null,
        runId,
      ).rowsWritten > 0
    );
  }

  private toRecord(row: RunRow): RunRecord {
    return {
      runId: row.run_id,
      sessionKey: this.sessionKey(),
      state: row.state as RunState,
      input: JSON.parse(row.input) as StoredRunInput,
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
      ...(row.client_tool_calls ? { clientToolCalls: JSON.parse(row.client_tool_calls) as ClientToolCall[] } : {}),
    };
  }
}
