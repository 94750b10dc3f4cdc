import { afterEach, describe, expect, it } from "vitest";
import { freshTenant, type TestTenant, user } from "./helpers";
import { GatewayClient } from "./ws-helpers";

/** Session surfaces as the real OpenClaw gateway (2026.9.6) shows them to its clients. */

const open: GatewayClient[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

async function connect(tenant: TestTenant, options: Parameters<typeof GatewayClient.connect>[0] = {}) {
  const client = await GatewayClient.connect({ path: tenant.prefix, token: tenant.token, ...options });
  open.push(client);
  return client;
}

describe("sessions.subscribe", () => {
  it("answers {subscribed:true} without params and adds the sessions.list result when list params are given", async () => {
    const tenant = await freshTenant("subs");
    await tenant.append("agent:main:a", user("one"));
    await tenant.append("agent:main:b", user("two"));
    const plain = await connect(tenant);
    expect((await plain.request("sessions.subscribe", {})).payload).toEqual({ subscribed: true });
    expect((await plain.request("sessions.subscribe")).payload).toEqual({ subscribed: true });

    const listing = await connect(tenant);
    const res = await listing.request("sessions.subscribe", { limit: 1 });
    expect(res.ok).toBe(true);
    expect(res.payload.subscribed).toBe(true);
    const list = (await listing.request("sessions.list", { limit: 1 })).payload;
    expect(res.payload.list).toMatchObject({ count: 1, hasMore: true, sessions: [{ key: list.sessions[0].key }] });
    // The list-params connection is subscribed: it hears the next change.
    await tenant.append("agent:main:c", user("three"));
    await listing.waitFor((f) => f.event === "sessions.changed" && f.payload.sessionKey === "agent:main:c");
  });

  it("refuses params the sessions.list schema refuses, in its words, and leaves the connection unsubscribed", async () => {
    const tenant = await freshTenant("subsbad");
    const client = await connect(tenant);
    const bogus = await client.request("sessions.subscribe", { bogus: 1 });
    expect(bogus.error).toMatchObject({
      code: "INVALID_REQUEST",
      message: "invalid sessions.subscribe params: at root: unexpected property 'bogus'",
    });
    const limit = await client.request("sessions.subscribe", { limit: "x" });
    expect(limit.error.message).toBe("invalid sessions.subscribe params: at /limit: must be integer");
    await tenant.append("agent:main:quiet", user("hello"));
    // A later request is answered after any event the append caused would have been sent.
    await client.request("sessions.list", {});
    expect(client.events("sessions.changed")).toHaveLength(0);
    expect(client.events("session.message")).toHaveLength(0);
  });
});
