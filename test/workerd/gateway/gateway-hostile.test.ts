import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { freshTenant, until } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

const hostileFrame = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.json(),
  fc.record(
    {
      type: fc.constantFrom("req", "res", "event", "x"),
      id: fc.oneof(fc.string(), fc.integer()),
      method: fc.string(),
      params: fc.jsonValue(),
    },
    { requiredKeys: [] },
  ),
  fc.record({
    type: fc.constant("req"),
    id: fc.string({ minLength: 1, maxLength: 10 }),
    method: fc.constantFrom(
      "sessions.list",
      "chat.history",
      "sessions.patch",
      "sessions.preview",
      "sessions.resolve",
      "chat.inject",
      "sessions.create",
      "sessions.messages.subscribe",
      "nope",
    ),
    params: fc.oneof(
      fc.jsonValue(),
      fc.dictionary(fc.constantFrom("key", "sessionKey", "limit", "keys", "label", "message", "bogus"), fc.jsonValue()),
    ),
  }),
);

describe("hostile gateway frames", () => {
  it("answers a few hundred hostile frames without closing or hurting another connection", async () => {
    const victim = await GatewayClient.connect();
    const bystander = await GatewayClient.connect();
    await fc.assert(
      fc.asyncProperty(hostileFrame, async (frame) => {
        victim.send(typeof frame === "string" ? frame : JSON.stringify(frame));
      }),
      { numRuns: 300 },
    );
    // Answered after the 300 frames before it: seconds on a loaded machine.
    const ping = await victim.request("health", {}, "final-health", 30_000);
    expect(ping.ok).toBe(true);
    expect(victim.closed).toBeNull();
    for (const f of victim.frames) expect(f.type === "res" || f.type === "event").toBe(true);
    const errors = victim.frames.filter((f) => f.type === "res" && !f.ok);
    for (const e of errors) expect(["INVALID_REQUEST", "UNAVAILABLE", "FORBIDDEN"]).toContain(e.error.code);
    expect((await bystander.request("health", {})).ok).toBe(true);
    victim.close();
    bystander.close();
  });

  it("sends requests before connect a 1008 close, never data", async () => {
    const client = await GatewayClient.open();
    await client.waitFor((f) => f.event === "connect.challenge");
    client.send({ type: "req", id: "1", method: "sessions.list", params: {} });
    expect((await client.waitForClose()).code).toBe(1008);
    expect(client.frames.filter((f) => f.type === "res" && f.ok)).toHaveLength(0);
  });

  it("ticks on the alarm and keeps the alarm only while sockets are open", async () => {
    // Its own tenant: the workerd tier shares one workerd, and a socket another file left on the
    // default tenant would keep that object's alarm.
    const own = await freshTenant("tick");
    const client = await GatewayClient.connect({ path: own.prefix, token: own.token });
    const tenant = env.TENANTS.getByName(own.id);
    expect(await runDurableObjectAlarm(tenant)).toBe(true);
    const tick = await client.waitFor((f) => f.event === "tick");
    expect(tick.payload.ts).toEqual(expect.any(Number));
    expect(tick.seq).toEqual(expect.any(Number));
    client.close();
    // With the only socket gone the next tick finds nobody and sets no further alarm. Ticks
    // run until the object has seen the close (when is the machine's business, not a fixed wait).
    await until(
      () => runDurableObjectAlarm(tenant),
      (ran) => !ran,
      10_000,
    );
  });
});
