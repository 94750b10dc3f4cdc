import { describe, expect, it } from "vitest";
import { costOfR2StorageDayUsd, costOfUnitsUsd } from "../../../src/ledger/cloudflare-prices";

const none = {
  workerRequests: 0,
  workerCpuMs: 0,
  objectRequests: 0,
  objectActiveMs: 0,
  sqliteRowsRead: 0,
  sqliteRowsWritten: 0,
  r2ClassA: 0,
  r2ClassB: 0,
};

describe("costOfUnitsUsd", () => {
  it("prices nothing at zero", () => {
    expect(costOfUnitsUsd(none)).toBe(0);
  });
  it("prices a million of each unit at the published rate", () => {
    expect(costOfUnitsUsd({ ...none, workerRequests: 1e6 })).toBeCloseTo(0.3, 9);
    expect(costOfUnitsUsd({ ...none, objectRequests: 1e6 })).toBeCloseTo(0.15, 9);
    expect(costOfUnitsUsd({ ...none, sqliteRowsWritten: 1e6 })).toBeCloseTo(1, 9);
    expect(costOfUnitsUsd({ ...none, sqliteRowsRead: 1e6 })).toBeCloseTo(0.001, 9);
    expect(costOfUnitsUsd({ ...none, r2ClassA: 1e6 })).toBeCloseTo(4.5, 9);
    expect(costOfUnitsUsd({ ...none, r2ClassB: 1e6 })).toBeCloseTo(0.36, 9);
  });
  it("bills R2 storage per day as a 30th of a GB-month of the day's peak", () => {
    // R2's own example: 1 GB for 5 days, then 3 GB for 25 days is 2.66 GB-month.
    const month = 5 * costOfR2StorageDayUsd(1e9) + 25 * costOfR2StorageDayUsd(3e9);
    expect(month).toBeCloseTo(((1 * 5 + 3 * 25) / 30) * 0.015, 12);
    expect(costOfR2StorageDayUsd(30e9)).toBeCloseTo(0.015, 12);
  });
  it("bills object duration at 128 MB: 1e6 GB-s is 7.8125e6 s active", () => {
    expect(costOfUnitsUsd({ ...none, objectActiveMs: 7.8125e9 })).toBeCloseTo(12.5, 6);
  });
});
