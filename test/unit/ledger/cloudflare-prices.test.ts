import { describe, expect, it } from "vitest";
import { costOfUnitsUsd } from "../../../src/ledger/cloudflare-prices";

const none = {
  workerRequests: 0,
  workerCpuMs: 0,
  objectRequests: 0,
  objectActiveMs: 0,
  sqliteRowsRead: 0,
  sqliteRowsWritten: 0,
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
  });
  it("bills object duration at 128 MB: 1e6 GB-s is 7.8125e6 s active", () => {
    expect(costOfUnitsUsd({ ...none, objectActiveMs: 7.8125e9 })).toBeCloseTo(12.5, 6);
  });
});
