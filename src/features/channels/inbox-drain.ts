/**
 * When the inbox drains next, kept in memory rather than as a timer row (billing, issue 48: the
 * drain's row was set and cleared for every accepted update and again for every debounce window,
 * four of a Telegram DM's rows). Nothing durable is lost with it: an accepted update is its own
 * record (`pending` in channel_updates, committed with the alarm that wakes the object, in one
 * turn), and a new instance that finds an open update drains at once (ChannelInboxObject's
 * start). Only a drain that failed falls back to the timer table, for its backoff.
 */
export class InboxDrainSchedule {
  private dueAt: number | undefined;
  private last: Promise<void> = Promise.resolve();

  /** The drain is due at `at` or earlier (never postponed: an update accepted meanwhile is not kept waiting). */
  at(at: number): void {
    this.dueAt = Math.min(this.dueAt ?? at, at);
  }

  /** When the drain is due (the object's alarm honours it beside its timers), if it is. */
  next(): number | undefined {
    return this.dueAt;
  }

  /**
   * Whether the drain is due at `now`; if so it is no longer scheduled (taken before the alarm
   * re-arms, so the alarm is not set again for the drain it is running).
   */
  takeDue(now: number): boolean {
    if (this.dueAt === undefined || this.dueAt > now) return false;
    this.dueAt = undefined;
    return true;
  }

  /**
   * One drain at a time: a drain asked for while one runs starts after it (the running one may
   * have passed its last look at the pending updates).
   */
  once(drain: () => Promise<void>): Promise<void> {
    const run = this.last.catch(() => undefined).then(drain);
    this.last = run;
    return run;
  }
}
