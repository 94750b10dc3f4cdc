import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ObjectUnits } from "../../../src/contracts/ledger-api";
import { ObjectMeter, UNITS_HANDOFF_MS } from "../../../src/metering/object-meter";

/** A meter whose sink keeps every hand-off, on vitest's clock. */
function meter() {
  const handOffs: ObjectUnits[] = [];
  const kept: Promise<unknown>[] = [];
  const m = new ObjectMeter(
    "SessionObject",
    (_day, _class, units) => void handOffs.push(units),
    (work) => kept.push(work),
    () => Date.now(),
  );
  const settle = () => Promise.all(kept);
  return { m, handOffs, settle };
}

/** One event of `ms` (begin, the clock moves, end). */
function event(m: ObjectMeter, ms: number) {
  m.begin("request");
  vi.advanceTimersByTime(ms);
  m.end();
}

describe("an object's hand-offs to its ledger (src/metering/object-meter.ts)", () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.UTC(2026, 10, 29, 12) }));
  afterEach(() => vi.useRealTimers());

  it("an object idle between many calls hands off once a window, every unit kept", async () => {
    const { m, handOffs } = meter();
    // A busy tenant or inbox object during a burst: 40 calls of 5 ms, idle 20 ms between them.
    for (let i = 0; i < 40; i++) {
      event(m, 5);
      vi.advanceTimersByTime(20);
    }
    // 40 calls over 1 s: the first idle moment hands off, the rest gather for the window's end.
    await vi.advanceTimersByTimeAsync(UNITS_HANDOFF_MS);
    expect(handOffs.length).toBe(2);
    const sum = handOffs.reduce((a, u) => ({ requests: a.requests + u.requests, activeMs: a.activeMs + u.activeMs }), {
      requests: 0,
      activeMs: 0,
    });
    expect(sum).toEqual({ requests: 40, activeMs: 40 * 5 });
  });

  it("hands off at once when the last hand-off is a window old, and never while an event runs", async () => {
    const { m, handOffs } = meter();
    event(m, 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(handOffs.length).toBe(1);
    vi.advanceTimersByTime(UNITS_HANDOFF_MS);
    event(m, 1);
    await vi.advanceTimersByTimeAsync(0);
    expect(handOffs.length).toBe(2);
    // Inside the window: held; the timer finds the object busy and leaves it to the event's end.
    event(m, 1);
    m.begin("request");
    await vi.advanceTimersByTimeAsync(UNITS_HANDOFF_MS);
    expect(handOffs.length).toBe(2);
    m.end();
    await vi.advanceTimersByTimeAsync(0);
    expect(handOffs.length).toBe(3);
    expect(handOffs[2]!.requests).toBe(2);
  });
});
