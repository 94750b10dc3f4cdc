/** When the prices below were read, and where. */
export const CLOUDFLARE_PRICES_AS_OF = "2026-11-28";
export const CLOUDFLARE_PRICES_SOURCES = [
  "https://developers.cloudflare.com/durable-objects/platform/pricing",
  "https://developers.cloudflare.com/workers/platform/pricing",
  "https://developers.cloudflare.com/r2/pricing/",
] as const;

/**
 * Cloudflare's published Workers Paid prices, in USD, as read on 2026-11-28 from the sources
 * above. The monthly allowances included in the $5 plan are left out on purpose: a per-unit
 * figure is what one more tenant adds.
 */
export const CLOUDFLARE_PRICES_USD = {
  workerRequestsPerMillion: 0.3,
  workerCpuMsPerMillion: 0.02,
  objectRequestsPerMillion: 0.15,
  objectDurationPerMillionGbSeconds: 12.5,
  sqliteRowsReadPerMillion: 0.001,
  sqliteRowsWrittenPerMillion: 1.0,
  storedGbPerMonth: 0.2,
  // R2 Standard storage (read 2026-11-29): Class A (put, list) and Class B (get, head) operations;
  // deletes are free. Storage is the average of each day's peak over a 30-day month.
  r2ClassAPerMillion: 4.5,
  r2ClassBPerMillion: 0.36,
  r2StoredGbPerMonth: 0.015,
} as const;

/** R2 bills storage as GB-months: each day's peak, averaged over a 30-day billing period. */
export const R2_DAYS_PER_BILLED_MONTH = 30;
/** The GB of the price pages (decimal). */
export const BYTES_PER_GB = 1e9;

/** Durable Objects are billed for duration at 128 MB whatever they use. */
export const OBJECT_BILLED_MEMORY_GB = 0.128;

/** The billable units a piece of work caused. */
export interface BillableUnits {
  workerRequests: number;
  workerCpuMs: number;
  objectRequests: number;
  /** Wall time an object was active (not hibernated), summed over objects. */
  objectActiveMs: number;
  sqliteRowsRead: number;
  sqliteRowsWritten: number;
  r2ClassA: number;
  r2ClassB: number;
}

/** The dollars `units` cost at the published prices (storage excluded: it is per month, not per unit of work: costOfR2StorageDayUsd). */
export function costOfUnitsUsd(units: BillableUnits): number {
  const p = CLOUDFLARE_PRICES_USD;
  const gbSeconds = (units.objectActiveMs / 1000) * OBJECT_BILLED_MEMORY_GB;
  return (
    (units.workerRequests * p.workerRequestsPerMillion +
      units.workerCpuMs * p.workerCpuMsPerMillion +
      units.objectRequests * p.objectRequestsPerMillion +
      gbSeconds * p.objectDurationPerMillionGbSeconds +
      units.sqliteRowsRead * p.sqliteRowsReadPerMillion +
      units.sqliteRowsWritten * p.sqliteRowsWrittenPerMillion +
      units.r2ClassA * p.r2ClassAPerMillion +
      units.r2ClassB * p.r2ClassBPerMillion) /
    1e6
  );
}

/** The dollars of one day of R2 storage at `peakBytes` (a 30th of a GB-month per GB). */
export function costOfR2StorageDayUsd(peakBytes: number): number {
  const gbMonths = Math.max(0, peakBytes) / BYTES_PER_GB / R2_DAYS_PER_BILLED_MONTH;
  return gbMonths * CLOUDFLARE_PRICES_USD.r2StoredGbPerMonth;
}
