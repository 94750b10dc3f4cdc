import type { ObjectUnits } from "../contracts/ledger-api";

export type { ObjectUnits };

/**
 * Arithmetic of what a Durable Object bills (Cloudflare's Durable Objects pricing): requests (every RPC method
 * call, fetch and alarm), incoming WebSocket messages (billed 20:1 as requests), wall time while
 * active (GB-s at 128 MB), SQLite rows read and written, and the bytes stored (GB-month). Summed per tenant, object class and
 * UTC day. Pure.
 */

export const NO_UNITS: Readonly<ObjectUnits> = {
  requests: 0,
  websocketMessages: 0,
  activeMs: 0,
  rowsRead: 0,
  rowsWritten: 0,
  storedBytes: 0,
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
  };
}

export function hasUnits(units: Readonly<ObjectUnits>): boolean {
  return UNIT_NAMES.some((name) => units[name] !== 0);
}

/** The UTC day (`YYYY-MM-DD`) of an instant: units are kept per tenant per day. */
export function utcDay(atMs: number): string {
  return new Date(atMs).toISOString().slice(0, 10);
}
