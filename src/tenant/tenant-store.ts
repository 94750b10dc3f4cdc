import type { TenantConfig } from "../protocol/config";
import type { OperatorScope } from "../protocol/http";
import type { SessionRow } from "../session/session-row";
import { all, first, migrate } from "../storage/sql";
import { toHex } from "../util/encoding";

/**
 * All SQL of a TenantObject: tenant record, token hashes, config and the session index.
 * The index is derived data (rebuildable from the session objects); every list filter
 * is answered by SQL over indexed columns, never by loading the whole table.
 */

const MIGRATIONS = [
  `CREATE TABLE tenant (id INTEGER PRIMARY KEY CHECK (id = 1), tenant_id TEXT NOT NULL, created_at INTEGER NOT NULL)`,
  `CREATE TABLE tokens (token_id TEXT PRIMARY KEY, hash TEXT NOT NULL, scopes TEXT NOT NULL, label TEXT, created_at INTEGER NOT NULL)`,
  `CREATE TABLE config (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL, updated_at INTEGER NOT NULL)`,
  `CREATE TABLE sessions (
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
  `CREATE INDEX sessions_by_updated ON sessions (updated_at DESC)`,
  `CREATE INDEX sessions_by_agent ON sessions (agent_id, updated_at DESC)`,
  `CREATE INDEX sessions_by_label ON sessions (label)`,
  `CREATE INDEX sessions_by_spawner ON sessions (spawned_by, updated_at DESC)`,
  `CREATE INDEX sessions_by_parent ON sessions (parent_session_key)`,
  `CREATE INDEX sessions_by_session_id ON sessions (session_id)`,
  `CREATE TABLE session_ids (session_id TEXT PRIMARY KEY, key TEXT NOT NULL, agent_id TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0)`,
  `CREATE INDEX session_ids_by_key ON session_ids (key)`,
  // Last message seq fanned out per session, so a re-sent update is never delivered twice.
  `CREATE TABLE delivered (key TEXT PRIMARY KEY, session_id TEXT NOT NULL, seq INTEGER NOT NULL)`,
  `CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)`,
  `CREATE TABLE secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at INTEGER NOT NULL)`,
  `CREATE TABLE runs_index (run_id TEXT PRIMARY KEY, key TEXT NOT NULL, created_at INTEGER NOT NULL)`,
] as const;

/** Index columns derived from a row; computed by the caller (they depend on config). */
export type IndexColumns = { kind: string; isCronRun: boolean; searchText: string };

export type ListFilter = {
  limit?: number;
  offset?: number;
  activeMinutes?: number;
  includeGlobal?: boolean;
  includeUnknown?: boolean;
  includeArchived?: boolean;
  archivedOnly?: boolean;
  label?: string;
  agentId?: string;
  spawnedBy?: string;
  search?: string;
  kinds?: string[];
  /** Which sessions the caller may see (decided by the visibility policy). */
  scope?: ListScope;
  now: number;
};

/** Visibility as SQL: one key, a key and its spawned children, some agents, or everything. */
export type ListScope =
  | { kind: "all" }
  | { kind: "self"; key: string }
  | { kind: "tree"; key: string; agentId: string }
  | { kind: "agents"; agentIds: string[] };

/** SQLite's bound-parameter ceiling on Durable Objects is 100; stay under it. */
const MAX_BINDS = 90;

export class TenantStore {
  private readonly sql: SqlStorage;
  /** Config and tokens are read on every request; both are cached and dropped on change. */
  private cachedConfig: TenantConfig | undefined;
  private readonly cachedTokens = new Map<string, { hash: string; scopes: OperatorScope[] } | null>();

  constructor(private readonly storage: DurableObjectStorage) {
    this.sql = storage.sql;
    migrate(storage, MIGRATIONS);
  }

  transaction<T>(fn: () => T): T {
    return this.storage.transactionSync(fn);
  }

  // ── Tenant record ───────────────────────────────────────────────────────

  exists(): boolean {
    return first(this.sql, "SELECT 1 AS one FROM tenant WHERE id = 1") !== undefined;
  }

  create(tenantId: string, at: number): void {
    this.sql.exec("INSERT INTO tenant (id, tenant_id, created_at) VALUES (1, ?, ?)", tenantId, at);
  }

  // ── Tokens ──────────────────────────────────────────────────────────────

  insertToken(tokenId: string, hash: string, scopes: OperatorScope[], label: string | undefined, at: number): void {
    this.sql.exec(
      "INSERT INTO tokens (token_id, hash, scopes, label, created_at) VALUES (?, ?, ?, ?, ?)",
      tokenId,
      hash,
      JSON.stringify(scopes),
      label ?? null,
      at,
    );
  }

  token(tokenId: string): { hash: string; scopes: OperatorScope[] } | undefined {
    const cached = this.cachedTokens.get(tokenId);
    if (cached !== undefined) return cached ?? undefined;
    const row = first<{ hash: string; scopes: string }>(
      this.sql,
      "SELECT hash, scopes FROM tokens WHERE token_id = ?",
      tokenId,
    );
    const token = row ? { hash: row.hash, scopes: JSON.parse(row.scopes) as OperatorScope[] } : null;
    // Unknown ids are not cached: random ids must not grow the map.
    if (token) this.cachedTokens.set(tokenId, token);
    return token ?? undefined;
  }

  deleteToken(tokenId: string): boolean {
    this.cachedTokens.delete(tokenId);
    return this.sql.exec("DELETE FROM tokens WHERE token_id = ?", tokenId).rowsWritten > 0;
  }

  // ── Config ──────────────────────────────────────────────────────────────

  config(): TenantConfig {
    if (this.cachedConfig) return this.cachedConfig;
    const row = first<{ json: string }>(this.sql, "SELECT json FROM config WHERE id = 1");
    this.cachedConfig = row ? (JSON.parse(row.json) as TenantConfig) : {};
    return this.cachedConfig;
  }

  saveConfig(config: TenantConfig, at: number): void {
    this.cachedConfig = config;
    this.sql.exec(
      "INSERT INTO config (id, json, updated_at) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at",
      JSON.stringify(config),
      at,
    );
  }

  // ── Session index ───────────────────────────────────────────────────────

  /**
   * Upserts a row unless the index already holds a newer one (later updatedAt, or the same
   * updatedAt with a higher version) or the row belongs to a deleted transcript. One read of
   * session_ids decides both "deleted" and whether this transcript is new to the index.
   */
  upsertSession(row: SessionRow, version: number, columns: IndexColumns): "stored" | "stale" | "deleted" {
    const known = first<{ deleted: number }>(
      this.sql,
      "SELECT deleted FROM session_ids WHERE session_id = ?",
      row.sessionId,
    );
    if (known?.deleted) return "deleted";
    const written = this.sql.exec(
      `INSERT INTO sessions (key, session_id, agent_id, kind, label, spawned_by, parent_session_key, updated_at, archived_at, version, search_text, is_cron_run, row)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET
         session_id = excluded.session_id, agent_id = excluded.agent_id, kind = excluded.kind, label = excluded.label,
         spawned_by = excluded.spawned_by, parent_session_key = excluded.parent_session_key, updated_at = excluded.updated_at,
         archived_at = excluded.archived_at, version = excluded.version, search_text = excluded.search_text,
         is_cron_run = excluded.is_cron_run, row = excluded.row
       WHERE excluded.updated_at > sessions.updated_at
          OR (excluded.updated_at = sessions.updated_at AND excluded.version >= sessions.version)`,
      row.key,
      row.sessionId,
      row.agentId,
      columns.kind,
      row.label ?? null,
      row.spawnedBy ?? null,
      row.parentSessionKey ?? null,
      row.updatedAt,
      row.archivedAt ?? null,
      version,
      columns.searchText,
      columns.isCronRun ? 1 : 0,
      JSON.stringify(row),
    ).rowsWritten;
    if (!known)
      this.sql.exec(
        "INSERT INTO session_ids (session_id, key, agent_id) VALUES (?, ?, ?)",
        row.sessionId,
        row.key,
        row.agentId,
      );
    return written > 0 ? "stored" : "stale";
  }

  /** Messages of this update not fanned out before; records the new high-water mark. */
  claimUndelivered<M extends { seq: number }>(key: string, sessionId: string, messages: M[]): M[] {
    if (messages.length === 0) return messages;
    const row = first<{ session_id: string; seq: number }>(
      this.sql,
      "SELECT session_id, seq FROM delivered WHERE key = ?",
      key,
    );
    const after = row && row.session_id === sessionId ? row.seq : 0;
    const fresh = messages.filter((m) => m.seq > after);
    if (fresh.length > 0) {
      this.sql.exec(
        "INSERT INTO delivered (key, session_id, seq) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET session_id = excluded.session_id, seq = excluded.seq",
        key,
        sessionId,
        fresh.at(-1)!.seq,
      );
    }
    return fresh;
  }

  /** A named tenant secret, created (random) on first use. */
  secret(name: string, at: number, rotate = false): string {
    const existing = rotate
      ? undefined
      : first<{ value: string }>(this.sql, "SELECT value FROM secrets WHERE name = ?", name)?.value;
    if (existing) return existing;
    const value = toHex(crypto.getRandomValues(new Uint8Array(32)));
    this.sql.exec(
      "INSERT INTO secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value, created_at = excluded.created_at",
      name,
      value,
      at,
    );
    return value;
  }

  /** Records which session a run id belongs to; returns the owner (the first one wins). */
  recordRun(runId: string, key: string, at: number): string {
    this.sql.exec("INSERT OR IGNORE INTO runs_index (run_id, key, created_at) VALUES (?, ?, ?)", runId, key, at);
    return this.runKey(runId) ?? key;
  }

  runKey(runId: string): string | undefined {
    return first<{ key: string }>(this.sql, "SELECT key FROM runs_index WHERE run_id = ?", runId)?.key;
  }

  nextCounter(name: string): number {
    return (
      first<{ value: number }>(
        this.sql,
        "INSERT INTO counters (name, value) VALUES (?, 1) ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value",
        name,
      )?.value ?? 1
    );
  }

  removeSession(key: string): boolean {
    this.sql.exec("DELETE FROM delivered WHERE key = ?", key);
    this.sql.exec("UPDATE session_ids SET deleted = 1 WHERE key = ?", key);
    return this.sql.exec("DELETE FROM sessions WHERE key = ?", key).rowsWritten > 0;
  }

  /** Drops index rows of keys whose session objects hold no session any more. */
  dropSessions(keys: string[]): void {
    if (keys.length === 0) return;
    this.sql.exec("DELETE FROM sessions WHERE key IN (SELECT value FROM json_each(?))", JSON.stringify(keys));
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

  /** Rows matching the filter, newest first. */
  list(filter: ListFilter): SessionRow[] {
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
    if (filter.search) {
      // instr, not LIKE: DO SQLite caps LIKE patterns at 50 bytes.
      where.push("instr(search_text, ?) > 0");
      binds.push(filter.search.toLowerCase());
    }
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
      if (scope.agentIds.length === 0) return [];
      where.push("agent_id IN (SELECT value FROM json_each(?))");
      binds.push(JSON.stringify(scope.agentIds));
    }
    const limit = filter.limit === undefined ? -1 : Math.max(1, Math.floor(filter.limit));
    // The key breaks ties, so offset pages neither repeat nor skip rows of equal updatedAt.
    const rows = all<{ row: string }>(
      this.sql,
      `SELECT row FROM sessions WHERE ${where.join(" AND ")} ORDER BY updated_at DESC, key LIMIT ? OFFSET ?`,
      ...binds,
      limit,
      Math.max(0, Math.floor(filter.offset ?? 0)),
    );
    return rows.map((r) => JSON.parse(r.row) as SessionRow);
  }

  agentIds(): string[] {
    return all<{ agent_id: string }>(this.sql, "SELECT DISTINCT agent_id FROM sessions").map((r) => r.agent_id);
  }

  tenantId(): string | undefined {
    return first<{ tenant_id: string }>(this.sql, "SELECT tenant_id FROM tenant WHERE id = 1")?.tenant_id;
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
