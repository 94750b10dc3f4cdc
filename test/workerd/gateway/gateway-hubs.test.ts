import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { freshTenant, type TestTenant, until } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

// Hub objects in the pool (which never evicts them): what the tenant object remembers of them.
// Sockets spread over hubs are tested by `npm run test:hubs` and test/e2e/gateway-hubs.e2e.mjs.

const hubRows = (t: TestTenant) =>
  runInDurableObject(env.TENANTS.getByName(t.id), async (_instance, state) =>
    state.storage.sql.exec<{ hub: number; interest: string }>("SELECT hub, interest FROM gateway_hubs").toArray(),
  );

describe("gateway hubs", () => {
  it("keeps each hub's report in the tenant object's SQLite, and forgets a hub that reports no socket", async () => {
    const t = await freshTenant("hub-report");
    const tenant = env.TENANTS.getByName(t.id);
    await tenant.hubInterest(3, { sockets: 2, readers: 2, watchers: 1, keys: ["agent:main:a"] });
    expect(await hubRows(t)).toEqual([
      { hub: 3, interest: JSON.stringify({ sockets: 2, readers: 2, watchers: 1, keys: ["agent:main:a"] }) },
    ]);
    await tenant.hubInterest(3, { sockets: 0, readers: 0, watchers: 0, keys: [] });
    expect(await hubRows(t)).toEqual([]);
  });

  it("a hub whose sockets went without a report corrects the tenant object on its first delivery after a wake-up", async () => {
    const t = await freshTenant("hub-stale");
    const tenant = env.TENANTS.getByName(t.id);
    // What a hub that crashed with a watcher connected leaves behind: a report of sockets it no longer has.
    await tenant.hubInterest(5, { sockets: 1, readers: 1, watchers: 1, keys: [] });
    // An event for the tenant's sessions reaches that hub (it has a watcher, as far as the tenant knows)…
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    await client.request("chat.inject", { sessionKey: "agent:main:stale", message: "hello" });
    // …and the hub, holding no socket, reports so: the tenant stops sending there.
    const rows = await until(
      () => hubRows(t),
      (r) => r.length === 0,
    );
    expect(rows).toEqual([]);
  });
});
