import type { ClaimIntent } from "../contracts/tenant-api";
import type { SessionEntry } from "../protocol/session";
import type { Schema } from "../storage/migrations";
import { first } from "../storage/sql";

/**
 * Sessions that `sessions.patch` / `sessions.create` made and nothing has used yet. They live
 * here and in the index only: no session object, no database, so creating one costs a row
 * in this object instead of a new Durable Object. The session object adopts the entry the
 * first time anything reaches it (`claim`), and the row goes once that object publishes the
 * session itself. OpenClaw likewise writes only a store entry on create; the transcript
 * appears with the first message.
 */
export const PENDING_SESSION_SCHEMAS: Schema[] = [
  {
    module: "pending-sessions",
    migrations: [
      {
        name: "create pending_sessions",
        sql: "CREATE TABLE pending_sessions (key TEXT PRIMARY KEY, entry TEXT, version INTEGER NOT NULL, claimed INTEGER NOT NULL DEFAULT 0)",
      },
    ],
  },
];

/**
 * A pending entry with its version; `claimed` once a session object has asked for it. An
 * entry of null is a placeholder: an object about to write its first entry claimed a key the
 * tenant had no entry for, so a create arriving meanwhile goes to that object, in order.
 */
export type PendingSession = { entry: SessionEntry | null; version: number; claimed: boolean };

type PendingRow = { entry: string | null; version: number; claimed: number };

export class PendingSessionStore {
  constructor(private readonly sql: SqlStorage) {}

  get(key: string): PendingSession | undefined {
    const row = first<PendingRow>(this.sql, "SELECT entry, version, claimed FROM pending_sessions WHERE key = ?", key);
    return row && toPending(row);
  }

  put(key: string, entry: SessionEntry, version: number): void {
    this.sql.exec(
      "INSERT INTO pending_sessions (key, entry, version) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET entry = excluded.entry, version = excluded.version",
      key,
      JSON.stringify(entry),
      version,
    );
  }

  /**
   * Hands the entry to the session object and marks it claimed (later patches go to that
   * object). A claim is answered again until the object publishes, so an object that lost
   * its first write in a crash adopts the same entry. A write finding no entry leaves a
   * placeholder, so a create racing that write is sent to the object instead.
   */
  claim(key: string, intent: ClaimIntent): PendingSession | undefined {
    const row = first<PendingRow>(
      this.sql,
      "UPDATE pending_sessions SET claimed = 1 WHERE key = ? RETURNING entry, version, claimed",
      key,
    );
    if (!row && intent === "write") {
      this.sql.exec("INSERT INTO pending_sessions (key, entry, version, claimed) VALUES (?, NULL, 0, 1)", key);
    }
    return row && toPending(row);
  }

  /** Keys an object claimed to create a session that has no index row yet (they count as sessions). */
  placeholders(): number {
    return first<{ n: number }>(this.sql, "SELECT count(*) AS n FROM pending_sessions WHERE entry IS NULL")?.n ?? 0;
  }

  remove(key: string): boolean {
    return this.sql.exec("DELETE FROM pending_sessions WHERE key = ?", key).rowsWritten > 0;
  }
}

function toPending(row: PendingRow): PendingSession {
  return {
    entry: row.entry === null ? null : (JSON.parse(row.entry) as SessionEntry),
    version: row.version,
    claimed: row.claimed === 1,
  };
}
