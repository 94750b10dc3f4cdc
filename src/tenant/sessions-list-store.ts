import type { ListFilter } from "../contracts/tenant-api";
import type { SessionRow } from "../model/session-row";
import { first, type SqlExec } from "../storage/sql";
import type { ListPosition } from "./list-cursors";

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

/**
 * The list pages over the `sessions` table of the tenant index: every list filter is answered
 * by SQL over indexed columns (sessions_by_updated_key), never by loading the whole table.
 */
export class SessionsListStore {
  constructor(private readonly sql: SqlExec) {}

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
}
