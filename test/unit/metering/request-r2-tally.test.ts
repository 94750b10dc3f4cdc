import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { R2Units } from "../../../src/metering/metered-bucket";
import { RequestR2Tally } from "../../../src/metering/metered-env";
import { UNITS_HANDOFF_MS } from "../../../src/metering/object-meter";

/**
 * A worker request's R2 units (src/metering/metered-env.ts): handed to the tenant's ledger once
 * the response is made, and what the request calls after that (a streamed export's listings and
 * reads, written after `app.fetch` returned) at most once a window, not one ledger call per R2 call.
 */

function tally() {
  const handOffs: { tenantId: string; units: R2Units }[] = [];
  const kept: Promise<unknown>[] = [];
  const t = new RequestR2Tally(
    async (tenantId, units) => void handOffs.push({ tenantId, units: { ...units } }),
    (work) => kept.push(work),
  );
  return { t, handOffs };
}

const LIST: R2Units = { classA: 1, classB: 0, storedBytes: 0 };
const GET: R2Units = { classA: 0, classB: 1, storedBytes: 0 };

describe("a request's R2 tally", () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.UTC(2026, 10, 29, 12) }));
  afterEach(() => vi.useRealTimers());

  it("the calls before the response are one hand-off per tenant", async () => {
    const { t, handOffs } = tally();
    t.account("a", LIST);
    t.account("a", GET);
    t.account("b", GET);
    t.answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(handOffs).toEqual([
      { tenantId: "a", units: { classA: 1, classB: 1, storedBytes: 0 } },
      { tenantId: "b", units: { classA: 0, classB: 1, storedBytes: 0 } },
    ]);
  });

  it("a streamed body's calls after the response are handed off once a window, every unit kept", async () => {
    const { t, handOffs } = tally();
    t.answer();
    // An export of 10,000 sessions: a listing and a read each, over 3 windows' time.
    for (let session = 0; session < 10_000; session++) {
      t.account("a", LIST);
      t.account("a", GET);
      if (session % 4_000 === 3_999) await vi.advanceTimersByTimeAsync(UNITS_HANDOFF_MS);
    }
    await vi.advanceTimersByTimeAsync(UNITS_HANDOFF_MS);
    expect(handOffs.length).toBeLessThanOrEqual(4);
    const sum = handOffs.reduce((s, h) => ({ classA: s.classA + h.units.classA, classB: s.classB + h.units.classB }), {
      classA: 0,
      classB: 0,
    });
    expect(sum).toEqual({ classA: 10_000, classB: 10_000 });
  });

  it("the check a delete makes before R2 (no units) is no hand-off", async () => {
    const { t, handOffs } = tally();
    t.account("a", { classA: 0, classB: 0, storedBytes: 0 });
    t.answer();
    await vi.advanceTimersByTimeAsync(UNITS_HANDOFF_MS);
    expect(handOffs).toEqual([]);
  });
});
