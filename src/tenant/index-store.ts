import type { ListFilter } from "../contracts/tenant-api";
import type { IndexColumns, SessionRow } from "../model/session-row";
import type { Schema } from "../storage/migrations";
import { all, first, type Row, type SqlExec } from "../storage/sql";
import type { ListPosition } from "./list-cursors";

export const INDEX_SCHEMAS: Schema[] = [
  {
    module: "index",
    migrations: [
      {
        name: "create sessions",
        sql: `CREATE TABLE sessions (
          key TEXT PRIMARY KEY,
          session_id TEXT NOT NULL,
          agent_id TEXT NOT NULL,
          kind TEXT NOT NULL,
          label TEXT,
          spawned_by TEXT,
          parent_session_key TEXT,
          updated_at INTEGER NOT NULL,
          archived_at INTEGER,
          version INTEGER NOT NULL,
          search_text TEXT NOT NULL,
          is_cron_run INTEGER NOT NULL,
          row TEXT NOT NULL
        )`,
      },
      { name: "index sessions_by_updated", sql: "CREATE INDEX sessions_by_updated ON sessions (updated_at DESC)" },
      {
        name: "index sessions_by_agent",
        sql: "CREATE INDEX sessions_by_agent ON sessions (agent_id, updated_at DESC)",
      },
      { name: "index sessions_by_label", sql: "CREATE INDEX sessions_by_label ON sessions (label)" },
      {
        name: "index sessions_by_spawner",
        sql: "CREATE INDEX sessions_by_spawner ON sessions (spawned_by, updated_at DESC)",
      },
      { name: "index sessions_by_parent", sql: "CREATE INDEX sessions_by_parent ON sessions (parent_session_key)" },
      { name: "index sessions_by_session_id", sql: "CREATE INDEX sessions_by_session_id ON sessions (session_id)" },
      {
        name: "create session_ids",
        sql: "CREATE TABLE session_ids (session_id TEXT PRIMARY KEY, key TEXT NOT NULL, agent_id TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0)",
      },
      { name: "index session_ids_by_key", sql: "CREATE INDEX session_ids_by_key ON session_ids (key)" },
      // Last message seq fanned out per session, so a re-sent update is never delivered twice.
      {
        name: "create delivered",
        sql: "CREATE TABLE delivered (key TEXT PRIMARY KEY, session_id TEXT NOT NULL, seq INTEGER NOT NULL)",
      },
      // The list order (updated_at DESC, key DESC) as one index: pages continue from a position.
      // It also holds the columns every list filters on and the search text, so seeking an
      // offset, counting a rest and a search's scan read the index alone (a row's body only
      // for a row served): about 4× less time than looking each row up.
      {
        name: "index sessions_by_updated_key",
        sql: "CREATE INDEX sessions_by_updated_key ON sessions (updated_at, key, is_cron_run, archived_at, search_text)",
      },
      // Each session's message bytes as its last update said, and their sum (key ''), for the
      // tenant's transcriptBytesPerTenant limit: kept by difference, never summed over rows.
      {
        name: "create message_bytes",
        sql: "CREATE TABLE message_bytes (key TEXT PRIMARY KEY, bytes INTEGER NOT NULL)",
      },
      // Billing (issue 48): every index entry an update touches is a billed row, and every turn
      // moves its session's updated_at. sessions_by_updated_key serves the list order (scanned
      // backwards), so sessions_by_updated is never chosen; and most sessions have no spawner,
      // so the spawner index keeps only the rows that have one (`spawned_by = ?` and
      // `spawned_by IN (…)` still use it). A turn's index update: 5 rows → 3.
      {
        name: "lean session indexes",
        sql: `DROP INDEX IF EXISTS sessions_by_updated;
          DROP INDEX IF EXISTS sessions_by_spawner;
          CREATE INDEX sessions_by_spawner ON sessions (spawned_by, updated_at DESC) WHERE spawned_by IS NOT NULL`,
      },
      // Billing (issue 48): a session's message bytes and its fan-out high-water mark change on
      // the same update; one row per session holds both (one row written per update, not two).
      // message_bytes keeps only the tenant's total (key '').
      {
        name: "session progress",
        sql: `CREATE TABLE session_progress (
            key TEXT PRIMARY KEY,
            bytes INTEGER NOT NULL DEFAULT 0,
            delivered_session_id TEXT,
            delivered_seq INTEGER NOT NULL DEFAULT 0
          ) WITHOUT ROWID;
          INSERT INTO session_progress (key, bytes, delivered_session_id, delivered_seq)
            SELECT k.key, coalesce(b.bytes, 0), d.session_id, coalesce(d.seq, 0)
            FROM (SELECT key FROM message_bytes WHERE key != '' UNION SELECT key FROM delivered) k
            LEFT JOIN message_bytes b ON b.key = k.key
            LEFT JOIN delivered d ON d.key = k.key;
          DELETE FROM message_bytes WHERE key != '';
          DROP TABLE delivered`,
      },
    ],
  },
  {
    module: "runs",
    migrations: [
      {
        name: "create runs_index",
        sql: "CREATE TABLE runs_index (run_id TEXT PRIMARY KEY, key TEXT NOT NULL, created_at INTEGER NOT NULL)",
      },
      // Billing (issue 48): a rowid table with a TEXT primary key writes the row and its key index
      // for every run; keyed by run_id itself (small rows), a run's entry is one row.
      {
        name: "runs_index keyed by run_id",
        sql: `CREATE TABLE runs_index_by_id (run_id TEXT PRIMARY KEY, key TEXT NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
          INSERT INTO runs_index_by_id (run_id, key, created_at) SELECT run_id, key, created_at FROM runs_index;
          DROP TABLE runs_index;
          ALTER TABLE runs_index_by_id RENAME TO runs_index`,
      },
    ],
  },
];

/** The index's own ordering: a later updatedAt, or the same one with a higher version. */
export function isNewer(row: SessionRow, version: number, than: { updatedAt: number; version: number }): boolean {
  return row.updatedAt > than.updatedAt || (row.updatedAt === than.updatedAt && version > than.version);
}

/** Rows a `search=` list looks at per call at most (its page may come back short, saying so). */
export const LIST_SEARCH_SCAN_ROWS = 5_000;

export type ListPageRows = {
  rows: SessionRow[];
  /** Where the page ended (its last row, or the last row a cut-short search looked at). */
  last?: ListPosition;
  more: boolean;
  /** A search stopped at LIST_SEARCH_SCAN_ROWS. */
  scanLimited: boolean;
};

/** The search filter as a per-row test (1 when there is none): applied over a bounded scan. */
function hitTest(filter: ListFilter): { sql: string; binds: unknown[] } {
  // instr, not LIKE: DO SQLite caps LIKE patterns at 50 bytes.
  return filter.search
    ? { sql: "instr(search_text, ?) > 0", binds: [filter.search.toLowerCase()] }
    : { sql: "1", binds: [] };
}

/** The conditions, past a position in list order (the index sessions_by_updated_key). */
function withAfter(
  clause: { where: string[]; binds: unknown[] },
  after: ListPosition | undefined,
): { where: string[]; binds: unknown[] } {
  if (!after) return clause;
  return {
    where: [...clause.where, "(updated_at, key) < (?, ?)"],
    binds: [...clause.binds, after.updatedAt, after.key],
  };
}

/** SQLite's bound-parameter ceiling on Durable Objects is 100; stay under it. */
const MAX_BINDS = 90;

/** The columns of a session's index row, as stored. */
const INDEXED_COLUMNS = [
  "key",
  "session_id",
  "agent_id",
  "kind",
  "label",
  "spawned_by",
  "parent_session_key",
  "updated_at",
  "archived_at",
  "version",
  "search_text",
  "is_cron_run",
  "row",
] as const;
type StoredColumns = Record<(typeof INDEXED_COLUMNS)[number], string | number | null> & {
  updated_at: number;
  version: number;
};

/**
 * The tenant's session index: one row per session (derived data, rebuildable from the
 * session objects), sessionId → key for every transcript ever written, the fan-out
 * high-water mark per session, and runId → key. Every list filter is answered by SQL over
 * indexed columns, never by loading the whole table.
 */
export class IndexStore {
  /** Every statement of the store goes through here, after `beforeStatement`. */
  private readonly sql: SqlExec;
  /** Runs before each statement: held rows (held-index-rows.ts) are written before anything reads the index. */
  private beforeStatement: () => void = () => {};

  constructor(private readonly db: SqlStorage) {
    this.sql = {
      exec: <T extends Row>(query: string, ...binds: unknown[]) => {
        this.beforeStatement();
        return db.exec<T>(query, ...binds);
      },
    };
  }

  /** Sets what runs before each statement of the store (HeldIndexRows writes its rows there). */
  beforeEachStatement(hook: () => void): void {
    this.beforeStatement = hook;
  }

  /**
   * Upserts a row unless the index already holds a newer one (later updatedAt, or the same
   * updatedAt with a higher version) or the row belongs to a deleted transcript. One read of
   * session_ids decides both "deleted" and whether this transcript is new to the index.
   */
  upsertSession(row: SessionRow, version: number, columns: IndexColumns): "stored" | "stale" | "deleted" {
    const known = this.transcript(row.sessionId, this.sql);
    if (known?.deleted) return "deleted";
    // A row that is not newer is not written: even a statement that changes no row would make
    // the object's frames wait for a commit (a session re-sends held rows). A transcript new to
    // the index is recorded either way.
    const stored = first<StoredColumns>(
      this.sql,
      `SELECT ${INDEXED_COLUMNS.join(", ")} FROM sessions WHERE key = ?`,
      row.key,
    );
    const newer = !stored || isNewer(row, version, { updatedAt: stored.updated_at, version: stored.version });
    if (newer) this.writeRow(row, version, columns, stored);
    if (!known)
      this.sql.exec(
        "INSERT INTO session_ids (session_id, key, agent_id) VALUES (?, ?, ?)",
        row.sessionId,
        row.key,
        row.agentId,
      );
    return newer ? "stored" : "stale";
  }

  /**
   * The row's write; the caller decided it is newer than the stored one. An existing row gets
   * only the columns that changed: SQLite rewrites every index that names a column of the SET
   * list, whatever its value, and each index entry is a billed row written (a turn's update
   * touches updated_at's four indexes, not all seven).
   */
  private writeRow(row: SessionRow, version: number, columns: IndexColumns, stored: StoredColumns | undefined): void {
    const values: StoredColumns = {
      key: row.key,
      session_id: row.sessionId,
      agent_id: row.agentId,
      kind: columns.kind,
      label: row.label ?? null,
      spawned_by: row.spawnedBy ?? null,
      parent_session_key: row.parentSessionKey ?? null,
      updated_at: row.updatedAt,
      archived_at: row.archivedAt ?? null,
      version,
      search_text: columns.searchText,
      is_cron_run: columns.isCronRun ? 1 : 0,
      row: JSON.stringify(row),
    };
    if (!stored) {
      this.sql.exec(
        `INSERT INTO sessions (${INDEXED_COLUMNS.join(", ")}) VALUES (${INDEXED_COLUMNS.map(() => "?").join(", ")})`,
        ...INDEXED_COLUMNS.map((name) => values[name]),
      );
      return;
    }
    const changed = INDEXED_COLUMNS.filter((name) => name !== "key" && values[name] !== stored[name]);
    if (changed.length === 0) return;
    this.sql.exec(
      `UPDATE sessions SET ${changed.map((name) => `${name} = ?`).join(", ")} WHERE key = ?`,
      ...changed.map((name) => values[name]),
      row.key,
    );
  }

  private transcript(sessionId: string, via: SqlExec): { deleted: number } | undefined {
    return first<{ deleted: number }>(via, "SELECT deleted FROM session_ids WHERE session_id = ?", sessionId);
  }

  /**
   * A transcript as the index knows it (undefined: new to it), read as written so far: no
   * statement hook runs first (held rows leave no trace in session_ids).
   */
  transcriptAsWritten(sessionId: string): { deleted: number } | undefined {
    return this.transcript(sessionId, this.db);
  }

  /** Whether a transcript belongs to a deleted session (its late updates are dropped). */
  isDeleted(sessionId: string): boolean {
    return this.transcript(sessionId, this.sql)?.deleted === 1;
  }

  /**
   * What a session's update changes here, in one row: its message bytes (the tenant's total
   * moves by the difference) when `messageBytes` is given, and the messages not fanned out
   * before when `messages` is (the high-water mark moves to the last). Returns those messages.
   */
  recordProgress<M extends { seq: number }>(
    key: string,
    sessionId: string,
    messageBytes: number | undefined,
    messages: M[] | undefined,
  ): M[] {
    if (key === "") return messages ?? [];
    const row = first<{ bytes: number; delivered_session_id: string | null; delivered_seq: number }>(
      this.sql,
      "SELECT bytes, delivered_session_id, delivered_seq FROM session_progress WHERE key = ?",
      key,
    );
    const before = {
      bytes: row?.bytes ?? 0,
      sessionId: row?.delivered_session_id ?? null,
      seq: row?.delivered_seq ?? 0,
    };
    const after = before.sessionId === sessionId ? before.seq : 0;
    const fresh = messages?.filter((m) => m.seq > after) ?? [];
    const bytes = messageBytes ?? before.bytes;
    const delivered = fresh.length > 0 ? { sessionId, seq: fresh.at(-1)!.seq } : before;
    if (bytes === before.bytes && delivered === before) return fresh;
    this.sql.exec(
      `INSERT INTO session_progress (key, bytes, delivered_session_id, delivered_seq) VALUES (?, ?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET bytes = excluded.bytes, delivered_session_id = excluded.delivered_session_id,
         delivered_seq = excluded.delivered_seq`,
      key,
      bytes,
      delivered.sessionId,
      delivered.seq,
    );
    if (bytes !== before.bytes) this.addToMessageBytesTotal(bytes - before.bytes);
    return fresh;
  }

  /** Records which session a run id belongs to; returns the owner (the first one wins). */
  recordRun(runId: string, key: string, at: number): string {
    this.sql.exec("INSERT OR IGNORE INTO runs_index (run_id, key, created_at) VALUES (?, ?, ?)", runId, key, at);
    return this.runKey(runId) ?? key;
  }

  runKey(runId: string): string | undefined {
    return first<{ key: string }>(this.sql, "SELECT key FROM runs_index WHERE run_id = ?", runId)?.key;
  }

  /** The message bytes of all the tenant's sessions, as their last updates said. */
  messageBytesTotal(): number {
    return first<{ bytes: number }>(this.sql, "SELECT bytes FROM message_bytes WHERE key = ''")?.bytes ?? 0;
  }

  private addToMessageBytesTotal(delta: number): void {
    this.sql.exec(
      "INSERT INTO message_bytes (key, bytes) VALUES ('', ?) ON CONFLICT(key) DO UPDATE SET bytes = max(0, bytes + excluded.bytes)",
      delta,
    );
  }

  removeSession(key: string): boolean {
    const removed =
      key === ""
        ? null
        : first<{ bytes: number }>(this.sql, "DELETE FROM session_progress WHERE key = ? RETURNING bytes", key);
    if (removed) this.addToMessageBytesTotal(-removed.bytes);
    this.sql.exec("UPDATE session_ids SET deleted = 1 WHERE key = ?", key);
    return this.sql.exec("DELETE FROM sessions WHERE key = ?", key).rowsWritten > 0;
  }

  /** A transcript id that was announced but never became the session's (its updates are dropped). */
  retireSessionId(sessionId: string): void {
    this.sql.exec("UPDATE session_ids SET deleted = 1 WHERE session_id = ?", sessionId);
  }

  /** Drops index rows of keys whose session objects hold no session any more. */
  dropSessions(keys: string[]): void {
    if (keys.length === 0) return;
    this.sql.exec("DELETE FROM sessions WHERE key IN (SELECT value FROM json_each(?))", JSON.stringify(keys));
  }

  /** The tenant's sessions (index rows, archived ones too): read when a new key asks to be created. */
  sessionCount(): number {
    return first<{ n: number }>(this.sql, "SELECT count(*) AS n FROM sessions")?.n ?? 0;
  }

  /** Whether the key has a row (without reading it: a turn asks this). */
  hasSession(key: string): boolean {
    return first(this.sql, "SELECT 1 AS one FROM sessions WHERE key = ?", key) !== undefined;
  }

  session(key: string): SessionRow | undefined {
    const row = first<{ row: string }>(this.sql, "SELECT row FROM sessions WHERE key = ?", key);
    return row && (JSON.parse(row.row) as SessionRow);
  }

  /**
   * Reserves a transcript id for an import into `key`. Answers the live key holding it when
   * that is another session (refused); else takes it, reviving an id deleted here before: an
   * import recreates its session on purpose, unlike a late update of a deleted one.
   */
  claimSessionId(sessionId: string, key: string, agentId: string): string | undefined {
    const known = first<{ key: string; deleted: number }>(
      this.sql,
      "SELECT key, deleted FROM session_ids WHERE session_id = ?",
      sessionId,
    );
    if (known && !known.deleted) return known.key === key ? undefined : known.key;
    if (known) {
      this.sql.exec(
        "UPDATE session_ids SET deleted = 0, key = ?, agent_id = ? WHERE session_id = ?",
        key,
        agentId,
        sessionId,
      );
    }
    return undefined;
  }

  /** Which key a sessionId (current or from before a reset) belongs to. */
  keyForSessionId(sessionId: string): { key: string; agentId: string } | undefined {
    const row = first<{ key: string; agent_id: string }>(
      this.sql,
      "SELECT key, agent_id FROM session_ids WHERE session_id = ? AND deleted = 0",
      sessionId,
    );
    return row && { key: row.key, agentId: row.agent_id };
  }

  keysWithLabel(label: string, agentId?: string): string[] {
    const rows = agentId
      ? all<{ key: string }>(
          this.sql,
          "SELECT key FROM sessions WHERE label = ? AND agent_id = ? ORDER BY updated_at DESC LIMIT 20",
          label,
          agentId,
        )
      : all<{ key: string }>(
          this.sql,
          "SELECT key FROM sessions WHERE label = ? ORDER BY updated_at DESC LIMIT 20",
          label,
        );
    return rows.map((r) => r.key);
  }

  /** Direct children (by spawnedBy or parentSessionKey) of each given key. */
  childrenOf(keys: string[]): Map<string, string[]> {
    const children = new Map<string, string[]>();
    for (let i = 0; i < keys.length; i += MAX_BINDS / 2) {
      const chunk = keys.slice(i, i + MAX_BINDS / 2);
      const marks = chunk.map(() => "?").join(",");
      const rows = all<{ key: string; spawned_by: string | null; parent_session_key: string | null }>(
        this.sql,
        `SELECT key, spawned_by, parent_session_key FROM sessions
         WHERE spawned_by IN (${marks}) OR parent_session_key IN (${marks}) ORDER BY updated_at DESC`,
        ...chunk,
        ...chunk,
      );
      for (const row of rows) {
        for (const parent of new Set([row.spawned_by, row.parent_session_key])) {
          if (!parent) continue;
          const list = children.get(parent) ?? [];
          list.push(row.key);
          children.set(parent, list);
        }
      }
    }
    return children;
  }

  countActiveChildren(key: string): number {
    return (
      first<{ n: number }>(
        this.sql,
        // Active = not archived and not ended (a child that has not started yet counts too).
        "SELECT count(*) AS n FROM sessions WHERE spawned_by = ? AND archived_at IS NULL AND coalesce(row ->> '$.status', 'running') = 'running'",
        key,
      )?.n ?? 0
    );
  }

  /**
   * Rows matching the filter, newest first, at most `filter.limit`: the service's own lookups
   * (a short id, a slug), which look at every row a search needs (bounded by their limit).
   */
  list(filter: ListFilter & { now: number }): SessionRow[] {
    const limit = filter.limit === undefined ? -1 : Math.max(1, Math.floor(filter.limit));
    return this.listPage(filter, {}, limit, -1).rows;
  }

  /**
   * One page in list order (updatedAt descending, key descending): after `start.after` when
   * the previous page's end is known, else after the first `start.skip` matching rows (an
   * offset nobody was answered: sought on the list index, no row bodies read). Rows are read
   * up to `limit` + 1 (the extra one tells whether more exist); with a `search`, at most
   * LIST_SEARCH_SCAN_ROWS rows are looked at per call, and a page cut short by that says so
   * (`scanLimited`, `last` is then the last row looked at, so the next page continues there).
   */
  listPage(
    filter: ListFilter & { now: number },
    start: { after?: ListPosition; skip?: number },
    limit: number,
    searchScanRows = LIST_SEARCH_SCAN_ROWS,
  ): ListPageRows {
    const clause = this.filterClause(filter);
    if (!clause) return { rows: [], more: false, scanLimited: false };
    const hit = hitTest(filter);
    let after = start.after;
    if (!after && start.skip) {
      const sought = this.seek(clause, hit, start.skip);
      if (sought === "end" || sought === "scan-limit") return { rows: [], more: false, scanLimited: sought !== "end" };
      after = sought;
    }
    const { where, binds } = withAfter(clause, after);
    const scanRows = hit.binds.length > 0 ? searchScanRows : limit < 0 ? -1 : limit + 1;
    const cursor = this.sql.exec<{ updated_at: number; key: string; hit: number; row: string | null }>(
      `SELECT updated_at, key, ${hit.sql} AS hit, CASE WHEN ${hit.sql} THEN row END AS row FROM sessions
       WHERE ${where.join(" AND ")} ORDER BY updated_at DESC, key DESC LIMIT ?`,
      ...hit.binds,
      ...hit.binds,
      ...binds,
      scanRows,
    );
    const rows: SessionRow[] = [];
    let last: ListPosition | undefined;
    let looked: ListPosition | undefined;
    let scanned = 0;
    for (const found of cursor) {
      scanned++;
      looked = { updatedAt: found.updated_at, key: found.key };
      if (!found.hit) continue;
      // One row past the page: there is more, and the page ended at `last`.
      if (limit >= 0 && rows.length === limit) return { rows, last, more: true, scanLimited: false };
      rows.push(JSON.parse(found.row!) as SessionRow);
      last = looked;
    }
    if (hit.binds.length === 0 || scanRows < 0 || scanned < scanRows)
      return { rows, last, more: false, scanLimited: false };
    // The search's scan budget ran out before the page filled: the next page continues after
    // the last row looked at. An empty page cannot say "more" (OpenClaw's clients refuse that).
    return { rows, last: looked, more: rows.length > 0, scanLimited: true };
  }

  /**
   * How many rows match after `after` (from the top without it), when at most `budget` rows
   * need to be looked at to know; undefined when more would. Never a count of every row.
   */
  countFrom(filter: ListFilter & { now: number }, after: ListPosition | undefined, budget: number): number | undefined {
    const clause = this.filterClause(filter);
    if (!clause) return 0;
    const hit = hitTest(filter);
    const { where, binds } = withAfter(clause, after);
    const counted = first<{ looked: number; matched: number | null }>(
      this.sql,
      `SELECT count(*) AS looked, sum(hit) AS matched FROM (
         SELECT ${hit.sql} AS hit FROM sessions WHERE ${where.join(" AND ")} LIMIT ?)`,
      ...hit.binds,
      ...binds,
      budget,
    );
    if (!counted || counted.looked >= budget) return undefined;
    return counted.matched ?? 0;
  }

  /** The position of the `skip`-th matching row (the page starts after it). */
  private seek(
    clause: { where: string[]; binds: unknown[] },
    hit: { sql: string; binds: unknown[] },
    skip: number,
  ): ListPosition | "end" | "scan-limit" {
    const searching = hit.binds.length > 0;
    const found = first<{ updated_at: number; key: string }>(
      this.sql,
      `SELECT updated_at, key FROM (
         SELECT updated_at, key, ${hit.sql} AS hit FROM sessions WHERE ${clause.where.join(" AND ")}
         ORDER BY updated_at DESC, key DESC LIMIT ?)
       WHERE hit LIMIT 1 OFFSET ?`,
      ...hit.binds,
      ...clause.binds,
      searching ? LIST_SEARCH_SCAN_ROWS : -1,
      skip - 1,
    );
    if (found) return { updatedAt: found.updated_at, key: found.key };
    if (!searching) return "end";
    const looked = first<{ n: number }>(
      this.sql,
      `SELECT count(*) AS n FROM (SELECT 1 FROM sessions WHERE ${clause.where.join(" AND ")} LIMIT ?)`,
      ...clause.binds,
      LIST_SEARCH_SCAN_ROWS,
    );
    return (looked?.n ?? 0) >= LIST_SEARCH_SCAN_ROWS ? "scan-limit" : "end";
  }

  /** The filter as SQL conditions (its `search` aside: see hitTest); null when nothing can match. */
  private filterClause(filter: ListFilter & { now: number }): { where: string[]; binds: unknown[] } | null {
    const where: string[] = ["is_cron_run = 0"];
    const binds: unknown[] = [];
    if (!filter.includeGlobal) where.push("key <> 'global'");
    if (!filter.includeUnknown) where.push("key <> 'unknown'");
    if (filter.archivedOnly) where.push("archived_at IS NOT NULL");
    else if (!filter.includeArchived) where.push("archived_at IS NULL");
    if (filter.agentId !== undefined) {
      where.push("agent_id = ? AND key NOT IN ('global', 'unknown')");
      binds.push(filter.agentId);
    }
    if (filter.spawnedBy !== undefined) {
      where.push("(spawned_by = ? OR parent_session_key = ?) AND key NOT IN ('global', 'unknown')");
      binds.push(filter.spawnedBy, filter.spawnedBy);
    }
    if (filter.label !== undefined) {
      where.push("label = ?");
      binds.push(filter.label);
    }
    if (filter.activeMinutes !== undefined) {
      where.push("updated_at >= ?");
      binds.push(filter.now - filter.activeMinutes * 60_000);
    }
    if (filter.activeOnly) where.push("row ->> '$.status' = 'running'");
    if (filter.excludeSubagents) where.push("spawned_by IS NULL");
    if (filter.excludeCron) where.push("instr(key, ':cron:') = 0");
    if (filter.kinds && filter.kinds.length > 0) {
      where.push(`kind IN (${filter.kinds.map(() => "?").join(",")})`);
      binds.push(...filter.kinds);
    }
    const scope = filter.scope ?? { kind: "all" };
    if (scope.kind === "self") {
      where.push("key = ?");
      binds.push(scope.key);
    } else if (scope.kind === "tree") {
      // Children as sessions.list {spawnedBy} finds them (spawnedBy or parentSessionKey), of the
      // requester's own agent: cross-agent access needs visibility "all".
      where.push("(key = ? OR ((spawned_by = ? OR parent_session_key = ?) AND agent_id = ?))");
      binds.push(scope.key, scope.key, scope.key, scope.agentId);
    } else if (scope.kind === "agents") {
      if (scope.agentIds.length === 0) return null;
      where.push("agent_id IN (SELECT value FROM json_each(?))");
      binds.push(JSON.stringify(scope.agentIds));
    }
    return { where, binds };
  }

  agentIds(): string[] {
    return all<{ agent_id: string }>(this.sql, "SELECT DISTINCT agent_id FROM sessions").map((r) => r.agent_id);
  }

  /** Keys of live (not deleted) sessions, at most `limit`, and how many there are. */
  liveKeys(limit: number): { keys: string[]; total: number } {
    const total =
      first<{ n: number }>(this.sql, "SELECT count(DISTINCT key) AS n FROM session_ids WHERE deleted = 0")?.n ?? 0;
    const keys = all<{ key: string }>(
      this.sql,
      "SELECT DISTINCT key FROM session_ids WHERE deleted = 0 ORDER BY key LIMIT ?",
      limit,
    ).map((r) => r.key);
    return { keys, total };
  }

  /** One page of indexed keys in key order, after `afterKey` (stable while sessions change). */
  keysAfter(afterKey: string, limit: number): string[] {
    return all<{ key: string }>(
      this.sql,
      "SELECT key FROM sessions WHERE key > ? ORDER BY key LIMIT ?",
      afterKey,
      Math.max(1, Math.floor(limit)),
    ).map((r) => r.key);
  }

  allKeys(): string[] {
    return all<{ key: string }>(this.sql, "SELECT DISTINCT key FROM session_ids WHERE deleted = 0").map((r) => r.key);
  }
}
