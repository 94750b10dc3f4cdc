import { NO_UNITS, type ObjectUnits, utcDay } from "./object-units";

/**
 * Counts what one Durable Object instance bills while it runs, in memory, and hands the sum
 * to its tenant's ledger when the object goes idle (no event in flight): a burst of calls (a
 * turn) is one hand-off, and nothing is left in memory when the runtime evicts or hibernates
 * the object. Counting costs no row and no request; the hand-off is one RPC to the ledger
 * (which counts it too). SQL rows come from the statements' own cursors (`rowsRead`,
 * `rowsWritten`: what Cloudflare bills), read when the units are taken, and so does the change
 * of the database's size since the last take (stored bytes, counted from the constructor on, so a
 * new object's tables are in its first burst).
 */

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

  constructor(
    readonly objectClass: string,
    private readonly sink: UnitsSink,
    private readonly keepAlive: (work: Promise<unknown>) => void,
    private readonly now: () => number = Date.now,
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
      return cursor;
    } as SqlStorage["exec"];
  }

  /** An event begins (an RPC call, a fetch, an alarm, a WebSocket message). */
  begin(kind: EventKind): void {
    if (kind === "websocket") this.units.websocketMessages++;
    else this.units.requests++;
    if (this.inFlight++ === 0) this.activeSince = this.now();
  }

  /** An event ended; the last one in flight hands the burst's units to the sink. */
  end(): void {
    if (--this.inFlight > 0) return;
    this.units.activeMs += Math.max(0, this.now() - this.activeSince);
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
    return units;
  }
}

/** The database's size in bytes (pages × page size: what Cloudflare bills as stored; no row is read). */
function databaseBytes(sql: SqlStorage): number {
  return sql.databaseSize;
}
