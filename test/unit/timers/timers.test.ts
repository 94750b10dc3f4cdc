import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { migrate } from "../../../src/storage/migrations";
import { TIMER_SCHEMA } from "../../../src/timers/timer-schema";
import { TIMER_LEASE_MS, TIMER_RETRY_MS, type TimerHandlers, Timers } from "../../../src/timers/timers";
import { MemoryStorage } from "../support/memory-storage";

// The timer table multiplexed onto one alarm (src/timers/timers.ts), over an in-memory SQLite:
// the alarm as the object would set it, the clock faked (Date only; promises run for real).

const T0 = 1_800_000_000_000;
type Kind = "a" | "b";

function table() {
  const storage = new MemoryStorage();
  migrate(storage.asStorage, [TIMER_SCHEMA]);
  return { storage, timers: new Timers<Kind>(storage.asStorage) };
}

/** Lets queued microtasks (armSoon) and settled promises run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function dueOf(storage: MemoryStorage, ref: string): { due_at: number; attempts: number; leased: number } {
  return storage.db.prepare(`SELECT due_at, attempts, leased FROM timers WHERE ref = '${ref}'`).all()[0] as never;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("Timers: many jobs on one alarm", () => {
  it("arms the one alarm at the earliest job with one write, fires the due ones earliest first, then re-arms at the next", async () => {
    const { storage, timers } = table();
    timers.set("a", "late", T0 + 300);
    timers.set("b", "first", T0 + 100);
    timers.set("a", "second", T0 + 200);
    await settle();
    expect(storage.alarm).toBe(T0 + 100);
    expect(storage.alarmWrites).toBe(1);

    const ran: string[] = [];
    const handlers: TimerHandlers<Kind> = {
      a: (ref) => void ran.push(`a:${ref}`),
      b: (ref) => void ran.push(`b:${ref}`),
    };
    vi.setSystemTime(T0 + 250);
    await timers.fire(handlers, T0 + 250);
    expect(ran).toEqual(["b:first", "a:second"]);
    // Done jobs are gone; the alarm now serves the one left.
    expect(timers.refs("a")).toEqual(new Set(["late"]));
    expect(timers.has("b", "first")).toBe(false);
    expect(storage.alarm).toBe(T0 + 300);

    vi.setSystemTime(T0 + 300);
    await timers.fire(handlers, T0 + 300);
    expect(ran).toEqual(["b:first", "a:second", "a:late"]);
    expect(timers.nextDue()).toBeUndefined();
  });

  it("keeps a job its handler rescheduled, and retries a failed one with backoff", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { storage, timers } = table();
    timers.set("a", "again", T0);
    timers.set("b", "fails", T0);
    await timers.fire(
      {
        a: (ref) => timers.set("a", ref, T0 + 1_000),
        b: () => {
          throw new Error("handler failed");
        },
      },
      T0,
    );
    expect(dueOf(storage, "again")).toEqual({ due_at: T0 + 1_000, attempts: 0, leased: 0 });
    expect(dueOf(storage, "fails")).toEqual({ due_at: T0 + TIMER_RETRY_MS, attempts: 1, leased: 0 });
    expect(storage.alarm).toBe(T0 + 1_000);
  });

  it("leaves a job that was running when its instance died leased, and a new instance runs it at once", async () => {
    const { storage, timers } = table();
    timers.set("a", "job", T0);
    let calls = 0;
    const count = () => {
      calls += 1;
    };
    // The first instance dies mid-work: its handler never returns.
    const hang = () => {
      count();
      return new Promise(() => {});
    };
    void timers.fire({ a: hang, b: () => {} }, T0);
    await settle();
    expect(calls).toBe(1);
    expect(dueOf(storage, "job")).toEqual({ due_at: T0 + TIMER_LEASE_MS, attempts: 0, leased: 1 });
    expect(storage.alarm).toBe(T0 + TIMER_LEASE_MS);

    vi.setSystemTime(T0 + 5_000);
    const restarted = new Timers<Kind>(storage.asStorage);
    restarted.recoverLeases(T0 + 5_000);
    await settle();
    expect(storage.alarm).toBe(T0 + 5_000);
    await restarted.fire({ a: count, b: () => {} }, T0 + 5_000);
    expect(calls).toBe(2);
    expect(restarted.has("a", "job")).toBe(false);
  });
});
