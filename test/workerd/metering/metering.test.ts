import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { DailyUnits } from "../../../src/contracts/ledger-api";
import { UNITS_HANDOFF_MS } from "../../../src/metering/object-meter";
import { call, freshTenant, until, user } from "../support/helpers";

const ADMIN = "test-admin-token";

/**
 * Every object of a tenant counts what it bills (src/metering/) and hands it to the tenant's
 * ledger when it goes idle: the ledger's units are what the work caused, no more (a method an
 * object calls on itself is not another request), no less (nothing is left in memory).
 */

const today = () => new Date().toISOString().slice(0, 10);

async function unitsOf(tenantId: string): Promise<Record<string, DailyUnits["units"]>> {
  const rows = await (env as unknown as Env).LEDGER.getByName(tenantId).unitsBetween(today(), today());
  return Object.fromEntries(rows.map((row) => [row.objectClass, row.units]));
}

/**
 * The session's units once it handed off everything (src/metering/object-meter.ts holds an
 * idle object's units up to UNITS_HANDOFF_MS): two reads a window apart that agree.
 */
async function settledSessionUnits(tenantId: string): Promise<DailyUnits["units"]> {
  let last = (await unitsOf(tenantId)).SessionObject!;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, UNITS_HANDOFF_MS + 100));
    const now = (await unitsOf(tenantId)).SessionObject!;
    if (now.requests === last.requests && now.rowsWritten === last.rowsWritten) return now;
    last = now;
  }
}

describe("metering", () => {
  it("a session append is billed to its tenant: the session's requests and rows, the index update on the tenant object", async () => {
    const t = await freshTenant("meter");
    const first = await t.append("agent:main:metered", user("hello"));
    expect(first.status, first.text).toBeLessThan(300);
    const units = await until(
      () => unitsOf(t.id),
      (u) => (u.SessionObject?.requests ?? 0) > 0 && (u.TenantObject?.requests ?? 0) > 0,
    );
    console.log(JSON.stringify(units));
    expect(units.SessionObject!.rowsWritten).toBeGreaterThan(0);
    expect(units.SessionObject!.activeMs).toBeGreaterThanOrEqual(0);
    expect(units.LedgerObject?.requests ?? 0).toBeGreaterThan(0);
    // Every later burst is counted too, rows included (each append writes its message row).
    for (const text of ["two", "three"]) {
      const before = await settledSessionUnits(t.id);
      expect((await t.append("agent:main:metered", user(text))).status).toBeLessThan(300);
      const after = await until(
        () => unitsOf(t.id),
        (u) => u.SessionObject!.requests > before.requests,
      );
      expect(after.SessionObject!.requests - before.requests).toBe(1);
      expect(after.SessionObject!.rowsWritten - before.rowsWritten).toBeGreaterThan(0);
    }
  });
});

describe("usage views", () => {
  it("the operator reads a tenant's day, the tenant reads its own, and both agree with the ledger", async () => {
    const t = await freshTenant("usage");
    await t.append("agent:main:billed", user("hello"));
    const ledgerUnits = await until(
      () => unitsOf(t.id),
      (u) => (u.SessionObject?.requests ?? 0) > 0,
    );
    const admin = await call(`/v1/admin/tenants/${t.id}/usage?from=${today()}&to=${today()}`, { token: ADMIN });
    expect(admin.status, admin.text).toBe(200);
    expect(admin.data.days).toHaveLength(1);
    expect(admin.data.days[0].objects.SessionObject.requests).toBeGreaterThanOrEqual(
      ledgerUnits.SessionObject!.requests,
    );
    expect(admin.data.totals.estimateUsd).toBeGreaterThan(0);
    expect(admin.data.prices.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const own = await t.call(`/v1/usage?from=${today()}`);
    expect(own.status, own.text).toBe(200);
    expect(own.data.tenantId).toBe(t.id);
    expect(own.data.days[0].objects.SessionObject.rowsWritten).toBeGreaterThan(0);
    const all = await call(`/v1/admin/usage?from=${today()}&limit=500`, { token: ADMIN });
    expect(all.status, all.text).toBe(200);
    expect(all.data.tenants.map((u: { tenantId: string }) => u.tenantId)).toContain(t.id);
  });

  it("refuses a bad range with a clear 400, an unknown tenant with 404", async () => {
    const bad = await call(`/v1/admin/tenants/default/usage?from=2026-13-01`, { token: ADMIN });
    expect(bad.status).toBe(400);
    expect(bad.data.error.message).toMatch(/from/);
    const reversed = await call(`/v1/admin/tenants/default/usage?from=2026-11-02&to=2026-11-01`, { token: ADMIN });
    expect(reversed.status).toBe(400);
    expect(reversed.data.error.message).toMatch(/after/);
    const long = await call(`/v1/admin/tenants/default/usage?from=2024-01-01&to=2026-11-01`, { token: ADMIN });
    expect(long.status).toBe(400);
    const missing = await call(`/v1/admin/tenants/no-such-tenant-9/usage`, { token: ADMIN });
    expect(missing.status).toBe(404);
  });
});
