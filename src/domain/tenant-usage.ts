import type { DailyUnits, LedgerApi, ObjectUnits } from "../contracts/ledger-api";
import {
  CLOUDFLARE_PRICES_AS_OF,
  CLOUDFLARE_PRICES_SOURCES,
  costOfR2StorageDayUsd,
  costOfUnitsUsd,
} from "../ledger/cloudflare-prices";
import { addUnits, NO_UNITS, utcDay } from "../metering/object-units";
import { ADMIN_LIST_DEFAULT_LIMIT, ADMIN_LIST_MAX_LIMIT } from "../protocol/admin";
import type { UsageRange } from "../protocol/usage";
import { directoryApi, ledgerApi } from "../stubs";
import { DomainError } from "./errors";
import { adminTenant } from "./tenant-admin";

/**
 * What a tenant used, per UTC day, for the operator's bill (`GET /v1/admin/tenants/<id>/usage`,
 * `GET /v1/admin/usage`) and the tenant's own view (`GET /v1/usage`): the billable units its
 * Durable Objects counted (src/metering/), the model tokens its runs used, and the estimate in
 * dollars at Cloudflare's published prices (ledger/cloudflare-prices.ts). Worker requests are
 * not in it: the Worker meters nothing per tenant but its R2 calls (docs/operations.md, "What a
 * tenant costs"). R2 storage is billed per day of the range: the tenant's R2 bytes (put minus
 * deleted, summed over every day the ledger keeps) at the day's peak, a 30th of a GB-month.
 */

/** WebSocket messages are billed as requests at 20:1 (Durable Objects pricing). */
const WEBSOCKET_MESSAGES_PER_REQUEST = 20;
const DAY_MS = 24 * 60 * 60_000;
/** The longest range one answer covers (the ledger keeps 400 days). */
export const USAGE_RANGE_MAX_DAYS = 400;
/** The R2 level is summed from the ledger's first day (it keeps 400): the rows are read from here. */
const LEDGER_FIRST_DAY = "0000-01-01";

export type DayUsage = {
  date: string;
  /** Units per object class. */
  objects: Record<string, ObjectUnits>;
  units: ObjectUnits;
  tokens: number;
  /** What the tenant keeps in R2 at the day's end (bytes put minus deleted since R2 was metered). */
  r2StoredBytes: number;
  /** The day's R2 storage: its peak (the larger of its start and end) as a 30th of a GB-month. */
  r2StorageUsd: number;
  /** The units and the day's R2 storage at Cloudflare's prices. */
  estimateUsd: number;
};

export type TenantUsage = {
  tenantId: string;
  from: string;
  to: string;
  days: DayUsage[];
  totals: { units: ObjectUnits; tokens: number; r2StoredBytes: number; r2StorageUsd: number; estimateUsd: number };
  prices: { asOf: string; sources: readonly string[] };
};

/** The range a query names, defaulting to the current UTC month; bad or too long ranges are refused. */
export function usageRange(query: UsageRange, now = Date.now()): { from: string; to: string } {
  const today = new Date(now).toISOString().slice(0, 10);
  const to = query.to ?? today;
  const from = query.from ?? `${to.slice(0, 8)}01`;
  if (from > to) throw new DomainError("invalid", `from (${from}) is after to (${to})`);
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  if (days > USAGE_RANGE_MAX_DAYS)
    throw new DomainError("invalid", `at most ${USAGE_RANGE_MAX_DAYS} days per query (asked ${days})`);
  return { from, to };
}

/** Dollars for a set of object units (WebSocket messages at 20:1; no Worker share). */
export function estimateUsd(units: ObjectUnits): number {
  return costOfUnitsUsd({
    workerRequests: 0,
    workerCpuMs: 0,
    objectRequests: units.requests + units.websocketMessages / WEBSOCKET_MESSAGES_PER_REQUEST,
    objectActiveMs: units.activeMs,
    sqliteRowsRead: units.rowsRead,
    sqliteRowsWritten: units.rowsWritten,
    r2ClassA: units.r2ClassA ?? 0,
    r2ClassB: units.r2ClassB ?? 0,
  });
}

/**
 * Folds a ledger's rows and tokens into days. Rows before `range.from` only set the R2 level the
 * range starts at; a day of the range up to `today` on which the tenant kept R2 bytes is a day
 * of the answer (storage is billed with no other activity). Pure.
 */
export function usageByDay(
  tenantId: string,
  range: { from: string; to: string },
  rows: readonly DailyUnits[],
  tokensByDay: ReadonlyMap<string, number>,
  today = utcDay(Date.now()),
): TenantUsage {
  const days = new Map<string, DayUsage>();
  const dayOf = (date: string) => {
    let day = days.get(date);
    if (!day) {
      const tokens = tokensByDay.get(date) ?? 0;
      day = { date, objects: {}, units: { ...NO_UNITS }, tokens, r2StoredBytes: 0, r2StorageUsd: 0, estimateUsd: 0 };
      days.set(date, day);
    }
    return day;
  };
  let r2Level = 0;
  for (const row of rows) {
    if (row.date < range.from) {
      r2Level += row.units.r2StoredBytes ?? 0;
      continue;
    }
    const day = dayOf(row.date);
    day.objects[row.objectClass] = addUnits(day.objects[row.objectClass] ?? NO_UNITS, row.units);
    day.units = addUnits(day.units, row.units);
  }
  for (const date of tokensByDay.keys()) dayOf(date);
  // The earlier of the two days (the range may reach past today, which bills nothing yet).
  const lastBilled = [range.to, today].sort()[0]!;
  for (let date = range.from; date <= lastBilled; date = nextDay(date)) {
    const start = r2Level;
    r2Level += days.get(date)?.units.r2StoredBytes ?? 0;
    if (Math.max(start, r2Level) <= 0 && !days.has(date)) continue;
    const day = dayOf(date);
    day.r2StoredBytes = r2Level;
    day.r2StorageUsd = costOfR2StorageDayUsd(Math.max(start, r2Level));
  }
  const ordered = [...days.values()].sort((a, b) => a.date.localeCompare(b.date));
  for (const day of ordered) day.estimateUsd = estimateUsd(day.units) + day.r2StorageUsd;
  const units = ordered.reduce((sum, day) => addUnits(sum, day.units), { ...NO_UNITS });
  const r2StorageUsd = ordered.reduce((sum, day) => sum + day.r2StorageUsd, 0);
  return {
    tenantId,
    ...range,
    days: ordered,
    totals: {
      units,
      tokens: ordered.reduce((sum, day) => sum + day.tokens, 0),
      r2StoredBytes: r2Level,
      r2StorageUsd,
      estimateUsd: estimateUsd(units) + r2StorageUsd,
    },
    prices: { asOf: CLOUDFLARE_PRICES_AS_OF, sources: CLOUDFLARE_PRICES_SOURCES },
  };
}

function nextDay(date: string): string {
  return utcDay(Date.parse(`${date}T00:00:00Z`) + DAY_MS);
}

/** One tenant's usage from its ledger. */
export async function ledgerUsage(
  ledger: LedgerApi,
  tenantId: string,
  range: { from: string; to: string },
): Promise<TenantUsage> {
  const [rows, tokens] = await Promise.all([
    // From the first day kept: the R2 bytes stored before the range are its starting level.
    ledger.unitsBetween(LEDGER_FIRST_DAY, range.to),
    ledger.usage({ startDate: range.from, endDate: range.to, limit: 20_000 }),
  ]);
  const tokensByDay = new Map<string, number>();
  for (const row of tokens.rows) tokensByDay.set(row.date, (tokensByDay.get(row.date) ?? 0) + row.totalTokens);
  return usageByDay(tenantId, range, rows, tokensByDay);
}

type UsageEnv = Pick<Env, "TENANTS" | "LEDGER" | "DIRECTORY"> & { DEFAULT_TENANT?: unknown };

/** A tenant's usage, for the operator (404 for an unknown tenant). */
export async function adminTenantUsage(env: UsageEnv, tenantId: string, query: UsageRange) {
  const range = usageRange(query);
  await adminTenant(env, tenantId);
  return ledgerUsage(ledgerApi(env, tenantId), tenantId, range);
}

/** Every tenant's usage in a range, a page of tenants at a time (by id, as `GET /v1/admin/tenants`). */
export async function allTenantsUsage(env: UsageEnv, query: UsageRange & { limit?: number; cursor?: string }) {
  const range = usageRange(query);
  const limit = Math.min(query.limit ?? ADMIN_LIST_DEFAULT_LIMIT, ADMIN_LIST_MAX_LIMIT);
  const rows = await directoryApi(env).page(limit + 1, query.cursor);
  const page = rows.slice(0, limit);
  const tenants = await Promise.all(page.map((t) => ledgerUsage(ledgerApi(env, t.id), t.id, range)));
  return {
    ...range,
    tenants: tenants.map(({ prices: _prices, from: _from, to: _to, ...usage }) => usage),
    prices: { asOf: CLOUDFLARE_PRICES_AS_OF, sources: CLOUDFLARE_PRICES_SOURCES },
    hasMore: rows.length > limit,
    ...(rows.length > limit ? { nextCursor: page.at(-1)!.id } : {}),
  };
}
