import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { freshTenant, type TestTenant, user } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

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
    const limit = await client.request("sessions.subscribe", { limit: "x" });
    expect(limit.error.message).toBe("invalid sessions.subscribe params: at /limit: must be integer");
    await tenant.append("agent:main:quiet", user("hello"));
    // A later request is answered after any event the append caused would have been sent.
    await client.request("sessions.list", {});
    expect(client.events("sessions.changed")).toHaveLength(0);
    expect(client.events("session.message")).toHaveLength(0);
  });
});

describe("sessions.describe and sessions.get", () => {
  it("sessions.describe answers the session's sessions.list row, and session:null for a key that does not exist", async () => {
    const tenant = await freshTenant("describe");
    await tenant.append("agent:main:described", user("what is here"));
    await tenant.patch("agent:main:described", { label: "desc" });
    const client = await connect(tenant);
    const listed = (await client.request("sessions.list", { includeLastMessage: true })).payload.sessions;
    const described = await client.request("sessions.describe", {
      key: "agent:main:described",
      includeLastMessage: true,
    });
    expect(described.ok).toBe(true);
    expect(described.payload.session).toEqual(listed.find((row: any) => row.key === "agent:main:described"));
    expect(described.payload.session).toMatchObject({ key: "agent:main:described", label: "desc", agentId: "main" });
    expect(described.payload.session.lastMessagePreview).toBe("what is here");
    const missing = await client.request("sessions.describe", { key: "agent:main:nothing-here" });
    expect(missing.payload).toEqual({ session: null });
    // A property it does not know is ignored (newer clients), a known one is typed.
    expect((await client.request("sessions.describe", { key: "x", bogus: 1 })).ok).toBe(true);
    const typed = await client.request("sessions.describe", { key: "x", includeLastMessage: "yes" });
    expect(typed.error.message).toBe("invalid sessions.describe params: at /includeLastMessage: must be boolean");
    const keyless = await client.request("sessions.describe", {});
    expect(keyless.error.message).toBe("invalid sessions.describe params: must have required property 'key'");
  });

  it("sessions.get answers the newest messages as stored with __openclaw (limit, key or sessionKey), none for an unknown session", async () => {
    const tenant = await freshTenant("sget");
    for (const text of ["m1", "m2", "m3"]) await tenant.append("agent:main:read", user(text));
    const client = await connect(tenant);
    const all = await client.request("sessions.get", { key: "agent:main:read" });
    expect(all.payload.messages.map((m: any) => m.content)).toEqual(["m1", "m2", "m3"]);
    expect(all.payload.messages[2].__openclaw).toMatchObject({ id: expect.any(String), seq: 3 });
    const tail = await client.request("sessions.get", { sessionKey: "agent:main:read", limit: 2 });
    expect(tail.payload.messages.map((m: any) => m.content)).toEqual(["m2", "m3"]);
    const unknown = await client.request("sessions.get", { key: "agent:main:never" });
    expect(unknown.payload).toEqual({ messages: [] });
    const keyless = await client.request("sessions.get", {});
    expect(keyless.error).toMatchObject({ code: "INVALID_REQUEST", message: "key required" });
  });

  it("both need only read scope and are listed in hello-ok features.methods, which lists exactly the methods answered", async () => {
    const tenant = await freshTenant("methods");
    const reader = await GatewayClient.open(tenant.prefix);
    open.push(reader);
    const hello = await reader.handshake({ token: tenant.token, scopes: ["operator.read"] });
    const methods: string[] = hello.payload.features.methods;
    expect(methods).toEqual(expect.arrayContaining(["sessions.describe", "sessions.get", "sessions.subscribe"]));
    expect(new Set(methods).size).toBe(methods.length);
    expect((await reader.request("sessions.describe", { key: "main" })).ok).toBe(true);
    expect((await reader.request("sessions.get", { key: "main" })).ok).toBe(true);
    // Every listed method is answered (no "unknown method"), whatever its params. An admin asks
    // (a read-only token would be closed after 20 refusals, as OpenClaw closes it).
    const admin = await GatewayClient.connect({ path: tenant.prefix, token: tenant.token });
    open.push(admin);
    // Features the Control UI offers that this service does not have are listed so that it shows
    // their refusal (src/features/host/host-slice.ts) instead of "Update the Gateway".
    const refused = ["openclaw.chat", "device.pair.setupCode"];
    for (const method of methods) {
      const res = await admin.request(method, {});
      if (refused.includes(method)) expect(res.error?.message, method).toMatch(/is not available on this gateway: /);
      else expect(res.error?.message ?? "", method).not.toMatch(/unknown method|not available/);
    }
    expect((await reader.request("sessions.nonexistent", {})).error.message).toBe(
      "unknown method: sessions.nonexistent",
    );
  });
});

/** The seqs of a client's event frames (connect.challenge comes before the handshake and has none). */
const eventSeqs = (client: GatewayClient) =>
  client.frames.filter((f) => f.type === "event" && f.event !== "connect.challenge").map((f) => f.seq);

describe("event seq", () => {
  // Runs the tenant object's alarm for the ticks: its sockets must all be there (not under `npm run test:hubs`).
  it.skipIf(Number(env.GATEWAY_HUB_SOCKETS) < 4)(
    "numbers every event frame per connection from 1 without gaps, whatever subset of events each connection receives",
    async () => {
      const tenant = await freshTenant("seq");
      const watcher = await connect(tenant);
      const follower = await connect(tenant);
      const plain = await connect(tenant);
      const noRead = await connect(tenant, { scopes: ["operator.approvals"] });
      await watcher.request("sessions.subscribe", {});
      await follower.request("sessions.messages.subscribe", { key: "agent:main:numbered" });
      const run = await watcher.request("chat.send", {
        sessionKey: "agent:main:numbered",
        message: "count me",
        idempotencyKey: "seq-run",
      });
      expect(run.ok).toBe(true);
      for (const client of [watcher, follower, plain]) {
        await client.waitFor((f) => f.event === "chat" && f.payload.runId === "seq-run" && f.payload.state === "final");
      }
      await follower.waitFor(() => follower.events("session.message").length === 2);
      await watcher.request("sessions.patch", { key: "agent:main:numbered", label: "numbered" });
      await watcher.waitFor((f) => f.event === "sessions.changed" && f.payload.reason === "patch");
      expect(await runDurableObjectAlarm(env.TENANTS.getByName(tenant.id))).toBe(true);
      for (const client of [watcher, follower, plain, noRead]) await client.waitFor((f) => f.event === "tick");

      // Each connection saw a different mix of events, each numbered 1, 2, 3, … on its own.
      const kinds = (client: GatewayClient) =>
        new Set(client.frames.filter((f) => f.type === "event").map((f) => f.event));
      expect(kinds(watcher)).toEqual(
        new Set(["connect.challenge", "sessions.changed", "session.message", "chat", "agent", "tick"]),
      );
      expect(kinds(follower)).toEqual(new Set(["connect.challenge", "session.message", "chat", "agent", "tick"]));
      expect(kinds(plain)).toEqual(new Set(["connect.challenge", "chat", "agent", "tick"]));
      expect(kinds(noRead)).toEqual(new Set(["connect.challenge", "tick"]));
      for (const client of [watcher, follower, plain, noRead]) {
        const seqs = eventSeqs(client);
        expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      }
      expect(eventSeqs(noRead)).toEqual([1]);
    },
  );
});

describe("sessions.changed and session.message", () => {
  const changesOf = (client: GatewayClient, key: string) =>
    client.events("sessions.changed").filter((e) => e.payload.sessionKey === key);
  const reasonOrPhase = (e: any) => e.payload.reason ?? `phase:${e.payload.phase}`;

  it("carry the session row as payload.session (a sessions.list row) with agentId", async () => {
    const tenant = await freshTenant("rows");
    const watcher = await connect(tenant);
    await watcher.request("sessions.subscribe", {});
    await tenant.append("agent:main:rowed", user("first words"));
    await watcher.request("sessions.patch", { key: "agent:main:rowed", label: "rowed" });
    const patched = await watcher.waitFor((f) => f.event === "sessions.changed" && f.payload.reason === "patch");
    const listed = (await watcher.request("sessions.list", { includeLastMessage: true })).payload.sessions;
    const row = listed.find((r: any) => r.key === "agent:main:rowed");
    expect(patched.payload.session).toEqual(row);
    expect(patched.payload).toMatchObject({ sessionKey: "agent:main:rowed", agentId: "main", label: "rowed" });
    const message = watcher.events("session.message").find((e) => e.payload.sessionKey === "agent:main:rowed");
    expect(message.payload).toMatchObject({
      agentId: "main",
      messageSeq: 1,
      session: { key: "agent:main:rowed", agentId: "main", sessionId: row.sessionId },
    });
  });

  it("say create for every sessions.create (an existing key too) and patch for every sessions.patch (a new key too)", async () => {
    const tenant = await freshTenant("reasons");
    const watcher = await connect(tenant);
    await watcher.request("sessions.subscribe", {});
    await watcher.request("sessions.create", { key: "agent:main:made" });
    await watcher.request("sessions.create", { key: "agent:main:made", label: "again" });
    await watcher.request("sessions.patch", { key: "agent:main:patched-new", label: "new by patch" });
    await watcher.waitFor((f) => f.event === "sessions.changed" && f.payload.sessionKey === "agent:main:patched-new");
    expect(changesOf(watcher, "agent:main:made").map(reasonOrPhase)).toEqual(["create", "create"]);
    expect(changesOf(watcher, "agent:main:patched-new").map(reasonOrPhase)).toEqual(["patch"]);
    // A child with its parent is one change, not a create and a patch.
    await watcher.request("sessions.create", { key: "agent:main:child", parentSessionKey: "agent:main:made" });
    await watcher.request("sessions.patch", { key: "agent:main:child", label: "after" });
    await watcher.waitFor(
      (f) =>
        f.event === "sessions.changed" && f.payload.sessionKey === "agent:main:child" && f.payload.reason === "patch",
    );
    const child = changesOf(watcher, "agent:main:child");
    expect(child.map(reasonOrPhase)).toEqual(["create", "patch"]);
    expect(child[0].payload.session.parentSessionKey).toBe("agent:main:made");
  });

  it("answer the caller of sessions.create, patch, reset and delete before sending it the change its request caused", async () => {
    const tenant = await freshTenant("resfirst");
    const caller = await connect(tenant);
    const other = await connect(tenant);
    await caller.request("sessions.subscribe", {});
    await other.request("sessions.subscribe", {});
    const calls: Array<[string, Record<string, unknown>, string]> = [
      ["sessions.create", { key: "agent:main:ordered" }, "create"],
      ["sessions.patch", { key: "agent:main:ordered", label: "ordered" }, "patch"],
      ["sessions.reset", { key: "agent:main:ordered" }, "reset"],
      ["sessions.delete", { key: "agent:main:ordered" }, "delete"],
    ];
    for (const [method, params, reason] of calls) {
      const res = await caller.request(method, params);
      expect(res.ok, method).toBe(true);
      const change = await caller.waitFor(
        (f) =>
          f.event === "sessions.changed" &&
          f.payload.reason === reason &&
          f.payload.sessionKey === "agent:main:ordered",
      );
      expect(caller.frames.indexOf(res), method).toBeLessThan(caller.frames.indexOf(change));
      await other.waitFor((f) => f.event === "sessions.changed" && f.payload.reason === reason);
    }
    const seqs = eventSeqs(caller);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it("name a run's changes as the real gateway: agent.run.started, phase start, phase end, agent.input.settled, and no message phase", async () => {
    const tenant = await freshTenant("runreasons");
    const watcher = await connect(tenant);
    await watcher.request("sessions.subscribe", {});
    await watcher.request("sessions.create", { key: "agent:main:turn" });
    await watcher.request("chat.send", { sessionKey: "agent:main:turn", message: "go", idempotencyKey: "turn-1" });
    await watcher.waitFor((f) => f.event === "sessions.changed" && f.payload.reason === "agent.input.settled");
    const changes = changesOf(watcher, "agent:main:turn");
    expect(changes.map(reasonOrPhase)).toEqual([
      "create",
      "agent.run.started",
      "phase:start",
      "phase:end",
      "agent.input.settled",
    ]);
    expect(changes.find((e) => e.payload.phase === "start").payload.runId).toBe("turn-1");
    expect(changes.find((e) => e.payload.phase === "end").payload.runId).toBe("turn-1");
    for (const change of changes) expect(change.payload.session).toMatchObject({ key: "agent:main:turn" });
    // The user message and the reply are session.message events, not sessions.changed phases.
    const messages = watcher.events("session.message").filter((e) => e.payload.sessionKey === "agent:main:turn");
    expect(messages.map((e) => e.payload.message.role)).toEqual(["user", "assistant"]);
    expect(messages.map((e) => e.payload.runId)).toEqual([undefined, "turn-1"]);
  });

  it("tell a real delete twice (the session's event, then the keyless one) and a delete of nothing not at all", async () => {
    const tenant = await freshTenant("deletes");
    const watcher = await connect(tenant);
    await watcher.request("sessions.subscribe", {});
    const created = await watcher.request("sessions.create", { key: "agent:main:doomed" });
    const deleted = await watcher.request("sessions.delete", { key: "agent:main:doomed" });
    expect(deleted.payload.deleted).toBe(true);
    const again = await watcher.request("sessions.delete", { key: "agent:main:doomed" });
    expect(again.payload.deleted).toBe(false);
    await watcher.request("sessions.delete", { key: "agent:main:never-was" });
    // Any event of the later deletes would be sent before this answer.
    await watcher.request("sessions.list", {});
    const deletes = watcher.events("sessions.changed").filter((e) => e.payload.reason === "delete");
    expect(deletes.map((e) => e.payload)).toEqual([
      {
        sessionKey: "agent:main:doomed",
        sessionId: created.payload.sessionId,
        agentId: "main",
        reason: "delete",
        ts: expect.any(Number),
      },
      { reason: "delete", ts: deletes[0].payload.ts },
    ]);
  });
});

describe("chat.history", () => {
  async function sevenMessages(label: string) {
    const tenant = await freshTenant(label);
    for (let i = 1; i <= 7; i++) {
      // About 600 bytes each, the third 3 KB.
      await tenant.append("agent:main:paged", user(`m${i} ${"x".repeat(i === 3 ? 3000 : 600)}`));
    }
    return { tenant, client: await connect(tenant) };
  }
  const texts = (res: any) => res.payload.messages.map((m: any) => (m.content as string).slice(0, 2));

  it("pages backwards by offset with hasMore, nextOffset and totalMessages as the real gateway", async () => {
    const { client } = await sevenMessages("hpage");
    const history = (params: Record<string, unknown>) =>
      client.request("chat.history", { sessionKey: "agent:main:paged", ...params });
    const all = await history({});
    expect(all.payload).toMatchObject({ hasMore: false, totalMessages: 7 });
    expect(all.payload.nextOffset).toBeUndefined();
    expect(texts(all)).toEqual(["m1", "m2", "m3", "m4", "m5", "m6", "m7"]);
    const newest = await history({ limit: 2 });
    expect(newest.payload).toMatchObject({ hasMore: true, nextOffset: 2, totalMessages: 7 });
    expect(texts(newest)).toEqual(["m6", "m7"]);
    const next = await history({ limit: 2, offset: 2 });
    expect(next.payload).toMatchObject({ offset: 2, hasMore: true, nextOffset: 4, totalMessages: 7 });
    expect(texts(next)).toEqual(["m4", "m5"]);
    const last = await history({ limit: 2, offset: 6 });
    expect(last.payload).toMatchObject({ offset: 6, hasMore: false, totalMessages: 7 });
    expect(texts(last)).toEqual(["m1"]);
    const past = await history({ offset: 10 });
    expect(past.payload).toMatchObject({ offset: 10, hasMore: false, messages: [] });
    const unknown = await client.request("chat.history", { sessionKey: "agent:main:no-such" });
    expect(unknown.payload).toMatchObject({ hasMore: false, totalMessages: 0, messages: [] });
  });

  it("honours maxBytes by leaving out the oldest messages that do not fit, the newest always kept", async () => {
    const { client } = await sevenMessages("hbytes");
    const history = (params: Record<string, unknown>) =>
      client.request("chat.history", { sessionKey: "agent:main:paged", ...params });
    const tiny = await history({ maxBytes: 1024 });
    expect(texts(tiny)).toEqual(["m7"]);
    expect(tiny.payload).toMatchObject({ hasMore: true, nextOffset: 1, totalMessages: 7 });
    const full = (await history({})).payload.messages;
    const size = (messages: unknown[]) => new TextEncoder().encode(JSON.stringify(messages)).length;
    // A budget between the four newest and the 3 KB message: the 3 KB message and all before it go.
    const budget = size(full.slice(3)) + 10;
    expect(budget).toBeLessThan(size(full.slice(2)));
    const capped = await history({ maxBytes: budget });
    expect(texts(capped)).toEqual(["m4", "m5", "m6", "m7"]);
    expect(size(capped.payload.messages)).toBeLessThanOrEqual(budget);
    expect(capped.payload).toMatchObject({ hasMore: true, nextOffset: 4 });
    // The next page continues where the capped one stopped.
    expect(texts(await history({ offset: 4, limit: 1 }))).toEqual(["m3"]);
    const refused = await history({ maxBytes: 1023 });
    expect(refused.error.message).toBe("invalid chat.history params: at /maxBytes: must be >= 1024");
  });

  it("gives each message __openclaw with id, seq and recordTimestampMs, a run's user message its idempotencyKey and its reply the runId", async () => {
    const tenant = await freshTenant("hmeta");
    const before = Date.now();
    await tenant.append("agent:main:meta", user("appended"));
    const client = await connect(tenant);
    await client.request("chat.send", { sessionKey: "agent:main:meta", message: "hi", idempotencyKey: "meta-run" });
    await client.waitFor((f) => f.event === "chat" && f.payload.runId === "meta-run" && f.payload.state === "final");
    const messages = (await client.request("chat.history", { sessionKey: "agent:main:meta" })).payload.messages;
    expect(messages.map((m: any) => m.role)).toEqual(["user", "user", "assistant"]);
    const [appended, sent, reply] = messages.map((m: any) => m.__openclaw);
    expect(appended).toEqual({ id: expect.any(String), seq: 1, recordTimestampMs: expect.any(Number) });
    expect(appended.recordTimestampMs).toBeGreaterThanOrEqual(before);
    expect(sent).toEqual({
      id: expect.any(String),
      seq: 2,
      recordTimestampMs: expect.any(Number),
      idempotencyKey: "meta-run:user",
    });
    expect(reply).toEqual({ id: expect.any(String), seq: 3, recordTimestampMs: expect.any(Number), runId: "meta-run" });
    // After a reset the new transcript's positions are not taken for the old run's.
    await client.request("sessions.reset", { key: "agent:main:meta" });
    for (const text of ["a", "b", "c"]) await tenant.append("agent:main:meta", user(text));
    const fresh = (await client.request("chat.history", { sessionKey: "agent:main:meta" })).payload.messages;
    for (const message of fresh) {
      expect(message.__openclaw.runId).toBeUndefined();
      expect(message.__openclaw.idempotencyKey).toBeUndefined();
    }
  });
});
