import type { Schema } from "../storage/migrations";

/**
 * The tenant index's migrations: module "index" (the sessions, session_ids, session_progress
 * and message_bytes tables, whose later steps read each other) and module "runs" (runs_index).
 * Frozen as released: a step is never edited, only added.
 */
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
