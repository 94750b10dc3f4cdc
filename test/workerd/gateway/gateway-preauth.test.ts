import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_PREAUTH_SOCKETS, DEFAULT_PREAUTH_SOCKETS_PER_ADDRESS } from "../../../src/gateway/preauth";
import { freshTenant } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * Sockets that never authenticate are bounded per tenant and per client address, checked before
 * the upgrade is accepted or a hub named: past an address's bound, 429 with a JSON error (issue
 * 36, item 5); at the tenant's bound a newcomer evicts the busiest address's oldest (issue 44).
 * The real network path (CF-Connecting-IP as workerd sets it) is in test/e2e/gateway-preauth.e2e.mjs.
 */

async function upgrade(path: string, address: string) {
  const res = await exports.default.fetch(`http://svc.test${path}`, {
    headers: { Upgrade: "websocket", "CF-Connecting-IP": address },
  });
  res.webSocket?.accept();
  return res;
}

describe("unauthenticated gateway sockets", () => {
  it("are bounded per client address (429 before any hub is named) and per tenant (the busiest address's oldest evicted)", async () => {
    const t = await freshTenant("preauth");
    const open: WebSocket[] = [];
    for (let i = 0; i < DEFAULT_PREAUTH_SOCKETS_PER_ADDRESS; i++) {
      const res = await upgrade(t.prefix, "198.51.100.7");
      expect(res.status, `socket ${i} from one address: ${res.status === 101 ? "" : await res.text()}`).toBe(101);
      open.push(res.webSocket!);
    }
    const refused = await upgrade(t.prefix, "198.51.100.7");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("15");
    expect(await refused.json()).toEqual({
      ok: false,
      error: {
        type: "rate_limited",
        message: `too many gateway sockets waiting to authenticate from this address (${DEFAULT_PREAUTH_SOCKETS_PER_ADDRESS}); retry later`,
      },
    });
    // Another address still gets in, and a socket that authenticates no longer counts.
    const lone = await upgrade(t.prefix, "198.51.100.8");
    expect(lone.status, "another address").toBe(101);
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });

    // Up to the tenant's bound from many addresses, then nobody.
    let address = 0;
    for (let i = DEFAULT_PREAUTH_SOCKETS_PER_ADDRESS + 1; i < DEFAULT_PREAUTH_SOCKETS; i++) {
      const res = await upgrade(t.prefix, `203.0.113.${address++ % 250}`);
      expect(res.status, `socket ${i}`).toBe(101);
      open.push(res.webSocket!);
    }
    // The tenant's bound is full: a newcomer from another address still gets in (issue 44,
    // finding 3); the oldest waiting socket of the address holding the most closes as its
    // handshake deadline would close it. The lone socket of 198.51.100.8 stays.
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      open[0]!.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason })),
    );
    const newcomer = await upgrade(t.prefix, "192.0.2.1");
    expect(newcomer.status, "a newcomer past the tenant's bound").toBe(101);
    open.push(newcomer.webSocket!);
    const hubsEverywhere = Number(env.GATEWAY_HUB_SOCKETS) <= DEFAULT_PREAUTH_SOCKETS;
    // (Under `npm run test:hubs` the evicted socket is in the hub that reports the most: any of them.)
    if (!hubsEverywhere) expect(await closed).toEqual({ code: 1008, reason: "handshake timeout" });
    expect(lone.webSocket!.readyState, "a lone waiting socket is not the one evicted").toBe(WebSocket.OPEN);
    // The tenant object holds them all itself (and the authenticated one): no hub was made for them.
    // (Under `npm run test:hubs` each socket past the first is in a hub: counted there, as checked above.)
    if (Number(env.GATEWAY_HUB_SOCKETS) > DEFAULT_PREAUTH_SOCKETS)
      await runInDurableObject(env.TENANTS.getByName(t.id), (_instance, state) => {
        expect(state.storage.sql.exec("SELECT count(*) AS n FROM gateway_hubs").one().n).toBe(0);
        // The bound on waiting sockets holds: evicted ones are gone (only the authenticated one is extra).
        expect(state.getWebSockets().length).toBe(DEFAULT_PREAUTH_SOCKETS + 1);
      });
    expect((await client.request("health", {})).ok).toBe(true);
    client.ws.close();
    for (const ws of open) ws.close();
  });
});
