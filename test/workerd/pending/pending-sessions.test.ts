import { evictDurableObject, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { sessionObjectName } from "../../../src/stubs";
import { TenantObject } from "../../../src/tenant/tenant-object";
import { freshTenant, type TestTenant, until, user } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * sessions.patch of a new key writes the entry in the tenant object alone (pending-sessions.ts):
 * no session object until the session is used, and the object then adopts that entry, so
 * the creator's sessionId, label and lineage hold.
 */

const sessionIds = async () => (await listDurableObjectIds(env.SESSIONS)).map((id) => id.toString());
const sessionIdOf = (t: TestTenant, key: string) => env.SESSIONS.idFromName(sessionObjectName(t.id, key)).toString();
const pendingRows = (t: TestTenant) =>
  runInDurableObject(env.TENANTS.getByName(t.id), async (_instance, state) =>
    state.storage.sql.exec<{ key: string; claimed: number }>("SELECT key, claimed FROM pending_sessions").toArray(),
  );

async function created(t: TestTenant, key: string, fields: Record<string, unknown> = {}) {
  const res = await t.patch(key, fields);
  expect(res.status).toBe(200);
  return res.data.entry as { sessionId: string; label?: string };
}

describe("pending sessions: created by the tenant, adopted on first use", () => {
  it("sessions.patch of a new key creates no session object, and the list has it at once", async () => {
    const t = await freshTenant("pending-create");
    const key = "agent:main:pending-a";
    const entry = await created(t, key, { label: "Pending A" });
    expect(await sessionIds()).not.toContain(sessionIdOf(t, key));
    const list = await t.list();
    const row = list.data.sessions.find((s: { key: string }) => s.key === key);
    expect(row).toMatchObject({ key, sessionId: entry.sessionId, label: "Pending A" });
    expect(await pendingRows(t)).toEqual([{ key, claimed: 0 }]);
  });

  it("sessions.create over the gateway makes a pending session too: no object, listed, adopted with its sessionId", async () => {
    const t = await freshTenant("pending-gw-create");
    const key = "agent:main:pending-gw";
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    try {
      const res = await client.request("sessions.create", { key, label: "From the UI" });
      expect(res.ok).toBe(true);
      const sessionId = res.payload.entry?.sessionId ?? res.payload.sessionId;
      expect(typeof sessionId).toBe("string");
      expect(await sessionIds()).not.toContain(sessionIdOf(t, key));
      const listed = await client.request("sessions.list", {});
      expect(listed.payload.sessions.find((s: { key: string }) => s.key === key)).toMatchObject({
        key,
        sessionId,
        label: "From the UI",
      });
      const appended = await t.append(key, user("first message"));
      expect(appended.status).toBe(201);
      expect(appended.data).toMatchObject({ sessionId, seq: 1 });
      expect(await sessionIds()).toContain(sessionIdOf(t, key));
    } finally {
      client.close();
    }
  });

  it("patches before first use change the pending entry; the first use adopts it with its sessionId", async () => {
    const t = await freshTenant("pending-adopt");
    const key = "agent:main:pending-b";
    const first = await created(t, key, { label: "one" });
    const second = await created(t, key, { label: "two", model: "echo" });
    expect(second.sessionId).toBe(first.sessionId);
    // Reading the history is a first use: the object appears and holds the tenant's entry.
    const history = await t.call(`/sessions/${encodeURIComponent(key)}/history`);
    expect(history.status).toBe(200);
    expect(history.data).toMatchObject({ sessionKey: key, messages: [] });
    expect(await sessionIds()).toContain(sessionIdOf(t, key));
    const appended = await t.append(key, user("hello"));
    expect(appended.data).toMatchObject({ sessionId: first.sessionId, seq: 1 });
    const entry = await env.SESSIONS.getByName(sessionObjectName(t.id, key)).entry();
    expect(entry).toMatchObject({ sessionId: first.sessionId, label: "two", model: "echo", messageCount: 1 });
    // The object's first publish retires the pending row; the index shows the message.
    await until(
      () => pendingRows(t),
      (rows) => rows.length === 0,
    );
    const row = (await t.list()).data.sessions.find((s: { key: string }) => s.key === key);
    expect(row).toMatchObject({ sessionId: first.sessionId, label: "two" });
  });

  it("after a claim, patches go to the session object (none is lost to the pending copy)", async () => {
    const t = await freshTenant("pending-claimed");
    const key = "agent:main:pending-c";
    const { sessionId } = await created(t, key, { label: "before" });
    await env.SESSIONS.getByName(sessionObjectName(t.id, key)).entry(); // claims, publishes nothing
    expect(await pendingRows(t)).toEqual([{ key, claimed: 1 }]);
    const after = await created(t, key, { label: "after" });
    expect(after).toMatchObject({ sessionId, label: "after" });
    const entry = await env.SESSIONS.getByName(sessionObjectName(t.id, key)).entry();
    expect(entry).toMatchObject({ sessionId, label: "after" });
    expect(await pendingRows(t)).toEqual([]);
  });

  it("an object that lost its adoption (evicted before writing) claims the same entry again", async () => {
    const t = await freshTenant("pending-reclaim");
    const key = "agent:main:pending-d";
    const { sessionId } = await created(t, key);
    const stub = env.TENANTS.getByName(t.id);
    expect(await stub.claimPendingSession(key, "write")).toMatchObject({ entry: { sessionId } });
    await evictDurableObject(stub);
    const again = await stub.claimPendingSession(key, "write");
    expect(again).toMatchObject({ entry: { sessionId }, version: 1 });
  });

  it("a chat turn on a pending session runs in the created session", async () => {
    const t = await freshTenant("pending-run");
    const key = "agent:main:pending-e";
    const { sessionId } = await created(t, key, { label: "Run here" });
    const res = await t.call(`/v1/sessions/${encodeURIComponent(key)}/messages`, {
      method: "POST",
      json: { ...user("ping"), run: true },
    });
    expect(res.status).toBe(201);
    expect(res.data).toMatchObject({ sessionKey: key, sessionId });
    const history = await until(
      () => t.call(`/sessions/${encodeURIComponent(key)}/history`),
      (h) => h.data.messages?.length === 2,
    );
    expect(history.data.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
  });

  it("a chat.send over the gateway claims for the session object (no call back): new, pending and published keys", async () => {
    const t = await freshTenant("pending-preclaim");
    const tenant = env.TENANTS.getByName(t.id);
    // What the tenant object answers before it starts a run: a new key gets the claimed marker,
    // a pending one hands over its entry, a published one needs nothing.
    expect(await tenant.claimPendingSession("agent:main:brand-new", "start")).toBeNull();
    expect(await pendingRows(t)).toEqual([{ key: "agent:main:brand-new", claimed: 1 }]);
    const { sessionId } = await created(t, "agent:main:pre-pending", { label: "Pending" });
    const claimed = await tenant.claimPendingSession("agent:main:pre-pending", "start");
    expect(claimed && "entry" in claimed ? claimed.entry : null).toMatchObject({ sessionId, label: "Pending" });
    await t.append("agent:main:published", user("hi"));
    await until(
      () => tenant.session("agent:main:published"),
      (row) => row !== null,
    );
    expect(await tenant.claimPendingSession("agent:main:published", "start")).toBeUndefined();

    // Over the gateway: the created session runs with its sessionId; the claims are gone once it published.
    const key = "agent:main:pre-run";
    const made = await created(t, key, { label: "Run" });
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    const send = await client.request("chat.send", { sessionKey: key, message: "hello", idempotencyKey: "pre-1" });
    expect(send.ok).toBe(true);
    await client.waitFor((f) => f.event === "chat" && f.payload.runId === "pre-1" && f.payload.state === "final");
    expect((await env.SESSIONS.getByName(sessionObjectName(t.id, key)).entry())?.sessionId).toBe(made.sessionId);
    const rows = await until(
      () => pendingRows(t),
      (r) => !r.some((row) => row.key === key),
    );
    expect(rows.some((row) => row.key === key)).toBe(false);
  });

  it("a new key's chat.send takes two hops: the tenant object claims for the session object, which does not ask again", async () => {
    const t = await freshTenant("pending-hops");
    const intents: string[] = [];
    // Counted on the class: an RPC from the session object reaches only prototype methods.
    const proto = TenantObject.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
    const claim = proto.claimPendingSession!;
    proto.claimPendingSession = function (this: unknown, key: unknown, intent: unknown) {
      if (key === "agent:main:hops") intents.push(String(intent));
      return claim.call(this, key, intent);
    };
    onTestFinished(() => {
      proto.claimPendingSession = claim;
    });
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    const send = await client.request("chat.send", {
      sessionKey: "agent:main:hops",
      message: "hi",
      idempotencyKey: "hops-1",
    });
    expect(send.ok).toBe(true);
    await client.waitFor((f) => f.event === "chat" && f.payload.runId === "hops-1" && f.payload.state === "final");
    // Made once, before the start; the session object adopted it without calling back.
    expect(intents).toEqual(["start"]);
  });

  it("deleting a pending session removes it; the key can be created anew", async () => {
    const t = await freshTenant("pending-delete");
    const key = "agent:main:pending-f";
    const { sessionId } = await created(t, key);
    const res = await t.call(`/v1/sessions/${encodeURIComponent(key)}`, { method: "DELETE" });
    expect(res.status).toBe(200);
    expect((await t.list()).data.sessions.map((s: { key: string }) => s.key)).not.toContain(key);
    expect(await pendingRows(t)).toEqual([]);
    const again = await created(t, key);
    expect(again.sessionId).not.toBe(sessionId);
  });

  it("a reset right after adoption is a new transcript, not a conflict", async () => {
    const t = await freshTenant("pending-reset");
    const key = "agent:main:pending-h";
    const { sessionId } = await created(t, key, { label: "to reset" });
    const warn = vi.spyOn(console, "warn");
    const res = await t.call(`/v1/sessions/${encodeURIComponent(key)}/reset`, { method: "POST" });
    expect(res.status).toBe(200);
    const renewed = res.data.entry.sessionId;
    expect(renewed).not.toBe(sessionId);
    const row = (await t.list()).data.sessions.find((s: { key: string }) => s.key === key);
    expect(row).toMatchObject({ sessionId: renewed, label: "to reset" });
    expect(await pendingRows(t)).toEqual([]);
    expect(warn.mock.calls.flat().join("\n")).not.toContain("session.create_conflict");
    warn.mockRestore();
  });

  it("an object that made its own entry without claiming keeps it; the pending copy goes", async () => {
    const t = await freshTenant("pending-conflict");
    const key = "agent:main:pending-i";
    const { sessionId: pendingId } = await created(t, key);
    // As if the object had created its entry before the tenant's create (its first publish lost).
    const own = await runInDurableObject(env.SESSIONS.getByName(sessionObjectName(t.id, key)), async (instance) => {
      const { transcript } = (
        instance as unknown as {
          parts: { transcript: { ensureEntry: (...args: unknown[]) => boolean; entry: () => { sessionId: string } } };
        }
      ).parts;
      transcript.ensureEntry({ tenantId: t.id, key, agentId: "main" }, undefined, Date.now());
      return transcript.entry().sessionId;
    });
    expect(own).not.toBe(pendingId);
    const warn = vi.spyOn(console, "warn");
    await t.append(key, user("mine"));
    const row = await until(
      async () => (await t.list()).data.sessions.find((s: { key: string }) => s.key === key),
      (r) => r?.sessionId === own,
    );
    expect(row).toMatchObject({ sessionId: own, messageCount: 1 });
    // The announced id that never became the session's resolves to nothing.
    expect(await env.TENANTS.getByName(t.id).keyForSessionId(pendingId)).toBeNull();
    expect(warn.mock.calls.flat().join("\n")).toContain("session.create_conflict");
    warn.mockRestore();
    expect(await pendingRows(t)).toEqual([]);
  });

  it("a create racing an object's first write goes to that object, so the client's sessionId holds", async () => {
    const t = await freshTenant("pending-race");
    const key = "agent:main:pending-j";
    // The object is about to write its first entry: its write claim found nothing.
    expect(await env.TENANTS.getByName(t.id).claimPendingSession(key, "write")).toBeNull();
    const entry = await created(t, key, { label: "raced" });
    expect(await sessionIds()).toContain(sessionIdOf(t, key));
    const own = await env.SESSIONS.getByName(sessionObjectName(t.id, key)).entry();
    expect(own).toMatchObject({ sessionId: entry.sessionId, label: "raced" });
    await until(
      () => pendingRows(t),
      (rows) => rows.length === 0,
    );
  });

  it("keys too long for the object to learn its name are created by the object, as before", async () => {
    const t = await freshTenant("pending-long");
    const key = `agent:main:${"中".repeat(400)}`;
    const entry = await created(t, key, { label: "long" });
    expect(await pendingRows(t)).toEqual([]);
    const own = await env.SESSIONS.getByName(sessionObjectName(t.id, key)).entry();
    expect(own).toMatchObject({ sessionId: entry.sessionId, label: "long" });
  });

  it("the runs list of a pending session is empty, not a 404", async () => {
    const t = await freshTenant("pending-runs");
    const key = "agent:main:pending-k";
    await created(t, key);
    const res = await t.call(`/v1/sessions/${encodeURIComponent(key)}/runs`);
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({ ok: true, runs: [] });
  });

  it("a late update of a deleted transcript leaves a newer pending entry of the key alone", async () => {
    const t = await freshTenant("pending-late");
    const key = "agent:main:pending-l";
    await t.append(key, user("first life"));
    const old = await env.SESSIONS.getByName(sessionObjectName(t.id, key)).indexSnapshot();
    expect((await t.call(`/v1/sessions/${encodeURIComponent(key)}`, { method: "DELETE" })).status).toBe(200);
    const { sessionId } = await created(t, key, { label: "second life" });
    const tenant = env.TENANTS.getByName(t.id);
    await tenant.publish({
      key,
      version: old!.version + 5,
      row: { ...old!.row, updatedAt: Date.now() + 1000 },
      sessionId: old!.row.sessionId,
      messages: [],
      reasons: [],
      events: [],
    });
    expect(await pendingRows(t)).toEqual([{ key, claimed: 0 }]);
    const row = (await t.list()).data.sessions.find((s: { key: string }) => s.key === key);
    expect(row).toMatchObject({ sessionId, label: "second life" });
  });

  it("rebuilding the index keeps unclaimed pending sessions", async () => {
    const t = await freshTenant("pending-rebuild");
    const key = "agent:main:pending-g";
    await created(t, key, { label: "kept" });
    const rebuilt = await env.TENANTS.getByName(t.id).rebuildIndex();
    expect(rebuilt.sessions).toBe(1);
    const row = (await t.list()).data.sessions.find((s: { key: string }) => s.key === key);
    expect(row).toMatchObject({ key, label: "kept" });
  });
});
