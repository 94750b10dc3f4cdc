import type { DailyUnits, ObjectUnits } from "../contracts/ledger-api";
import type { Schema } from "../storage/migrations";
import { all } from "../storage/sql";
import { addUnits, NO_UNITS, utcDay } from "./object-units";

const DAY_MS = 24 * 60 * 60_000;

/**
 * A tenant's billable units per UTC day and object class, in its ledger's SQLite: one row per
 * (day, class), added to on every hand-off. Kept UNITS_RETENTION_DAYS, so the table holds at
 * most that many days × the seven classes and the Worker.
 */

export const UNITS_SCHEMA: Schema = {
  module: "metering",
  migrations: [
    {
      name: "create units_daily",
      sql: `CREATE TABLE units_daily (
        date TEXT NOT NULL,
        object_class TEXT NOT NULL,
        requests INTEGER NOT NULL DEFAULT 0,
        websocket_messages INTEGER NOT NULL DEFAULT 0,
        active_ms INTEGER NOT NULL DEFAULT 0,
        rows_read INTEGER NOT NULL DEFAULT 0,
        rows_written INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (date, object_class)
      ) WITHOUT ROWID`,
    },
  ],
};

/** Days of units a ledger keeps (a bill is monthly; a year back answers a dispute). */
export const UNITS_RETENTION_DAYS = 400;

type UnitsRow = {
  date: string;
  object_class: string;
  requests: number;
  websocket_messages: number;
  active_ms: number;
  rows_read: number;
  rows_written: number;
};

export class UnitsStore {
  /** The day whose retention was last applied (pruning runs once per day a ledger sees). */
  private prunedFor: string | null = null;

  constructor(private readonly sql: SqlStorage) {}

  add(date: string, objectClass: string, units: ObjectUnits): void {
    if (this.prunedFor !== date) {
      this.prunedFor = date;
      this.prune(utcDay(Date.parse(`${date}T00:00:00Z`) - UNITS_RETENTION_DAYS * DAY_MS));
    }
    this.sql.exec(
      `INSERT INTO units_daily (date, object_class, requests, websocket_messages, active_ms, rows_read, rows_written)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (date, object_class) DO UPDATE SET
         requests = requests + excluded.requests,
         websocket_messages = websocket_messages + excluded.websocket_messages,
         active_ms = active_ms + excluded.active_ms,
         rows_read = rows_read + excluded.rows_read,
         rows_written = rows_written + excluded.rows_written`,
      date,
      objectClass,
      units.requests,
      units.websocketMessages,
      Math.round(units.activeMs),
      units.rowsRead,
      units.rowsWritten,
    );
  }

  /** The rows of the days from `from` to `to` (inclusive), oldest first. */
  between(from: string, to: string): DailyUnits[] {
    return all<UnitsRow>(
      this.sql,
      "SELECT * FROM units_daily WHERE date >= ? AND date <= ? ORDER BY date, object_class",
      from,
      to,
    ).map((row) => ({
      date: row.date,
      objectClass: row.object_class,
      units: {
        requests: row.requests,
        websocketMessages: row.websocket_messages,
        activeMs: row.active_ms,
        rowsRead: row.rows_read,
        rowsWritten: row.rows_written,
      },
    }));
  }

  /** Forgets the days before `oldestKept`. */
  prune(oldestKept: string): void {
    this.sql.exec("DELETE FROM units_daily WHERE date < ?", oldestKept);
  }
}

/** The sum of several rows' units. */
export function totalUnits(rows: readonly DailyUnits[]): ObjectUnits {
  return rows.reduce((sum, row) => addUnits(sum, row.units), { ...NO_UNITS });
}
