import { all, first, type SqlExec } from "../storage/sql";

/**
 * The `session_ids` table of the tenant index: sessionId → key for every transcript ever
 * written (current or from before a reset), and whether its session was deleted (late updates
 * of a deleted one are dropped).
 */
export class SessionIdsStore {
  constructor(
    /** The index's statements (held rows are written before each). */
    private readonly sql: SqlExec,
    /** The database itself: reads as written so far, no statement hook first. */
    private readonly db: SqlExec,
  ) {}

  /** A transcript as the index knows it (undefined: new to it). */
  transcript(sessionId: string, via: SqlExec = this.sql): { deleted: number } | undefined {
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
    return this.transcript(sessionId)?.deleted === 1;
  }

  /** Records a transcript new to the index. */
  record(sessionId: string, key: string, agentId: string): void {
    this.sql.exec("INSERT INTO session_ids (session_id, key, agent_id) VALUES (?, ?, ?)", sessionId, key, agentId);
  }

  /** Every transcript of the key belongs to a deleted session now. */
  markKeyDeleted(key: string): void {
    this.sql.exec("UPDATE session_ids SET deleted = 1 WHERE key = ?", key);
  }

  /** A transcript id that was announced but never became the session's (its updates are dropped). */
  retireSessionId(sessionId: string): void {
    this.sql.exec("UPDATE session_ids SET deleted = 1 WHERE session_id = ?", sessionId);
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

  allKeys(): string[] {
    return all<{ key: string }>(this.sql, "SELECT DISTINCT key FROM session_ids WHERE deleted = 0").map((r) => r.key);
  }
}
