import type { Schema } from "../storage/migrations";

/** The timer table a session object multiplexes onto its single alarm (src/timers/timers.ts). */
export const TIMER_SCHEMA: Schema = {
  module: "timers",
  migrations: [
    {
      name: "create timers",
      sql: `CREATE TABLE timers (
        id INTEGER PRIMARY KEY,
        due_at INTEGER NOT NULL,
        kind TEXT NOT NULL,
        ref TEXT NOT NULL,
        UNIQUE (kind, ref)
      )`,
    },
    { name: "index timers_by_due", sql: "CREATE INDEX timers_by_due ON timers (due_at)" },
    // Failed attempts of the timer's work (backoff survives restarts) and whether the work is
    // running now (a lease: the row stays until the work finished, so a crash retries it).
    { name: "add timers.attempts", sql: "ALTER TABLE timers ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0" },
    { name: "add timers.leased", sql: "ALTER TABLE timers ADD COLUMN leased INTEGER NOT NULL DEFAULT 0" },
    // Billing (issue 48): every index entry a write touches is a billed row, and a turn sets,
    // leases and deletes its timers. The table only ever holds live jobs (a handful: a row goes
    // when its job is done), so `min(due_at)` and the due scan read those few rows without an
    // index; dropping it saves a row on every set and lease.
    { name: "drop timers_by_due", sql: "DROP INDEX IF EXISTS timers_by_due" },
    // Billing (issue 48), the same reason: a rowid table with UNIQUE (kind, ref) writes the row
    // and the unique index on every set. Keyed by (kind, ref) itself, a set is one row. A job is
    // named by its kind and ref everywhere (a clear and a set of the same job meet on that key).
    {
      name: "timers keyed by kind and ref",
      sql: `CREATE TABLE timers_by_key (
          kind TEXT NOT NULL,
          ref TEXT NOT NULL,
          due_at INTEGER NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          leased INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (kind, ref)
        ) WITHOUT ROWID;
        INSERT INTO timers_by_key (kind, ref, due_at, attempts, leased) SELECT kind, ref, due_at, attempts, leased FROM timers;
        DROP TABLE timers;
        ALTER TABLE timers_by_key RENAME TO timers`,
    },
  ],
};
