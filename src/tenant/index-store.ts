import type { IndexColumns, SessionRow } from "../model/session-row";
import type { Row, SqlExec } from "../storage/sql";
import { RunsIndexStore } from "./runs-index-store";
import { SessionIdsStore } from "./session-ids-store";
import { SessionProgressStore } from "./session-progress-store";
import { SessionsListStore } from "./sessions-list-store";
import { isNewer, SessionsStore } from "./sessions-store";

/**
 * The tenant's session index (migrations: index-schemas.ts): one store per table, sharing one
 * statement path, and the two writes that span tables (a session's row with its transcript id,
 * a session's removal from every table).
 */
export class IndexStore {
  /** `sessions`: one row per session (derived data, rebuildable from the session objects). */
  readonly sessions: SessionsStore;
  /** The list pages over `sessions`. */
  readonly listing: SessionsListStore;
  /** `session_ids`: sessionId → key for every transcript ever written. */
  readonly sessionIds: SessionIdsStore;
  /** `session_progress` and `message_bytes`: bytes and fan-out high-water mark per session. */
  readonly progress: SessionProgressStore;
  /** `runs_index`: runId → key. */
  readonly runs: RunsIndexStore;
  /** Runs before each statement: held rows (held-index-rows.ts) are written before anything reads the index. */
  private beforeStatement: () => void = () => {};

  constructor(db: SqlStorage) {
    /** Every statement of the stores goes through here, after `beforeStatement`. */
    const sql: SqlExec = {
      exec: <T extends Row>(query: string, ...binds: unknown[]) => {
        this.beforeStatement();
        return db.exec<T>(query, ...binds);
      },
    };
    this.sessions = new SessionsStore(sql);
    this.listing = new SessionsListStore(sql);
    this.sessionIds = new SessionIdsStore(sql, db);
    this.progress = new SessionProgressStore(sql);
    this.runs = new RunsIndexStore(sql);
  }

  /** Sets what runs before each statement of the stores (HeldIndexRows writes its rows there). */
  beforeEachStatement(hook: () => void): void {
    this.beforeStatement = hook;
  }

  /**
   * Upserts a row unless the index already holds a newer one (later updatedAt, or the same
   * updatedAt with a higher version) or the row belongs to a deleted transcript. One read of
   * session_ids decides both "deleted" and whether this transcript is new to the index.
   */
  upsertSession(row: SessionRow, version: number, columns: IndexColumns): "stored" | "stale" | "deleted" {
    const known = this.sessionIds.transcript(row.sessionId);
    if (known?.deleted) return "deleted";
    // A row that is not newer is not written: even a statement that changes no row would make
    // the object's frames wait for a commit (a session re-sends held rows). A transcript new to
    // the index is recorded either way.
    const stored = this.sessions.stored(row.key);
    const newer = !stored || isNewer(row, version, { updatedAt: stored.updated_at, version: stored.version });
    if (newer) this.sessions.writeRow(row, version, columns, stored);
    if (!known) this.sessionIds.record(row.sessionId, row.key, row.agentId);
    return newer ? "stored" : "stale";
  }

  /** Removes a session from every table (its transcripts stay known, as deleted); whether it had a row. */
  removeSession(key: string): boolean {
    this.progress.remove(key);
    this.sessionIds.markKeyDeleted(key);
    return this.sessions.remove(key);
  }
}
