import type { R2Units } from "./metered-bucket";
import { NO_UNITS, type ObjectUnits, utcDay } from "./object-units";
import { logStatementRows, type StatementTally } from "./statement-tally";

/**
 * Counts what one Durable Object instance bills while it runs, in memory, and hands the sum
 * to its tenant's ledger when the object goes idle (no event in flight), at most once per
 * UNITS_HANDOFF_MS: a burst of calls (a turn) is one hand-off, and an object that keeps going
 * idle between calls (the tenant's and the inbox's during a burst of chats) hands off once a
 * window. Counting costs no row and no request; the hand-off is one RPC to the ledger (which
 * counts it too). SQL rows come from the statements' own cursors (`rowsRead`, `rowsWritten`:
 * what Cloudflare bills), read when the units are taken, and so does the change of the
 * database's size since the last take (stored bytes, counted from the constructor on, so a new
 * object's tables are in its first burst).
 */

/**
 * The least time between two hand-offs of one object. Each idle moment was an RPC to the
 * ledger before: 18 of a Telegram DM's 41 object requests at a 40-chat burst (docs/channels.md,
 * "A busy bot"). Units of an idle object wait at most this long (a pending timer: the object
 * does not hibernate meanwhile), and an eviction inside the window loses them, as a crash of
 * the ledger inside its own write window (UNITS_FLUSH_MS) already could.
 */
export const UNITS_HANDOFF_MS = 1_000;

/** What the meter does with a finished burst's units (the ledger RPC, or the ledger's own store). */
export type UnitsSink = (day: string, objectClass: string, units: ObjectUnits) => Promise<void> | void;

export type EventKind = "request" | "websocket";

export class ObjectMeter {
  private units: ObjectUnits = { ...NO_UNITS };
  private cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
  private inFlight = 0;
  private activeSince = 0;
  private sql: SqlStorage | null = null;
  /** The database size when the units were last taken (bytes). */
  private sizeTaken = 0;
  /** When the last hand-off left (−∞: the first idle moment hands off at once). */
  private handedOffAt = Number.NEGATIVE_INFINITY;
  private handOffTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    readonly objectClass: string,
    private readonly sink: UnitsSink,
    private readonly keepAlive: (work: Promise<unknown>) => void,
    private readonly now: () => number = Date.now,
    /** Rows per statement, logged with each take (the bench's `--by-statement`); null: not kept. */
    private readonly tally: StatementTally | null = null,
  ) {}

  /**
   * Counts the rows of every statement run on `sql` from now on (its `exec` is replaced on this
   * instance; the stores keep calling `sql.exec` as before).
   */
  countRows(sql: SqlStorage): void {
    const exec = sql.exec;
    const meter = this;
    this.sql = sql;
    this.sizeTaken = databaseBytes(sql);
    sql.exec = function countedExec(this: SqlStorage, ...args: Parameters<SqlStorage["exec"]>) {
      const cursor = exec.apply(this, args);
      meter.cursors.push(cursor);
      meter.tally?.note(args[0], cursor);
      return cursor;
    } as SqlStorage["exec"];
  }

  /** An event begins (an RPC call, a fetch, an alarm, a WebSocket message). */
  begin(kind: EventKind): void {
    if (kind === "websocket") this.units.websocketMessages++;
    else this.units.requests++;
    if (this.inFlight++ === 0) this.activeSince = this.now();
  }

  /**
   * R2 calls the object made on its tenant's files (metered-bucket.ts): they ride on the burst's
   * hand-off. A call outside any event (work the object left running) hands off as an event's end would.
   */
  countR2(r2: R2Units): void {
    this.units.r2ClassA += r2.classA;
    this.units.r2ClassB += r2.classB;
    this.units.r2StoredBytes += r2.storedBytes;
    if (this.inFlight === 0) this.idle();
  }

  /**
   * An event ended; the last one in flight hands the units to the sink, or, inside the window
   * of the last hand-off, leaves them for a hand-off at the window's end.
   */
  end(): void {
    if (--this.inFlight > 0) return;
    this.units.activeMs += Math.max(0, this.now() - this.activeSince);
    this.idle();
  }

  private idle(): void {
    const waitMs = this.handedOffAt + UNITS_HANDOFF_MS - this.now();
    if (waitMs <= 0) {
      this.handOff();
      return;
    }
    if (this.handOffTimer !== null) return;
    this.keepAlive(
      new Promise<void>((resolve) => {
        this.handOffTimer = setTimeout(() => {
          this.handOffTimer = null;
          // Busy again: that event's end hands off (the window has passed by then).
          if (this.inFlight === 0) this.handOff();
          resolve();
        }, waitMs);
      }),
    );
  }

  private handOff(): void {
    this.handedOffAt = this.now();
    const units = this.take();
    const sent = Promise.resolve()
      .then(() => this.sink(utcDay(this.now()), this.objectClass, units))
      .catch((error: unknown) => console.error(`metering: ${this.objectClass} units not recorded`, error));
    this.keepAlive(sent);
  }

  /** The units counted since the last take (rows summed from the cursors), and a fresh start. */
  take(): ObjectUnits {
    const units = this.units;
    for (const cursor of this.cursors) {
      units.rowsRead += cursor.rowsRead;
      units.rowsWritten += cursor.rowsWritten;
    }
    this.cursors = [];
    if (this.sql) {
      const size = databaseBytes(this.sql);
      units.storedBytes += size - this.sizeTaken;
      this.sizeTaken = size;
    }
    this.units = { ...NO_UNITS };
    if (this.tally) logStatementRows(this.objectClass, this.tally.take());
    return units;
  }
}

/** The database's size in bytes (pages × page size: what Cloudflare bills as stored; no row is read). */
function databaseBytes(sql: SqlStorage): number {
  return sql.databaseSize;
}
