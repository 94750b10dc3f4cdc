import type { LogTail, LogTailQuery, TenantLogLine, UsageEvent, UsageQuery, UsageRows } from "../contracts/ledger-api";
import type { Schema } from "../storage/migrations";
import { all, first, type Row } from "../storage/sql";

/**
 * A tenant's ledger in SQLite: usage rolled up per UTC day, session and model (one row updated
 * per finished run, so a usage query reads days × sessions × models rows, never a transcript),
 * and the tenant's own log lines, kept for LOG_RETENTION_MS and at most LOG_MAX_LINES.
 */

export const LEDGER_SCHEMAS: Schema[] = [
  {
    module: "ledger",
    migrations: [
      {
        name: "create usage_daily",
        sql: `CREATE TABLE usage_daily (
          date TEXT NOT NULL,
          session_key TEXT NOT NULL,
          session_id TEXT,
          agent_id TEXT NOT NULL,
          provider TEXT NOT NULL,
          model TEXT NOT NULL,
          runs INTEGER NOT NULL DEFAULT 0,
          input INTEGER NOT NULL DEFAULT 0,
          output INTEGER NOT NULL DEFAULT 0,
          total INTEGER NOT NULL DEFAULT 0,
          tool_calls INTEGER NOT NULL DEFAULT 0,
          errors INTEGER NOT NULL DEFAULT 0,
          input_cost REAL NOT NULL DEFAULT 0,
          output_cost REAL NOT NULL DEFAULT 0,
          priced_runs INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (date, session_key, provider, model)
        )`,
      },
      {
        name: "create logs",
        sql: "CREATE TABLE logs (id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, line TEXT NOT NULL)",
      },
      {
        name: "create usage_tools",
        // Calls per tool, per UTC day and session (a run's tool loop journal, counted when it ends).
        sql: `CREATE TABLE usage_tools (
          date TEXT NOT NULL,
          session_key TEXT NOT NULL,
          agent_id TEXT NOT NULL,
          tool TEXT NOT NULL,
          calls INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (date, session_key, tool)
        )`,
      },
      // Billing (issue 48): AUTOINCREMENT writes its counter row (sqlite_sequence) with every
      // line. A plain rowid key keeps ids increasing as long as the newest line is never
      // deleted, which log() guarantees: one row written per line, not two.
      {
        name: "logs without autoincrement",
        sql: `CREATE TABLE logs_by_id (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, line TEXT NOT NULL);
          INSERT INTO logs_by_id (id, at, line) SELECT id, at, line FROM logs;
          DROP TABLE logs;
          ALTER TABLE logs_by_id RENAME TO logs`,
      },
    ],
  },
];

/** Log lines are kept this long, and at most this many. */
export const LOG_RETENTION_MS = 7 * 24 * 60 * 60_000;
export const LOG_MAX_LINES = 5000;
/** Rows a usage query reads at most (days × sessions × models). */
export const USAGE_MAX_ROWS = 20_000;

type UsageDbRow = {
  date: string;
  session_key: string;
  session_id: string | null;
  agent_id: string;
  provider: string;
  model: string;
  runs: number;
  input: number;
  output: number;
  total: number;
  tool_calls: number;
  errors: number;
  input_cost: number;
  output_cost: number;
  priced_runs: number;
};

export class LedgerStore {
  constructor(private readonly sql: SqlStorage) {}

  record(event: UsageEvent): void {
    this.sql.exec(
      `INSERT INTO usage_daily (date, session_key, session_id, agent_id, provider, model, runs, input, output, total,
         tool_calls, errors, input_cost, output_cost, priced_runs)
       VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (date, session_key, provider, model) DO UPDATE SET
         runs = runs + 1, input = input + excluded.input, output = output + excluded.output,
         total = total + excluded.total, tool_calls = tool_calls + excluded.tool_calls,
         errors = errors + excluded.errors, session_id = excluded.session_id, agent_id = excluded.agent_id,
         input_cost = input_cost + excluded.input_cost, output_cost = output_cost + excluded.output_cost,
         priced_runs = priced_runs + excluded.priced_runs`,
      utcDate(event.at),
      event.sessionKey,
      event.sessionId ?? null,
      event.agentId,
      event.provider,
      event.model,
      event.input,
      event.output,
      event.totalTokens,
      event.toolCalls,
      event.failed ? 1 : 0,
      event.cost?.input ?? 0,
      event.cost?.output ?? 0,
      event.cost ? 1 : 0,
    );
    for (const [tool, calls] of Object.entries(event.tools ?? {})) {
      this.sql.exec(
        `INSERT INTO usage_tools (date, session_key, agent_id, tool, calls) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (date, session_key, tool) DO UPDATE SET calls = calls + excluded.calls, agent_id = excluded.agent_id`,
        utcDate(event.at),
        event.sessionKey,
        event.agentId,
        tool,
        calls,
      );
    }
  }

  /** Tokens of every run on one UTC day (`YYYY-MM-DD`): the spend cap's count. */
  tokensOn(date: string): number {
    return (
      first<{ tokens: number }>(
        this.sql,
        "SELECT coalesce(sum(total), 0) AS tokens FROM usage_daily WHERE date = ?",
        date,
      )?.tokens ?? 0
    );
  }

  usage(query: UsageQuery): UsageRows {
    const rows = this.inRange<UsageDbRow>("usage_daily", query, USAGE_MAX_ROWS + 1);
    const tools = this.inRange<{ date: string; session_key: string; agent_id: string; tool: string; calls: number }>(
      "usage_tools",
      query,
      USAGE_MAX_ROWS,
    );
    return {
      truncated: rows.length > USAGE_MAX_ROWS,
      tools: tools.map((row) => ({
        date: row.date,
        sessionKey: row.session_key,
        agentId: row.agent_id,
        tool: row.tool,
        calls: row.calls,
      })),
      rows: rows.slice(0, USAGE_MAX_ROWS).map((row) => ({
        date: row.date,
        sessionKey: row.session_key,
        sessionId: row.session_id,
        agentId: row.agent_id,
        provider: row.provider,
        model: row.model,
        runs: row.runs,
        input: row.input,
        output: row.output,
        totalTokens: row.total,
        toolCalls: row.tool_calls,
        errors: row.errors,
        inputCost: row.input_cost,
        outputCost: row.output_cost,
        pricedRuns: row.priced_runs,
      })),
    };
  }

  /** A rollup table's rows in the query's date range (and agent), oldest first, at most `limit`. */
  private inRange<T extends Row>(table: "usage_daily" | "usage_tools", query: UsageQuery, limit: number): T[] {
    return all<T>(
      this.sql,
      `SELECT * FROM ${table} WHERE date >= ? AND date <= ? AND (?3 IS NULL OR agent_id = ?3)
       ORDER BY date, session_key LIMIT ?4`,
      query.startDate,
      query.endDate,
      query.agentId ?? null,
      limit,
    );
  }

  log(line: TenantLogLine, now: number): void {
    this.sql.exec("INSERT INTO logs (at, line) VALUES (?, ?)", now, JSON.stringify(line));
    // Trimmed as it grows: old lines and lines past the cap go, never the newest (its id is
    // where the next one continues: a tail cursor never sees an id twice).
    this.sql.exec(
      "DELETE FROM logs WHERE (at < ?1 OR id <= (SELECT max(id) FROM logs) - ?2) AND id < (SELECT max(id) FROM logs)",
      now - LOG_RETENTION_MS,
      LOG_MAX_LINES,
    );
  }

  /**
   * Lines after `cursor` (the last id a client saw), oldest first, at most `limit` lines and
   * about `maxBytes`; without a cursor, the newest lines. `reset` when the cursor fell out of
   * retention (some lines were missed).
   */
  tail(query: LogTailQuery): LogTail {
    const newest = first<{ id: number | null; oldest: number | null; n: number }>(
      this.sql,
      "SELECT max(id) AS id, min(id) AS oldest, count(*) AS n FROM logs",
    );
    const lastId = newest?.id ?? 0;
    const reset = query.cursor !== undefined && newest?.oldest != null && query.cursor < newest.oldest - 1;
    const rows =
      query.cursor === undefined || reset
        ? all<{ id: number; line: string }>(
            this.sql,
            "SELECT id, line FROM (SELECT id, line FROM logs ORDER BY id DESC LIMIT ?) ORDER BY id",
            query.limit,
          )
        : all<{ id: number; line: string }>(
            this.sql,
            "SELECT id, line FROM logs WHERE id > ? ORDER BY id LIMIT ?",
            query.cursor,
            query.limit,
          );
    const lines: string[] = [];
    let bytes = 0;
    let lastIncluded: number | undefined;
    for (const row of rows) {
      bytes += row.line.length + 1;
      if (bytes > query.maxBytes && lines.length > 0) break;
      lines.push(row.line);
      lastIncluded = row.id;
    }
    return {
      cursor: lastIncluded ?? query.cursor ?? lastId,
      lines,
      truncated: lastIncluded !== undefined && lastIncluded < lastId,
      reset,
      size: newest?.n ?? 0,
    };
  }

  /** Everything goes (the tenant is deleted): log ids start over, as no tail of it outlives it. */
  clear(): void {
    this.sql.exec("DELETE FROM usage_daily");
    this.sql.exec("DELETE FROM usage_tools");
    this.sql.exec("DELETE FROM logs");
  }
}

/** The UTC day of an instant, `YYYY-MM-DD`. */
export function utcDate(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}
