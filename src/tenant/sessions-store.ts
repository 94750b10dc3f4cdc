import type { IndexColumns, SessionRow } from "../model/session-row";
import { all, first, type SqlExec } from "../storage/sql";

/** The index's own ordering: a later updatedAt, or the same one with a higher version. */
export function isNewer(row: SessionRow, version: number, than: { updatedAt: number; version: number }): boolean {
  return row.updatedAt > than.updatedAt || (row.updatedAt === than.updatedAt && version > than.version);
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
export type StoredColumns = Record<(typeof INDEXED_COLUMNS)[number], string | number | null> & {
  updated_at: number;
  version: number;
};

/**
 * The `sessions` table of the tenant index: one row per session (derived data, rebuildable
 * from the session objects), written only when newer, and the lookups of single rows, labels
 * and children. The list pages over the same table are sessions-list-store.ts.
 */
export class SessionsStore {
  constructor(private readonly sql: SqlExec) {}

  /** The row as stored, every indexed column (undefined: the key has none). */
  stored(key: string): StoredColumns | undefined {
    return first<StoredColumns>(this.sql, `SELECT ${INDEXED_COLUMNS.join(", ")} FROM sessions WHERE key = ?`, key);
  }

  /**
   * The row's write; the caller decided it is newer than the stored one. An existing row gets
   * only the columns that changed: SQLite rewrites every index that names a column of the SET
   * list, whatever its value, and each index entry is a billed row written (a turn's update
   * touches updated_at's four indexes, not all seven).
   */
  writeRow(row: SessionRow, version: number, columns: IndexColumns, stored: StoredColumns | undefined): void {
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

  /** Removes the key's row; whether there was one. */
  remove(key: string): boolean {
    return this.sql.exec("DELETE FROM sessions WHERE key = ?", key).rowsWritten > 0;
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

  agentIds(): string[] {
    return all<{ agent_id: string }>(this.sql, "SELECT DISTINCT agent_id FROM sessions").map((r) => r.agent_id);
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
}
