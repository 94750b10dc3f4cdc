import { describe, expect, it } from "vitest";
import type { DailyUnits } from "../../../src/contracts/ledger-api";
import { usageByDay } from "../../../src/domain/tenant-usage";
import { costOfR2StorageDayUsd } from "../../../src/ledger/cloudflare-prices";
import { tenantOfKey } from "../../../src/metering/metered-bucket";
import { NO_UNITS } from "../../../src/metering/object-units";

/**
 * The R2 half of the bill (issue 48) in the usage's arithmetic: R2 operations priced with the
 * day's other units, and R2 storage billed per day at the tenant's level (bytes put minus deleted
 * since R2 was metered, rows before the range included), each day a 30th of a GB-month of its
 * peak, idle days too.
 */

const row = (date: string, objectClass: string, units: Partial<typeof NO_UNITS>): DailyUnits => ({
  date,
  objectClass,
  units: { ...NO_UNITS, ...units },
});

describe("usageByDay: R2", () => {
  it("starts the range at the level stored before it, bills every day up to today, a day's peak when it grew or shrank", () => {
    const rows = [
      row("2026-10-20", "ChannelInboxObject", { r2ClassA: 2, r2ClassB: 1, r2StoredBytes: 3e9 }),
      row("2026-11-02", "SessionObject", { r2ClassA: 1, r2StoredBytes: -2e9 }),
      row("2026-11-04", "Worker", { r2ClassA: 3, r2StoredBytes: 1e9 }),
    ];
    const usage = usageByDay("t", { from: "2026-11-01", to: "2026-11-30" }, rows, new Map(), "2026-11-05");
    // The October row only sets the level; November 1–5 are billed (the 6th onwards is not yet).
    expect(usage.days.map((d) => [d.date, d.r2StoredBytes])).toEqual([
      ["2026-11-01", 3e9],
      ["2026-11-02", 1e9],
      ["2026-11-03", 1e9],
      ["2026-11-04", 2e9],
      ["2026-11-05", 2e9],
    ]);
    // The 2nd shrank from 3 GB: its peak is the 3 GB it started with; the 4th grew to 2 GB.
    const peaks = [3e9, 3e9, 1e9, 2e9, 2e9];
    expect(usage.days.map((d) => d.r2StorageUsd)).toEqual(peaks.map(costOfR2StorageDayUsd));
    expect(usage.totals.r2StoredBytes).toBe(2e9);
    expect(usage.totals.units.r2ClassA).toBe(4);
    // Operations at $4.50 per million Class A; storage at $0.015 per GB-month (11 GB-days / 30).
    const storageUsd = (11 / 30) * 0.015;
    expect(usage.totals.r2StorageUsd).toBeCloseTo(storageUsd, 12);
    const day4 = usage.days.find((d) => d.date === "2026-11-04")!;
    expect(day4.estimateUsd).toBeCloseTo((3 * 4.5) / 1e6 + costOfR2StorageDayUsd(2e9), 15);
  });

  it("adds no day for a tenant that keeps nothing in R2", () => {
    const rows = [row("2026-11-03", "SessionObject", { requests: 4 })];
    const usage = usageByDay("t", { from: "2026-11-01", to: "2026-11-30" }, rows, new Map(), "2026-11-10");
    expect(usage.days.map((d) => d.date)).toEqual(["2026-11-03"]);
    expect(usage.totals.r2StorageUsd).toBe(0);
  });
});

describe("tenantOfKey", () => {
  it("is what precedes the key's first slash; a key under no tenant is refused", () => {
    expect(tenantOfKey("acme/agent:main:main/media/inbound/x.jpg")).toBe("acme");
    expect(tenantOfKey("acme/")).toBe("acme");
    expect(() => tenantOfKey("stray.txt")).toThrow(/outside any tenant's prefix/);
    expect(() => tenantOfKey("/x")).toThrow(/outside any tenant's prefix/);
  });
});
