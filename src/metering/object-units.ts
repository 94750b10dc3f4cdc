import type { ObjectUnits } from "../contracts/ledger-api";
import type { R2Units } from "./metered-bucket";

export type { ObjectUnits };

/**
 * Arithmetic of what a Durable Object bills (Cloudflare's Durable Objects pricing): requests (every RPC method
 * call, fetch and alarm), incoming WebSocket messages (billed 20:1 as requests), wall time while
 * active (GB-s at 128 MB), SQLite rows read and written, and the bytes stored (GB-month); with the
 * R2 calls an object made (Class A, Class B, bytes put minus deleted: metered-bucket.ts). Summed
 * per tenant, object class and UTC day. Pure.
 */

export const NO_UNITS: Readonly<ObjectUnits> = {
  requests: 0,
  websocketMessages: 0,
  activeMs: 0,
  rowsRead: 0,
  rowsWritten: 0,
  storedBytes: 0,
  r2ClassA: 0,
  r2ClassB: 0,
  r2StoredBytes: 0,
};

export const UNIT_NAMES = Object.keys(NO_UNITS) as ReadonlyArray<keyof ObjectUnits>;

export function addUnits(a: Readonly<ObjectUnits>, b: Readonly<ObjectUnits>): ObjectUnits {
  return {
    requests: a.requests + b.requests,
    websocketMessages: a.websocketMessages + b.websocketMessages,
    activeMs: a.activeMs + b.activeMs,
    rowsRead: a.rowsRead + b.rowsRead,
    rowsWritten: a.rowsWritten + b.rowsWritten,
    // Rows kept before the bytes were counted have none.
    storedBytes: (a.storedBytes ?? 0) + (b.storedBytes ?? 0),
    // Rows kept before R2 was metered have none of these.
    r2ClassA: (a.r2ClassA ?? 0) + (b.r2ClassA ?? 0),
    r2ClassB: (a.r2ClassB ?? 0) + (b.r2ClassB ?? 0),
    r2StoredBytes: (a.r2StoredBytes ?? 0) + (b.r2StoredBytes ?? 0),
  };
}

export function hasUnits(units: Readonly<ObjectUnits>): boolean {
  return UNIT_NAMES.some((name) => (units[name] ?? 0) !== 0);
}

/** The UTC day (`YYYY-MM-DD`) of an instant: units are kept per tenant per day. */
export function utcDay(atMs: number): string {
  return new Date(atMs).toISOString().slice(0, 10);
}

/** The class a worker request's own units are kept under (its R2 calls: src/index.ts). */
export const WORKER_CLASS = "Worker";

/** R2 calls' units as a ledger row's (every other unit 0). */
export function r2Units(r2: R2Units): ObjectUnits {
  return { ...NO_UNITS, r2ClassA: r2.classA, r2ClassB: r2.classB, r2StoredBytes: r2.storedBytes };
}
