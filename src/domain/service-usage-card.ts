import type { ObjectUnits } from "../contracts/ledger-api";
import { addUnits, NO_UNITS } from "../metering/object-units";
import type { LimitsView } from "../policy/limit-rules";
import type { TenantContext } from "./context";
import { estimateUsd, ledgerUsage, type TenantUsage, usageRange } from "./tenant-usage";

/**
 * The tenant's service bill on the Control UI's Usage page. That page reads OpenClaw's
 * `usage.status` (a card per model provider: quota windows, billing rows, a cost history), and
 * this service has no provider quota to report; the card it gets instead is what `GET /v1/usage`
 * says (domain/tenant-usage.ts): this month's estimate at Cloudflare's prices, a bar per day, the
 * cost per object class (R2 storage apart), and the model-token cap as the one window (`tokensPerDay`). The same
 * figures as the HTTP view, never a second computation.
 */

/** OpenClaw's `ProviderUsageSnapshot`, as the Control UI renders it (windows, billing, costHistory, summary). */
export type ServiceUsageCard = {
  provider: string;
  displayName: string;
  plan: string;
  windows: { label: string; usedPercent: number; resetAt?: number }[];
  billing: { type: "spend"; label: string; amount: number; unit: "USD" }[];
  costHistory: {
    unit: "USD";
    periodDays: number;
    daily: {
      date: string;
      amount: number;
      requests: number;
      inputTokens: number;
      outputTokens: number;
      cacheReadTokens: number;
      cacheWriteTokens: number;
    }[];
    models: { name: string; amount: number }[];
    categories: { name: string; amount: number }[];
  };
  summary: string;
};

export const SERVICE_USAGE_PROVIDER = "cloudflare";
/** The category of the R2 storage days (the object classes' categories price their R2 calls). */
export const R2_STORAGE_CATEGORY = "R2 storage";
const DAY_MS = 24 * 60 * 60_000;

/** The card from a month of usage and the tenant's token cap. Pure. */
export function serviceUsageCard(
  usage: TenantUsage,
  tokenCap: LimitsView["tokensPerDay"],
  now: number,
): ServiceUsageCard {
  // Priced per class as the day is (linear), so the categories add up to the total.
  const byClass = new Map<string, ObjectUnits>();
  for (const day of usage.days) {
    for (const [objectClass, units] of Object.entries(day.objects)) {
      byClass.set(objectClass, addUnits(byClass.get(objectClass) ?? NO_UNITS, units));
    }
  }
  const { units } = usage.totals;
  const periodDays = (Date.parse(`${usage.to}T00:00:00Z`) - Date.parse(`${usage.from}T00:00:00Z`)) / DAY_MS + 1;
  return {
    provider: SERVICE_USAGE_PROVIDER,
    displayName: "This service (Cloudflare Workers)",
    plan: `Estimate at Cloudflare's prices of ${usage.prices.asOf}`,
    windows: [
      {
        label: "Model tokens today (tokensPerDay)",
        usedPercent: tokenCap.limit > 0 ? Math.min(100, ((tokenCap.used ?? 0) / tokenCap.limit) * 100) : 0,
        resetAt: Math.floor(now / DAY_MS + 1) * DAY_MS,
      },
    ],
    billing: [{ type: "spend", label: `${usage.from} to ${usage.to}`, amount: usage.totals.estimateUsd, unit: "USD" }],
    costHistory: {
      unit: "USD",
      periodDays,
      daily: usage.days.map((day) => ({
        date: day.date,
        amount: day.estimateUsd,
        requests: day.units.requests,
        // The ledger keeps a run's total tokens per day, not its input/output split.
        inputTokens: day.tokens,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      })),
      models: [],
      categories: [
        ...[...byClass].map(([name, units]) => ({ name, amount: estimateUsd(units) })),
        ...(usage.totals.r2StorageUsd > 0 ? [{ name: R2_STORAGE_CATEGORY, amount: usage.totals.r2StorageUsd }] : []),
      ].sort((a, b) => b.amount - a.amount || a.name.localeCompare(b.name)),
    },
    // The page shows dollars to the cent; a tenant's month is often less, so the summary carries them exactly.
    summary:
      `$${usage.totals.estimateUsd.toFixed(6)} from ${units.requests.toLocaleString("en")} object requests, ` +
      `${units.websocketMessages.toLocaleString("en")} WebSocket messages, ` +
      `${units.rowsWritten.toLocaleString("en")} SQLite rows written, ${units.rowsRead.toLocaleString("en")} read, ` +
      `${(units.activeMs / 1000).toFixed(1)} s active; ${(units.storedBytes / 1024).toFixed(0)} KiB stored since metering ` +
      "began (billed per GB-month, not in the estimate); " +
      `R2: ${units.r2ClassA.toLocaleString("en")} Class A and ${units.r2ClassB.toLocaleString("en")} Class B operations, ` +
      `${(usage.totals.r2StoredBytes / 1024).toFixed(0)} KiB stored ($${usage.totals.r2StorageUsd.toFixed(6)} of storage ` +
      "in the estimate); Worker requests not included",
  };
}

/** `usage.status` for a tenant: its service card (OpenClaw's answer shape, `providers` holding it). */
export async function serviceUsageStatus(ctx: TenantContext<"runs">, now = Date.now()) {
  const [usage, limits] = await Promise.all([
    ledgerUsage(ctx.ledger, ctx.tenantId, usageRange({}, now)),
    ctx.tenant.limits(),
  ]);
  return { updatedAt: now, providers: [serviceUsageCard(usage, limits.limits.tokensPerDay, now)], refreshing: false };
}
