import type { DailyUnits, ObjectUnits } from "../contracts/ledger-api";
import type { Schema } from "../storage/migrations";
import { all } from "../storage/sql";
import { addUnits, NO_UNITS, utcDay } from "./object-units";

const DAY_MS = 24 * 60 * 60_000;

export const UNITS_SCHEMA: Schema = {
  module: "metering",
  migrations: [
    {
      name: "create units_daily",
      // One row per UTC day, every class's units in it: a hand-off writes one row.
      sql: "CREATE TABLE units_daily (date TEXT PRIMARY KEY, units TEXT NOT NULL) WITHOUT ROWID",
    },
  ],
};

/** Days of units a ledger keeps (a bill is monthly; a year back answers a dispute). */
export const UNITS_RETENTION_DAYS = 400;

/** The class the ledger's own units are kept under. */
export const LEDGER_CLASS = "LedgerObject";

type DayUnits = Record<string, ObjectUnits>;

/**
 * How long hand-offs gather in the ledger's memory before their one row write (issue 48: a
 * turn hands off from four or five bursts, each an upsert of the day's row; a DM from a dozen).
 * A live instance always writes them within this window; only a crash of the ledger inside it
 * loses them (the same trade as the ledger's own units below). Short on purpose: while the
 * timer is pending the ledger cannot hibernate, and Cloudflare bills that wait as duration
 * (0.5 s at 128 MB ≈ $0.0008 per thousand windows, under the rows it saves).
 */
export const UNITS_FLUSH_MS = 500;

/**
 * A tenant's billable units per UTC day and object class, in its ledger's SQLite: one row per
 * day holding every class's sums. Hand-offs are summed in memory and written together at most
 * UNITS_FLUSH_MS later (and before any read, so a reader sees every hand-off that arrived):
 * a burst of hand-offs is one row written. The ledger's own units (what receiving the
 * hand-offs and its other calls cost) are folded into the next write instead of a write of
 * their own: what the ledger did after the last write before it is evicted (at most a few
 * calls) goes unrecorded.
 */
export class UnitsStore {
  /** The day whose retention was last applied (pruning runs once per day a ledger sees). */
  private prunedFor: string | null = null;
  /** The ledger's own units not written yet, per day. */
  private readonly ownPending = new Map<string, ObjectUnits>();
  /** Hand-offs received and not written yet, per day and class. */
  private readonly pending = new Map<string, DayUnits>();
  private flushTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly sql: SqlStorage) {}

  /** Buffers the ledger's own units of a burst (written with the next hand-off). */
  addOwn(date: string, units: ObjectUnits): void {
    this.ownPending.set(date, addUnits(this.ownPending.get(date) ?? NO_UNITS, units));
  }

  /** Adds a hand-off's units; written with the others of its window (see UNITS_FLUSH_MS). */
  add(date: string, objectClass: string, units: ObjectUnits): void {
    const day = this.pending.get(date) ?? {};
    day[objectClass] = addUnits(day[objectClass] ?? NO_UNITS, units);
    this.pending.set(date, day);
    this.flushTimer ??= setTimeout(() => this.flush(), UNITS_FLUSH_MS);
  }

  /** Writes the pending hand-offs (and the ledger's own units of their days): a row per day. */
  flush(): void {
    if (this.flushTimer !== null) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    for (const [date, received] of this.pending) {
      this.pending.delete(date);
      this.write(date, received);
    }
  }

  private write(date: string, received: DayUnits): void {
    if (this.prunedFor !== date) {
      this.prunedFor = date;
      this.prune(utcDay(Date.parse(`${date}T00:00:00Z`) - UNITS_RETENTION_DAYS * DAY_MS));
    }
    const day = this.day(date);
    for (const [objectClass, units] of Object.entries(received)) {
      day[objectClass] = addUnits(day[objectClass] ?? NO_UNITS, units);
    }
    const own = this.ownPending.get(date);
    if (own) {
      day[LEDGER_CLASS] = addUnits(day[LEDGER_CLASS] ?? NO_UNITS, own);
      this.ownPending.delete(date);
    }
    this.sql.exec(
      "INSERT INTO units_daily (date, units) VALUES (?, ?) ON CONFLICT (date) DO UPDATE SET units = excluded.units",
      date,
      JSON.stringify(day),
    );
  }

  /** The rows of the days from `from` to `to` (inclusive), oldest first, a row per class. */
  between(from: string, to: string): DailyUnits[] {
    this.flush();
    const days = all<{ date: string; units: string }>(
      this.sql,
      "SELECT date, units FROM units_daily WHERE date >= ? AND date <= ? ORDER BY date",
      from,
      to,
    );
    return days.flatMap((row) =>
      Object.entries(JSON.parse(row.units) as DayUnits)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([objectClass, units]) => ({ date: row.date, objectClass, units })),
    );
  }

  /** Forgets every day, pending hand-offs included (the tenant is deleted). */
  clear(): void {
    this.pending.clear();
    this.ownPending.clear();
    this.sql.exec("DELETE FROM units_daily");
  }

  /** Forgets the days before `oldestKept`. */
  prune(oldestKept: string): void {
    this.sql.exec("DELETE FROM units_daily WHERE date < ?", oldestKept);
  }

  private day(date: string): DayUnits {
    const row = all<{ units: string }>(this.sql, "SELECT units FROM units_daily WHERE date = ?", date)[0];
    return row ? (JSON.parse(row.units) as DayUnits) : {};
  }
}

/** The sum of several rows' units. */
export function totalUnits(rows: readonly DailyUnits[]): ObjectUnits {
  return rows.reduce((sum, row) => addUnits(sum, row.units), { ...NO_UNITS });
}

const storesByObject = new WeakMap<DurableObjectState, UnitsStore>();

/** The one UnitsStore of a ledger object instance (its meter buffers into it, its RPC methods write it). */
export function unitsStoreOf(ctx: DurableObjectState): UnitsStore {
  let store = storesByObject.get(ctx);
  if (!store) {
    store = new UnitsStore(ctx.storage.sql);
    storesByObject.set(ctx, store);
  }
  return store;
}
