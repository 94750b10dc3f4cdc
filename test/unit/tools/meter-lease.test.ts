import { describe, expect, it } from "vitest";
import { RateLimiter } from "../../../src/tenant/minute-meters";
import { leaseSize, MAX_LEASE_CALLS, MeterLeases } from "../../../src/tools/meter-lease";

const NOW = 1_800_000_000_000;

/** One tenant object's limiter, counting the round trips isolates make to it. */
function tenant(now: () => number) {
  const limiter = new RateLimiter();
  const calls = { count: 0 };
  const take = (perMinute: number) => async (want: number) => {
    calls.count++;
    return limiter.admit("tools", perMinute, want, now());
  };
  return { take, calls };
}

describe("tool-call meter leased per isolate (meter-lease)", () => {
  it("takes a lease per round trip: small limits stay exact, large ones cost one trip per 20 calls", () => {
    expect(leaseSize(1)).toBe(1);
    expect(leaseSize(60)).toBe(1);
    expect(leaseSize(500)).toBe(10);
    expect(leaseSize(6_000)).toBe(MAX_LEASE_CALLS);
    expect(leaseSize(1e9)).toBe(MAX_LEASE_CALLS);
  });

  it("answers most calls without the tenant and never admits more than the limit across isolates", async () => {
    let now = NOW;
    const { take, calls } = tenant(() => now);
    const isolates = [new MeterLeases(), new MeterLeases(), new MeterLeases()];
    const perMinute = 1_000;
    let admitted = 0;
    let refusedWith = 0;
    for (let i = 0; i < 1_200; i++) {
      const retryAfterMs = await isolates[i % 3]!.admit("t:tools", perMinute, take(perMinute), now);
      if (retryAfterMs === 0) admitted++;
      else refusedWith = retryAfterMs;
    }
    expect(admitted).toBeLessThanOrEqual(perMinute);
    // At most (lease − 1) per isolate lost to leases left unspent.
    expect(admitted).toBeGreaterThanOrEqual(perMinute - 3 * (leaseSize(perMinute) - 1));
    expect(refusedWith).toBe(60_000);
    // 1,000 calls in leases of 20, plus the refused calls' trips (each asks the tenant).
    expect(calls.count).toBeLessThanOrEqual(Math.ceil(perMinute / leaseSize(perMinute)) + 3 + 200);
    // The next window: admitted again, with a fresh lease.
    now += 60_000;
    expect(await isolates[0]!.admit("t:tools", perMinute, take(perMinute), now)).toBe(0);
  });

  it("a limit of 3 refuses the 4th call with the time to the window's end", async () => {
    let now = NOW;
    const { take, calls } = tenant(() => now);
    const leases = new MeterLeases();
    for (let i = 0; i < 3; i++) expect(await leases.admit("t:tools", 3, take(3), now)).toBe(0);
    now += 10_000;
    expect(await leases.admit("t:tools", 3, take(3), now)).toBe(50_000);
    expect(calls.count).toBe(4);
  });

  it("a lease does not outlive the tenant's window, and a changed limit starts a fresh one", async () => {
    let now = NOW;
    const { take, calls } = tenant(() => now);
    const leases = new MeterLeases();
    expect(await leases.admit("t:tools", 6_000, take(6_000), now)).toBe(0);
    expect(calls.count).toBe(1);
    expect(await leases.admit("t:tools", 6_000, take(6_000), now)).toBe(0);
    expect(calls.count).toBe(1);
    now += 60_000;
    expect(await leases.admit("t:tools", 6_000, take(6_000), now)).toBe(0);
    expect(calls.count).toBe(2);
    expect(await leases.admit("t:tools", 100, take(100), now)).toBe(0);
    expect(calls.count).toBe(3);
  });
});
