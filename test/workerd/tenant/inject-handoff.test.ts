import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { InjectResult } from "../../../src/contracts/session-api";
import type { SessionUpdate } from "../../../src/contracts/session-update";
import type { SessionRow } from "../../../src/model/session-row";
import type { TenantObject } from "../../../src/tenant/tenant-object";
import { freshTenant, type TestTenant, until } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

// chat.inject answered in the tenant object: the session object hands the update back in its
// answer (Publisher.handOff) instead of calling the tenant object, which applies it itself.

const connect = (t: TestTenant) => GatewayClient.connect({ path: t.prefix, token: t.token });
const rowOf = async (t: TestTenant, key: string) => env.TENANTS.getByName(t.id).session(key);
const ref = (t: TestTenant, key: string) => ({ tenantId: t.id, key, agentId: "main" });
/** The update a session handed back (the stub's type is the RPC-mapped one). */
const updateOf = (result: unknown) =>
  ((result as InjectResult & { update?: SessionUpdate }).update ?? null) as SessionUpdate | null;
const injected = (text: string) => ({
  role: "assistant" as const,
  content: [{ type: "text", text }],
  provider: "openclaw",
  model: "gateway-injected",
  stopReason: "stop",
  timestamp: Date.now(),
});

describe("chat.inject handed back to the tenant object", () => {
  it("announces each inject once, chat final before session.message, with the index row current at the answer", async () => {
    const t = await freshTenant("handoff");
    const key = "agent:main:handoff";
    const injector = await connect(t);
    // The session exists first (a new one is announced with its first message: the create).
    await injector.request("chat.inject", { sessionKey: key, message: "note 0" });
    const watcher = await connect(t);
    await watcher.request("sessions.subscribe", {});
    for (let i = 1; i <= 5; i++) {
      const answer = await injector.request("chat.inject", { sessionKey: key, message: `note ${i}` });
      expect(answer.payload).toMatchObject({ ok: true, messageSeq: i + 1 });
      // Current at the answer: a read of the index writes a held row first.
      expect((await rowOf(t, key))?.messageCount).toBe(i + 1);
    }
    await watcher.waitFor(() => watcher.events("session.message").length === 5);
    const order = watcher.frames
      .filter((f) => f.type === "event" && ["chat", "session.message"].includes(f.event))
      .map((f) => (f.event === "chat" ? `chat ${f.payload.state}` : `message ${f.payload.messageSeq}`));
    expect(order).toEqual([2, 3, 4, 5, 6].flatMap((i) => ["chat final", `message ${i}`]));
    // Evicted and woken again, the session sends its unacknowledged row, never a message twice.
    await evictDurableObject(env.SESSIONS.getByName(`${t.id}/${key}`));
    await injector.request("chat.history", { sessionKey: key });
    await injector.request("chat.inject", { sessionKey: key, message: "note 6" });
    await watcher.waitFor(() => watcher.events("session.message").length === 6);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(watcher.events("session.message").map((e) => e.payload.messageSeq)).toEqual([2, 3, 4, 5, 6, 7]);
  });

  it("is the path of a socket the tenant object holds (its in-process ports), not of a plain stub caller", async () => {
    const t = await freshTenant("handoff-wired");
    const key = "agent:main:wired";
    const session = env.SESSIONS.getByName(`${t.id}/${key}`);
    /** The entry version whose row a caller was handed (-1: none; reset at the retry alarm, 1 s). */
    const handedVersion = () =>
      runInDurableObject(
        session,
        (instance) =>
          (instance as unknown as { parts: { publisher: { handedVersion: number } } }).parts.publisher.handedVersion,
      );
    const client = await connect(t);
    await client.request("chat.inject", { sessionKey: key, message: "first" });
    await until(
      () => rowOf(t, key),
      (row) => row?.messageCount === 1,
    );
    await until(handedVersion, (version) => version === -1, 5_000);
    await client.request("chat.inject", { sessionKey: key, message: "handed back" });
    expect(await handedVersion()).toBeGreaterThan(-1);
    // The stub's own inject (the worker's ports) asks for no hand-off.
    await until(handedVersion, (version) => version === -1, 5_000);
    await session.inject(ref(t, key), injected("published by the session"));
    expect(await handedVersion()).toBe(-1);
  });

  // What a caller that died between the answer and applying it leaves behind — or a tenant
  // object that restarted while it held the row in memory (tenant/held-index-rows.ts).
  it.each([
    ["at the session's next alarm (the retry the append armed, 1 s)", false],
    ["when the session object starts again", true],
  ])("a handed-back row its caller never applied reaches the index %s", async (_when, restart) => {
    const t = await freshTenant("handoff-lost");
    const key = "agent:main:lost";
    const session = env.SESSIONS.getByName(`${t.id}/${key}`);
    await session.inject(ref(t, key), injected("delivered"), false);
    await until(
      () => rowOf(t, key),
      (row) => row?.messageCount === 1,
    );
    const handed = await session.inject(ref(t, key), injected("never applied"), true);
    expect(updateOf(handed)?.messages.map((m) => m.seq)).toEqual([2]);
    expect((await rowOf(t, key))?.messageCount).toBe(1);
    if (restart) {
      // Without its retry alarm, only the restart can send the row again.
      await runInDurableObject(session, (_instance, state) => state.storage.deleteAlarm());
      await evictDurableObject(session);
      await session.entry();
    }
    const row = await until(
      () => rowOf(t, key),
      (r) => r?.messageCount === 2,
      5_000,
    );
    expect(row?.messageCount).toBe(2);
  });

  it("two injects handed back at once carry one message each: applied in either order, each is announced once", async () => {
    const t = await freshTenant("handoff-race");
    const key = "agent:main:race";
    const session = env.SESSIONS.getByName(`${t.id}/${key}`);
    await session.inject(ref(t, key), injected("first"), false);
    const watcher = await connect(t);
    await watcher.request("sessions.subscribe", {});
    const results = await Promise.all([
      session.inject(ref(t, key), injected("second"), true),
      session.inject(ref(t, key), injected("third"), true),
    ]);
    const updates = results.flatMap((r) => updateOf(r) ?? []);
    expect(updates.map((u) => u.messages.map((m) => m.seq))).toEqual([[2], [3]]);
    // The later one first, as if its answer overtook the other's.
    for (const update of updates.reverse()) await env.TENANTS.getByName(t.id).publish({ ...update, handedOff: true });
    await watcher.waitFor(() => watcher.events("session.message").length === 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(watcher.events("session.message").map((e) => e.payload.messageSeq)).toEqual([3, 2]);
    expect((await rowOf(t, key))?.messageCount).toBe(3);
  });

  it("holds a handed-off row in memory and writes it before any statement of the index, or on its own within 100 ms", async () => {
    const t = await freshTenant("handoff-held");
    const key = "agent:main:held";
    const session = env.SESSIONS.getByName(`${t.id}/${key}`);
    const tenant = env.TENANTS.getByName(t.id);
    await session.inject(ref(t, key), injected("created"), false);
    await until(
      () => rowOf(t, key),
      (row) => row?.messageCount === 1,
    );
    /** A handed-back update; the session's retry alarm is taken away, so only the tenant writes its row. */
    const handedOff = async (text: string) => {
      const update = updateOf(await session.inject(ref(t, key), injected(text), true));
      await runInDurableObject(session, (_instance, state) => state.storage.deleteAlarm());
      return { ...update!, handedOff: true };
    };
    /** The row as stored, read past the index store. */
    const stored = (state: DurableObjectState) =>
      (
        JSON.parse(
          state.storage.sql.exec<{ row: string }>("SELECT row FROM sessions WHERE key = ?", key).one().row,
        ) as SessionRow
      ).messageCount;
    const first = await handedOff("held 1");
    const seen = await runInDurableObject(tenant, (instance: TenantObject, state) => {
      instance.publish(first);
      const held = stored(state);
      // Any read of the index writes the held rows first.
      const read = instance.session(key)?.messageCount;
      return { held, read, written: stored(state) };
    });
    expect(seen).toEqual({ held: 1, read: 2, written: 2 });
    const second = await handedOff("held 2");
    const held = await runInDurableObject(tenant, (instance: TenantObject, state) => {
      instance.publish(second);
      return stored(state);
    });
    expect(held).toBe(2);
    // No read: the row is written on its own.
    await until(
      () => runInDurableObject(tenant, (_instance, state) => stored(state)),
      (count) => count === 3,
      2_000,
    );
  });
});
