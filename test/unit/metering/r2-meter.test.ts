import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ObjectUnits } from "../../../src/contracts/ledger-api";
import { ObjectMeter } from "../../../src/metering/object-meter";

/**
 * An object's R2 calls ride on its hand-offs (src/metering/object-meter.ts `countR2`): counted
 * during an event they are in that event's one hand-off, no call of their own; a call the object
 * makes outside any event (work it left running) is handed off as an event's end would be.
 */

function meter() {
  const handOffs: ObjectUnits[] = [];
  const m = new ObjectMeter(
    "ChannelInboxObject",
    (_day, _class, units) => void handOffs.push(units),
    () => undefined,
    () => Date.now(),
  );
  return { m, handOffs };
}

describe("R2 units on an object's meter", () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.UTC(2026, 10, 29, 12) }));
  afterEach(() => vi.useRealTimers());

  it("a photo's calls during an event are in that event's one hand-off", async () => {
    const { m, handOffs } = meter();
    m.begin("request");
    m.countR2({ classA: 1, classB: 0, storedBytes: 0 }); // the quota's listing
    m.countR2({ classA: 0, classB: 1, storedBytes: 0 }); // the existence check
    m.countR2({ classA: 1, classB: 0, storedBytes: 0 }); // the put …
    m.countR2({ classA: 0, classB: 0, storedBytes: 68 }); // … and its bytes
    await vi.advanceTimersByTimeAsync(0);
    expect(handOffs).toEqual([]);
    m.end();
    await vi.advanceTimersByTimeAsync(0);
    expect(handOffs).toHaveLength(1);
    expect(handOffs[0]).toMatchObject({ requests: 1, r2ClassA: 2, r2ClassB: 1, r2StoredBytes: 68 });
  });

  it("a call outside any event is handed off too (and a deletion's bytes are negative)", async () => {
    const { m, handOffs } = meter();
    m.countR2({ classA: 1, classB: 0, storedBytes: -68 });
    await vi.advanceTimersByTimeAsync(0);
    expect(handOffs).toHaveLength(1);
    expect(handOffs[0]).toMatchObject({ requests: 0, r2ClassA: 1, r2ClassB: 0, r2StoredBytes: -68 });
  });
});
