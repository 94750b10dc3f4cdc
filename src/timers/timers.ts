import { all, first } from "../storage/sql";

/**
 * Every durable job of a session object is a row in one timer table, multiplexed onto the
 * object's single alarm: run timeouts and watchdogs, delivery attempts, flow steps, spawn
 * announce and archive. A job runs at least once and its effect happens once (each handler is
 * idempotent by its own keys):
 * - before the work, the row is leased (pushed out by TIMER_LEASE_MS, marked leased) in the
 *   same turn, so a crash mid-work leaves the row, and the alarm, behind;
 * - after the work, the row is removed only if the handler did not reschedule it;
 * - a failed handler is retried with backoff (the attempt count is stored, so it survives a restart);
 * - a new instance of the object un-leases what a dead one left (due at once).
 */

export type TimerKind =
  | "run-release"
  | "run-timeout"
  | "run-watchdog"
  | "delivery"
  | "flow"
  | "spawn-announce"
  | "spawn-archive";

/** A due timer's work; it may reschedule its own timer with `set`. */
export type TimerHandler = (ref: string, now: number) => Promise<unknown> | unknown;
/** One handler per kind; another object's table (the scheduler's) has its own kinds. */
export type TimerHandlers<K extends string = TimerKind> = Record<K, TimerHandler>;

/** What a module needs to schedule its jobs. */
export type TimerPort<K extends string = TimerKind> = {
  set(kind: K, ref: string, dueAt: number): void;
  clear(kind: K, ref: string): void;
  has(kind: K, ref: string): boolean;
  /** Refs of one kind that have a timer (to reconcile jobs that lost theirs). */
  refs(kind: K): Set<string>;
};

/** How long a running job's row is pushed out; a live instance never waits this long for it. */
export const TIMER_LEASE_MS = 60_000;
/** Retry delay of a failed handler, doubling per attempt up to TIMER_RETRY_MAX_MS. */
export const TIMER_RETRY_MS = 5_000;
export const TIMER_RETRY_MAX_MS = 5 * 60_000;
/** Timers handled per alarm (the rest re-arm the alarm at once). */
const TIMERS_PER_ALARM = 100;

type TimerRow = { due_at: number; kind: string; ref: string; attempts: number };
export type Timer = { dueAt: number; kind: TimerKind; ref: string; attempts: number };

/** A timer's identity: its kind and ref (the table's key). */
const timerKey = (row: { kind: string; ref: string }) => `${row.kind}\u0000${row.ref}`;

export class Timers<K extends string = TimerKind> implements TimerPort<K> {
  private readonly sql: SqlStorage;
  /** When the alarm is known to be set (null = none or unknown: the next arm writes it). */
  private alarmAt: number | null = null;
  private armQueued = false;
  /** Timers whose work runs in this instance now (by `timerKey`). */
  private readonly running = new Set<string>();

  constructor(
    private readonly storage: DurableObjectStorage,
    /** Another due time the alarm must honour (the publisher's retry), if any. */
    private readonly extraDue: () => number | undefined = () => undefined,
  ) {
    this.sql = storage.sql;
  }

  /** Schedules (or reschedules) a job; the alarm is armed in the same turn. */
  set(kind: K, ref: string, dueAt: number): void {
    this.sql.exec(
      `INSERT INTO timers (due_at, kind, ref) VALUES (?, ?, ?)
       ON CONFLICT(kind, ref) DO UPDATE SET due_at = excluded.due_at, leased = 0, attempts = 0`,
      dueAt,
      kind,
      ref,
    );
    this.armSoon();
  }

  clear(kind: K, ref: string): void {
    this.sql.exec("DELETE FROM timers WHERE kind = ? AND ref = ?", kind, ref);
  }

  /** Removes every job about `ref` (a run that ended). */
  clearRef(ref: string): void {
    this.sql.exec("DELETE FROM timers WHERE ref = ?", ref);
  }

  has(kind: K, ref: string): boolean {
    return first(this.sql, "SELECT 1 AS one FROM timers WHERE kind = ? AND ref = ?", kind, ref) !== undefined;
  }

  refs(kind: K): Set<string> {
    return new Set(all<{ ref: string }>(this.sql, "SELECT ref FROM timers WHERE kind = ?", kind).map((r) => r.ref));
  }

  /** A new instance: jobs a dead instance was running are due again now. */
  recoverLeases(now = Date.now()): void {
    this.sql.exec("UPDATE timers SET leased = 0, due_at = min(due_at, ?) WHERE leased = 1", now);
    this.armSoon();
  }

  /**
   * The alarm body: runs every due job through its handler, leasing each first. Returns after
   * all of them finished (or failed and were rescheduled).
   */
  async fire(handlers: TimerHandlers<K>, now = Date.now()): Promise<void> {
    this.alarmAt = null;
    const due = all<TimerRow>(
      this.sql,
      "SELECT due_at, kind, ref, attempts FROM timers WHERE due_at <= ? ORDER BY due_at LIMIT ?",
      now,
      TIMERS_PER_ALARM,
    ).filter((row) => !this.running.has(timerKey(row)));
    for (const row of due) {
      // The lease is written before any await: a crash from here on leaves the job behind.
      this.sql.exec(
        "UPDATE timers SET due_at = ?, leased = 1 WHERE kind = ? AND ref = ?",
        now + TIMER_LEASE_MS,
        row.kind,
        row.ref,
      );
    }
    await this.arm();
    // Jobs are independent: a flow waiting on a step does not hold up a delivery.
    await Promise.all(due.map((row) => this.runOne(handlers, row)));
    await this.arm();
  }

  private async runOne(handlers: TimerHandlers<K>, row: TimerRow): Promise<void> {
    const handler = handlers[row.kind as K];
    const key = timerKey(row);
    this.running.add(key);
    try {
      if (handler) await handler(row.ref, Date.now());
      // Done, unless the handler rescheduled its own timer (then the row is no longer leased).
      this.sql.exec("DELETE FROM timers WHERE kind = ? AND ref = ? AND leased = 1", row.kind, row.ref);
    } catch (error) {
      const attempts = row.attempts + 1;
      const backoffMs = Math.min(TIMER_RETRY_MAX_MS, TIMER_RETRY_MS * 2 ** (attempts - 1));
      console.error(`timer ${row.kind}/${row.ref} failed (attempt ${attempts}); retrying in ${backoffMs} ms`, error);
      this.sql.exec(
        "UPDATE timers SET due_at = ?, leased = 0, attempts = ? WHERE kind = ? AND ref = ? AND leased = 1",
        Date.now() + backoffMs,
        attempts,
        row.kind,
        row.ref,
      );
    } finally {
      this.running.delete(key);
    }
  }

  nextDue(): number | undefined {
    return first<{ due: number | null }>(this.sql, "SELECT min(due_at) AS due FROM timers")?.due ?? undefined;
  }

  /**
   * Sets the one alarm to the earliest timer (or the extra due time). An alarm already set
   * earlier is kept (it re-arms when it fires), so a burst of writes costs one alarm write.
   */
  arm(): Promise<void> {
    const due = [this.nextDue(), this.extraDue()].filter((t): t is number => t !== undefined);
    if (due.length === 0) return Promise.resolve();
    const desired = Math.min(...due);
    if (this.alarmAt !== null && this.alarmAt <= desired && this.alarmAt > Date.now()) return Promise.resolve();
    this.alarmAt = desired;
    return this.storage.setAlarm(desired).catch((error) => {
      this.alarmAt = null;
      console.error("timers: alarm write failed", error);
    });
  }

  /** Arms after the current synchronous block (a transaction may be open now): still the same turn. */
  armSoon(): void {
    if (this.armQueued) return;
    this.armQueued = true;
    queueMicrotask(() => {
      this.armQueued = false;
      void this.arm();
    });
  }

  /** The database was wiped (session deleted): nothing is armed any more. */
  forget(): void {
    this.alarmAt = null;
    this.running.clear();
  }
}
