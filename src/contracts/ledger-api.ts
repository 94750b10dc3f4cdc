import type { Awaitable } from "./session-api";

/** A log line as its tenant reads it back (`logs.tail`): the structured line, ids and error text only. */
export type TenantLogLine = { ts: string; level: "info" | "warn"; event: string } & Record<string, unknown>;

/**
 * What a Durable Object bills (Cloudflare's Durable Objects pricing): requests (every RPC method
 * call, fetch and alarm), incoming WebSocket messages (billed 20:1 as requests), wall time while
 * active (GB-s at 128 MB), SQLite rows read and written (src/metering/); and the R2 calls the
 * object made on the tenant's files (Cloudflare's R2 pricing: Class A, Class B, stored bytes).
 */
export type ObjectUnits = {
  requests: number;
  websocketMessages: number;
  activeMs: number;
  rowsRead: number;
  rowsWritten: number;
  /**
   * Bytes the objects' SQLite databases grew by (negative when they shrank): summed over every
   * day since metering began, what the tenant's objects store. Absent in rows kept before it was counted.
   */
  storedBytes: number;
  /** R2 Class A operations (put, list) on the tenant's prefix (src/metering/metered-bucket.ts). Absent in older rows. */
  r2ClassA: number;
  /** R2 Class B operations (get, head) on the tenant's prefix. Absent in older rows. */
  r2ClassB: number;
  /**
   * Bytes put into R2 under the tenant's prefix minus bytes deleted from it: summed over every
   * day since R2 was metered, what the tenant keeps in R2. Absent in older rows.
   */
  r2StoredBytes: number;
};

/** One UTC day's units of one object class (or `Worker`) of a tenant. */
export type DailyUnits = { date: string; objectClass: string; units: ObjectUnits };

/** One finished run's usage, as the session object reports it to its tenant's ledger. */
export type UsageEvent = {
  at: number;
  sessionKey: string;
  sessionId?: string;
  agentId: string;
  provider: string;
  model: string;
  input: number;
  output: number;
  totalTokens: number;
  /** Tool calls the run made, and whether it failed (error or timeout). */
  toolCalls: number;
  /** The same calls by tool name (the Usage page's "Top Tools"); absent when none. */
  tools?: Record<string, number>;
  failed: boolean;
  /** What the run's tokens cost in USD, when the runner has a price (`runner.cost`). */
  cost?: { input: number; output: number };
};

export type UsageQuery = { startDate: string; endDate: string; agentId?: string; limit: number };
export type LogTailQuery = { cursor?: number; limit: number; maxBytes: number };

export interface LedgerApi {
  record(event: UsageEvent): Awaitable<void>;
  log(line: TenantLogLine): Awaitable<void>;
  usage(query: UsageQuery): Awaitable<UsageRows>;
  /** Tokens of every run on one UTC day (`YYYY-MM-DD`), for the tenant's tokensPerDay limit. */
  tokensOn(date: string): Awaitable<number>;
  /** Not `tail`: that name is the runtime's Tail Worker handler, not callable over RPC. */
  readLogs(query: LogTailQuery): Awaitable<LogTail>;
  /** Adds a burst's billable units of one object class to a UTC day (src/metering/). */
  recordUnits(date: string, objectClass: string, units: ObjectUnits): Awaitable<void>;
  /** Units per day and object class, `from` to `to` inclusive (YYYY-MM-DD). */
  unitsBetween(from: string, to: string): Awaitable<DailyUnits[]>;
  /** Forgets everything (tenant deletion). */
  clear(): Awaitable<void>;
}

/** Per-day, per-session, per-model sums in a date range (the rollup behind `sessions.usage`). */
export type UsageRow = {
  date: string;
  sessionKey: string;
  sessionId: string | null;
  agentId: string;
  provider: string;
  model: string;
  runs: number;
  input: number;
  output: number;
  totalTokens: number;
  toolCalls: number;
  errors: number;
  /** USD, for the runs that had a price; `pricedRuns` of `runs` had one. */
  inputCost: number;
  outputCost: number;
  pricedRuns: number;
};
/** Calls of one tool per day and session, in the same range. */
export type ToolUsageRow = { date: string; sessionKey: string; agentId: string; tool: string; calls: number };
export type UsageRows = { rows: UsageRow[]; tools: ToolUsageRow[]; truncated: boolean };

export type LogTail = { cursor: number; lines: string[]; truncated: boolean; reset: boolean; size: number };
