import { afterEach, describe, expect, it } from "vitest";
import { estimateUsd } from "../../../src/domain/tenant-usage";
import { freshTenant, until, user } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * The Control UI's Usage page reads `usage.status` (OpenClaw's provider cards): the tenant's
 * service bill is its card, with the figures `GET /v1/usage` reports (domain/service-usage-card.ts).
 */

const clients: GatewayClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

describe("usage.status: the tenant's service bill on the Usage page", () => {
  it("one card with this month's estimate, a bar per day and the cost per object class, as GET /v1/usage reports them", async () => {
    const t = await freshTenant("usage-card");
    const res = await t.append("agent:main:card", user("hello", { run: true }));
    expect(res.status, res.text).toBe(201);
    await t.call(`/v1/runs/${res.data.runId}?wait=10`);
    await until(
      () => t.call("/v1/usage"),
      (r) => (r.data.totals?.units.rowsWritten ?? 0) > 0 && r.data.days[0]?.objects.SessionObject !== undefined,
    );
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    clients.push(client);
    const before = (await t.call("/v1/usage")).data;
    const status = await client.request("usage.status", {});
    const after = (await t.call("/v1/usage")).data;
    expect(status.ok, JSON.stringify(status.error)).toBe(true);
    expect(status.payload.refreshing).toBe(false);
    expect(status.payload.providers).toHaveLength(1);
    const card = status.payload.providers[0];
    expect(card).toMatchObject({ provider: "cloudflare", displayName: "This service (Cloudflare Workers)" });
    expect(card.plan).toContain(before.prices.asOf);
    // The month's estimate: what the HTTP view said just before and after (reads only add units).
    const spent = card.billing[0];
    expect(spent).toMatchObject({ type: "spend", unit: "USD", label: `${before.from} to ${before.to}` });
    expect(spent.amount).toBeGreaterThanOrEqual(before.totals.estimateUsd);
    expect(spent.amount).toBeLessThanOrEqual(after.totals.estimateUsd);
    expect(card.costHistory.daily.map((d: { date: string }) => d.date)).toEqual(
      before.days.map((d: { date: string }) => d.date),
    );
    // The session object is touched by neither read: its share is exactly the HTTP view's.
    const session = card.costHistory.categories.find((c: { name: string }) => c.name === "SessionObject");
    expect(session.amount).toBe(estimateUsd(before.days[0].objects.SessionObject));
    const categories = card.costHistory.categories.reduce((sum: number, c: { amount: number }) => sum + c.amount, 0);
    expect(categories).toBeCloseTo(spent.amount, 12);
    // The one window: today's model tokens against the tenant's tokensPerDay.
    const limits = (await t.call("/v1/limits")).data;
    expect(card.windows).toHaveLength(1);
    expect(card.windows[0].label).toMatch(/tokensPerDay/);
    const tokens = limits.limits.tokensPerDay;
    expect(card.windows[0].usedPercent).toBeCloseTo(((tokens.used ?? 0) / tokens.limit) * 100, 6);
    expect(card.summary).toMatch(/^\$\d+\.\d{6} from \d[\d,]* object requests, .* SQLite rows written, .* KiB stored/);
  });
});
