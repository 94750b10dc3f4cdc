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
  ],
};
