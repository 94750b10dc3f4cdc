// The meter against a real `wrangler dev` (the vitest pool never hibernates an object): what an
// idle tenant costs. Without a socket it bills nothing; with a connected Control UI socket its
// tenant object sleeps between the gateway's ticks (one alarm per TICK_INTERVAL, 30 s) and bills
// those alarms and nothing else: no duration while it waits.
// Run with `node --test test/e2e/metering.e2e.mjs`.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { connectGateway } from "./gateway-rpc.mjs";
import { createTenantToken, httpJson } from "./http-json.mjs";

const ADMIN = "Bearer dev-admin-token";
const IDLE_MS = 65_000;
/** How long after work the objects have handed their units to the ledger. */
const SETTLE_MS = 2_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
process.once("exit", killAllServersNow);

let server;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

/** The tenant's units per object class today (one usage read, itself a small cost). */
async function units(tenantId) {
  const res = await httpJson(server.baseUrl, "GET", `/v1/admin/tenants/${tenantId}/usage`, { authorization: ADMIN });
  assert.equal(res.status, 200, res.text);
  const out = {};
  for (const day of res.json.days) for (const [cls, u] of Object.entries(day.objects)) out[cls] = u;
  return out;
}

function delta(after, before, cls, key) {
  return (after[cls]?.[key] ?? 0) - (before[cls]?.[key] ?? 0);
}

/** Three reads SETTLE_MS apart: what one read costs (the last two differ by exactly one read). */
async function readCost(tenantId) {
  await sleep(SETTLE_MS);
  await units(tenantId);
  await sleep(SETTLE_MS);
  const a = await units(tenantId);
  await sleep(SETTLE_MS);
  const b = await units(tenantId);
  return { a, b };
}

// The two idle minutes run side by side (each in its own tenant).
describe("idle tenants", { concurrency: 2 }, () => {
  test("an idle tenant without sockets bills nothing while it waits", { timeout: 180_000 }, async () => {
    const id = `idle-${crypto.randomUUID().slice(0, 8)}`;
    await createTenantToken(server.baseUrl, id);
    const { a, b } = await readCost(id);
    await sleep(IDLE_MS);
    const c = await units(id);
    // Over the idle minute: exactly one more read's worth on the tenant object, nothing else. (The
    // ledger's own units ride on the next hand-off: the last read's may be gone with an eviction.)
    assert.equal(
      delta(c, b, "TenantObject", "requests"),
      delta(b, a, "TenantObject", "requests"),
      "tenant object requests while idle",
    );
    assert.ok(
      delta(c, b, "LedgerObject", "requests") <= delta(b, a, "LedgerObject", "requests"),
      "ledger requests while idle",
    );
    assert.equal(delta(c, b, "SessionObject", "requests"), 0);
  });

  test("a connected Control UI socket: the tick alarms and nothing else, no duration between them", {
    timeout: 180_000,
  }, async () => {
    const id = `sock-${crypto.randomUUID().slice(0, 8)}`;
    const token = await createTenantToken(server.baseUrl, id);
    const ws = await connectGateway(`${server.baseUrl.replace("http", "ws")}/t/${id}`, token);
    try {
      const { a, b } = await readCost(id);
      const ticksBefore = ws.events.filter((e) => e.event === "tick").length;
      await sleep(IDLE_MS);
      const c = await units(id);
      const ticks = ws.events.filter((e) => e.event === "tick").length - ticksBefore;
      // Whatever number of ticks the hub sent (two in the minute, when the machine keeps up),
      // the tenant object billed one alarm each and no more.
      console.log(`ticks over ${IDLE_MS / 1000} s: ${ticks}`);
      const readRequests = delta(b, a, "TenantObject", "requests");
      const idleRequests = delta(c, b, "TenantObject", "requests") - readRequests;
      // One alarm per tick (± one at the window's edges), not a request per second.
      assert.ok(
        Math.abs(idleRequests - ticks) <= 1,
        `tenant object requests while idle: ${idleRequests}, ticks: ${ticks}`,
      );
      // Active only while a tick runs: well under a second over the minute (a busy object would bill the whole minute).
      const idleActiveMs = delta(c, b, "TenantObject", "activeMs");
      assert.ok(idleActiveMs < 1_000, `tenant object active ${idleActiveMs} ms over ${IDLE_MS / 1000} s`);
    } finally {
      ws.close();
    }
  });
});
