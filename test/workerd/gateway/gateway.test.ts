import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import type { GatewayHub } from "../../../src/gateway/hub";
import { HANDSHAKE_TIMEOUT_MS } from "../../../src/gateway/liveness";
import type { TenantObject } from "../../../src/tenant/tenant-object";
import { ADMIN, append, call, createTenant, issueToken, user } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

const open: GatewayClient[] = [];
async function connect(options?: Parameters<typeof GatewayClient.connect>[0]) {
  const client = await GatewayClient.connect(options);
  open.push(client);
  return client;
}
/** The tenant object's hub (a private field: the test drives its alarm at a chosen time). */
const hubOf = (instance: TenantObject) =>
  (instance as unknown as { parts: { gateway: { hub: GatewayHub } } }).parts.gateway.hub;
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

describe("gateway handshake", () => {
  // Runs the tenant object's alarm: its 101 sockets must all be there (not under `npm run test:hubs`).
  it.skipIf(Number(env.GATEWAY_HUB_SOCKETS) < 101)(
    "the alarm closes sockets past their handshake deadline, 100 at a time, and keeps the others",
    async () => {
      const tenant = `deadline-${crypto.randomUUID().slice(0, 8)}`;
      await createTenant(tenant);
      const admin = await issueToken(tenant);
      // From several addresses: one address may hold only 64 sockets in their handshake.
      const idle = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          GatewayClient.open(`/t/${tenant}`, { "CF-Connecting-IP": `192.0.2.${i % 4}` }),
        ),
      );
      const ready = await connect({ path: `/t/${tenant}`, token: admin.token });
      open.push(...idle);
      const challenges = await Promise.all(
        idle.map((socket) => socket.waitFor((f) => f.event === "connect.challenge")),
      );
      const oldest = Math.min(...challenges.map((c) => c.payload.ts));
      const stub = env.TENANTS.getByName(tenant);
      // Just before the deadline nobody is closed; at it, every idle socket is (as after a
      // hibernation, when only the alarm is left). The wall-clock case runs against wrangler dev:
      // test/e2e/handshake-deadline.e2e.mjs.
      await runInDurableObject(stub, (instance: TenantObject) =>
        hubOf(instance).alarm(oldest + HANDSHAKE_TIMEOUT_MS - 1),
      );
      expect(idle.filter((socket) => socket.closed)).toHaveLength(0);
      const newest = Math.max(...challenges.map((c) => c.payload.ts));
      await runInDurableObject(stub, (instance: TenantObject) => hubOf(instance).alarm(newest + HANDSHAKE_TIMEOUT_MS));
      const closes = await Promise.all(idle.map((socket) => socket.waitForClose(5_000).then(() => socket.closed!)));
      for (const closed of closes) expect(closed).toMatchObject({ code: 1008, reason: "handshake timeout" });
      // The connected socket stays, and got the alarm's tick.
      expect(ready.closed).toBeFalsy();
      await ready.waitFor((f) => f.event === "tick");
    },
  );

  it("sends connect.challenge first and answers connect with hello-ok", async () => {
    const client = await GatewayClient.open();
    open.push(client);
    const hello = await client.handshake();
    expect(hello.challenge).toMatchObject({ nonce: expect.any(String), ts: expect.any(Number) });
    expect(hello.ok).toBe(true);
    expect(hello.payload).toMatchObject({
      type: "hello-ok",
      protocol: 4,
      server: { connId: expect.any(String) },
      features: { methods: expect.arrayContaining(["sessions.list", "chat.history", "sessions.messages.subscribe"]) },
      snapshot: { sessionDefaults: { defaultAgentId: "main", mainKey: "main", mainSessionKey: "agent:main:main" } },
      auth: { role: "operator", scopes: ["operator.read", "operator.write", "operator.admin"] },
      policy: { maxPayload: 26214400, maxBufferedBytes: 52428800, tickIntervalMs: 30000 },
    });
  });

  it("negotiates protocol 3 for clients that only speak 3", async () => {
    const client = await GatewayClient.open();
    open.push(client);
    const hello = await client.handshake({ protocol: [3, 3] });
    expect(hello.payload.protocol).toBe(3);
  });

  it("answers protocol mismatch with INVALID_REQUEST and closes 1002", async () => {
    const client = await GatewayClient.open();
    open.push(client);
    const res = await client.handshake({ protocol: [5, 6] });
    expect(res.ok).toBe(false);
    expect(res.error).toMatchObject({
      code: "INVALID_REQUEST",
      message: "protocol mismatch",
      details: { expectedProtocol: 4 },
    });
    expect((await client.waitForClose()).code).toBe(1002);
  });

  it("closes 1008 when the first frame is not connect", async () => {
    const client = await GatewayClient.open();
    open.push(client);
    await client.waitFor((f) => f.event === "connect.challenge");
    const res = await client.request("sessions.list", {});
    expect(res.error).toMatchObject({
      code: "INVALID_REQUEST",
      message: "invalid handshake: first request must be connect",
    });
    expect((await client.waitForClose()).code).toBe(1008);
  });

  it("closes 1008 on a bad token without sending tenant data", async () => {
    const client = await GatewayClient.open();
    open.push(client);
    const res = await client.handshake({ token: "ocs_0000000000000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" });
    expect(res.ok).toBe(false);
    expect(JSON.stringify(client.frames)).not.toContain("sessionDefaults");
    expect((await client.waitForClose()).code).toBe(1008);
  });

  it("closes 1009 for an oversize frame before the handshake", async () => {
    const client = await GatewayClient.open();
    open.push(client);
    await client.waitFor((f) => f.event === "connect.challenge");
    client.send("x".repeat(70 * 1024));
    expect((await client.waitForClose()).code).toBe(1009);
  });

  it("authenticates tenant tokens on /t/<tenant> and grants only held scopes", async () => {
    await createTenant("wsacme");
    const reader = await issueToken("wsacme", ["operator.read"]);
    const client = await connect({
      path: "/t/wsacme",
      token: reader.token,
      scopes: ["operator.read", "operator.write"],
    });
    const list = await client.request("sessions.list", {});
    expect(list.ok).toBe(true);
    const patch = await client.request("sessions.patch", { key: "main", label: "x" });
    expect(patch.error).toMatchObject({
      code: "FORBIDDEN",
      message: "missing scope: operator.write",
      details: { code: "MISSING_SCOPE" },
    });
  });

  it("closes open connections of a revoked token and refuses upgrades for unknown tenants", async () => {
    await createTenant("wsrevoke");
    const issued = await issueToken("wsrevoke");
    const client = await connect({ path: "/t/wsrevoke", token: issued.token });
    await call(`/v1/admin/tenants/wsrevoke/tokens/${issued.tokenId}`, { method: "DELETE", token: ADMIN });
    expect((await client.waitForClose()).code).toBe(1008);
    await expect(GatewayClient.open("/t/no-such-tenant")).rejects.toThrow(/404/);
  });

  it("refuses upgrades for a tenant deleted after its gateway was used (its existence is not remembered past deletion)", async () => {
    await createTenant("wsgone");
    const issued = await issueToken("wsgone");
    const client = await connect({ path: "/t/wsgone", token: issued.token });
    client.close();
    for (let step = 0; step < 5; step++) {
      const res = await call("/v1/admin/tenants/wsgone", { method: "DELETE", token: ADMIN });
      if (res.status === 404 || res.data?.done) break;
    }
    await expect(GatewayClient.open("/t/wsgone")).rejects.toThrow(/404/);
  });

  it("verifies an ed25519 device block signed over the v2 payload, and refuses a bad signature with 1008", async () => {
    const keys = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const raw = new Uint8Array((await crypto.subtle.exportKey("raw", keys.publicKey)) as ArrayBuffer);
    const b64url = (bytes: Uint8Array) =>
      btoa(String.fromCharCode(...bytes))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "");
    const deviceId = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", raw)), (b) =>
      b.toString(16).padStart(2, "0"),
    ).join("");
    const connectWith = async (tamper: boolean) => {
      const client = await GatewayClient.open();
      open.push(client);
      const challenge = (await client.waitFor((f) => f.event === "connect.challenge")).payload;
      const signedAt = Date.now();
      const payload = [
        "v2",
        deviceId,
        "test",
        "test",
        "operator",
        "operator.read",
        String(signedAt),
        "test-operator-token",
        challenge.nonce,
      ].join("|");
      const signature = new Uint8Array(
        await crypto.subtle.sign(
          { name: "Ed25519" },
          keys.privateKey,
          new TextEncoder().encode(tamper ? `${payload}x` : payload),
        ),
      );
      const res = await client.request("connect", {
        minProtocol: 4,
        maxProtocol: 4,
        client: { id: "test", version: "1.0.0", platform: "workerd", mode: "test" },
        role: "operator",
        scopes: ["operator.read"],
        auth: { token: "test-operator-token" },
        device: {
          id: deviceId,
          publicKey: b64url(raw),
          signature: b64url(signature),
          signedAt,
          nonce: challenge.nonce,
        },
      });
      return { client, res };
    };
    const good = await connectWith(false);
    expect(good.res.payload).toMatchObject({ type: "hello-ok", auth: { scopes: ["operator.read"] } });
    const bad = await connectWith(true);
    expect(bad.res.error).toMatchObject({
      code: "INVALID_REQUEST",
      details: { code: "DEVICE_AUTH_SIGNATURE_INVALID" },
    });
    expect((await bad.client.waitForClose()).code).toBe(1008);
  });

  it("reports missing scopes as INVALID_REQUEST to protocol 3 clients", async () => {
    await createTenant("wsv3");
    const reader = await issueToken("wsv3", ["operator.read"]);
    const client = await connect({ path: "/t/wsv3", token: reader.token, protocol: [3, 3] });
    const res = await client.request("chat.send", { sessionKey: "main", message: "hi", idempotencyKey: "v3-1" });
    expect(res.error).toEqual({ code: "INVALID_REQUEST", message: "missing scope: operator.write" });
  });
});

describe("gateway frames", () => {
  it("answers unknown methods, bad params and duplicate ids with error frames and stays open", async () => {
    const client = await connect();
    expect((await client.request("nope.method", {})).error).toMatchObject({
      code: "INVALID_REQUEST",
      message: "unknown method: nope.method",
    });
    const bad = await client.request("chat.history", {});
    expect(bad.error.code).toBe("INVALID_REQUEST");
    expect(bad.error.message).toBe("invalid chat.history params: must have required property 'sessionKey'");
    // Properties newer clients send are ignored; the known ones are still checked by type.
    const extra = await client.request("chat.history", { sessionKey: "main", bogus: 1 });
    expect(extra.ok).toBe(true);
    const mistyped = await client.request("chat.history", { sessionKey: "main", limit: "20" });
    expect(mistyped.error.code).toBe("INVALID_REQUEST");
    expect((await client.request("chat.send", { sessionKey: "main" })).error.message).toContain(
      "invalid chat.send params",
    );
    client.send("not json");
    client.send(new Uint8Array([1, 2, 3]).buffer as unknown as string);
    const health = await client.request("health", {});
    expect(health.ok).toBe(true);
    expect(client.closed).toBeNull();
  });
});

describe("gateway session methods", () => {
  it("lists, patches, resolves, previews, resets and deletes sessions", async () => {
    const client = await connect();
    await append("agent:main:gw-a", user("hello gw"));
    const list = await client.request("sessions.list", { limit: 10 });
    expect(list.payload).toMatchObject({ count: expect.any(Number), defaults: { mainSessionKey: "agent:main:main" } });
    expect(list.payload.sessions.map((s: any) => s.key)).toContain("agent:main:gw-a");

    const patched = await client.request("sessions.patch", {
      key: "agent:main:gw-a",
      label: "alpha",
      sendPolicy: "deny",
    });
    expect(patched.payload).toMatchObject({
      ok: true,
      key: "agent:main:gw-a",
      entry: { label: "alpha", sendPolicy: "deny" },
    });
    const cleared = await client.request("sessions.patch", { key: "agent:main:gw-a", sendPolicy: null });
    expect(cleared.payload.entry.sendPolicy).toBeUndefined();

    // By key, sessionId or label: the key and its agent, nothing else (as OpenClaw answers).
    expect((await client.request("sessions.resolve", { label: "alpha" })).payload).toEqual({
      ok: true,
      key: "agent:main:gw-a",
      agentId: "main",
    });
    expect((await client.request("sessions.resolve", { label: "nope" })).error.message).toBe(
      "No session found with label: nope",
    );
    expect((await client.request("sessions.resolve", { key: "a", label: "b" })).error.message).toBe(
      "Provide either key, sessionId, label, shortId, or reference (not multiple)",
    );
    expect((await client.request("sessions.resolve", {})).error.message).toBe(
      "Either key, sessionId, label, shortId, or reference is required",
    );

    const preview = await client.request("sessions.preview", { keys: ["agent:main:gw-a", "agent:main:missing"] });
    expect(preview.payload.previews).toEqual([
      { key: "agent:main:gw-a", status: "ok", items: [{ role: "user", text: "hello gw" }] },
      { key: "agent:main:missing", status: "missing", items: [] },
    ]);

    const reset = await client.request("sessions.reset", { key: "agent:main:gw-a" });
    expect(reset.payload).toMatchObject({ ok: true, key: "agent:main:gw-a" });
    const deleted = await client.request("sessions.delete", { key: "agent:main:gw-a" });
    expect(deleted.payload).toMatchObject({ ok: true, key: "agent:main:gw-a", deleted: true });
    expect((await client.request("sessions.delete", { key: "main" })).error.message).toBe(
      "Cannot delete the main session (agent:main:main).",
    );
  });

  it("creates sessions with a dashboard key and reads chat.history with __openclaw.seq", async () => {
    const client = await connect();
    const created = await client.request("sessions.create", { label: "board", message: "first words" });
    expect(created.payload.key).toMatch(/^agent:main:dashboard:[0-9a-f-]{36}$/);
    // The message starts the session's first turn.
    expect(created.payload).toMatchObject({ runStarted: true, status: "started", runId: expect.any(String) });
    expect((await client.request("agent.wait", { runId: created.payload.runId })).payload.status).toBe("ok");
    const injected = await client.request("chat.inject", {
      sessionKey: created.payload.key,
      message: "injected hello",
      label: "bot",
    });
    expect(injected.payload).toMatchObject({ ok: true, messageId: expect.any(String) });
    const history = await client.request("chat.history", { sessionKey: created.payload.key });
    expect(history.payload.sessionKey).toBe(created.payload.key);
    expect(history.payload.messages.map((m: any) => m.__openclaw.seq)).toEqual([1, 2, 3]);
    expect(history.payload.messages[1].content[0].text).toBe("ECHO: first words");
    expect(history.payload.messages[2]).toMatchObject({
      role: "assistant",
      provider: "openclaw",
      model: "gateway-injected",
      content: [{ type: "text", text: "[bot]\n\ninjected hello" }],
    });
    const unknownParent = await client.request("sessions.create", { parentSessionKey: "agent:main:ghost" });
    expect(unknownParent.error.message).toBe("unknown parent session: agent:main:ghost");
  });
});

describe("gateway events", () => {
  it("delivers session.message in transcript order to subscribers of that key only", async () => {
    const follower = await connect();
    const other = await connect();
    const sub = await follower.request("sessions.messages.subscribe", { key: "agent:main:live" });
    expect(sub.payload).toEqual({ subscribed: true, key: "agent:main:live" });
    await other.request("sessions.messages.subscribe", { key: "agent:main:elsewhere" });
    for (const text of ["one", "two", "three"]) await append("agent:main:live", user(text));
    await follower.waitFor(() => follower.events("session.message").length === 3);
    const events = follower.events("session.message");
    expect(events.map((e) => e.payload.message.content)).toEqual(["one", "two", "three"]);
    expect(events.map((e) => e.payload.messageSeq)).toEqual([1, 2, 3]);
    expect(events[0].payload).toMatchObject({
      sessionKey: "agent:main:live",
      message: { __openclaw: { seq: 1, id: expect.any(String) } },
    });
    // Every event frame carries the connection's own gap-free seq.
    const seqs = follower.frames.filter((f) => f.type === "event" && f.event !== "connect.challenge").map((f) => f.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(other.events("session.message")).toHaveLength(0);
  });

  it("sends sessions.subscribe'd connections every session's messages and its lifecycle reasons, each with the session row", async () => {
    const watcher = await connect();
    expect((await watcher.request("sessions.subscribe", {})).payload).toEqual({ subscribed: true });
    await append("agent:main:watched", user("hey"));
    await watcher.request("sessions.patch", { key: "agent:main:watched", label: "w" });
    await watcher.waitFor((f) => f.event === "sessions.changed" && f.payload.reason === "patch");
    const messages = watcher.events("session.message").filter((e) => e.payload.sessionKey === "agent:main:watched");
    expect(messages.map((e) => e.payload.message.content)).toEqual(["hey"]);
    expect(messages[0].payload.session).toMatchObject({ key: "agent:main:watched", agentId: "main" });
    const changes = watcher.events("sessions.changed").filter((e) => e.payload.sessionKey === "agent:main:watched");
    // A displayable message is a session.message, not a sessions.changed phase.
    expect(changes.map((e) => e.payload.reason ?? e.payload.phase)).toEqual(["create", "patch"]);
    expect(changes[1].payload.label).toBe("w");
    expect(changes[1].payload.session).toMatchObject({ key: "agent:main:watched", label: "w" });
    const unsub = await watcher.request("sessions.unsubscribe", {});
    expect(unsub.payload).toEqual({ subscribed: false });
  });

  it("keeps delivering to subscribers after both objects are evicted", async () => {
    const follower = await connect();
    await follower.request("sessions.messages.subscribe", { key: "agent:main:survivor" });
    await append("agent:main:survivor", user("before"));
    await follower.waitFor(() => follower.events("session.message").length === 1);
    await evictDurableObject(env.TENANTS.getByName("default"));
    await evictDurableObject(env.SESSIONS.getByName("default/agent:main:survivor"));
    await append("agent:main:survivor", user("after"));
    await follower.waitFor(() => follower.events("session.message").length === 2);
    expect(follower.events("session.message").map((e) => e.payload.message.content)).toEqual(["before", "after"]);
  });
});
