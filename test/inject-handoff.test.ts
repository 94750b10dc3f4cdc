import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { InjectResult } from "../src/contracts/session-api";
import type { SessionUpdate } from "../src/contracts/session-update";
import { freshTenant, type TestTenant, until } from "./helpers";
import { GatewayClient } from "./ws-helpers";

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
      // Written before the answer: a list right after sees the message.
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

  // What a caller that died between the answer and applying it leaves behind — or a tenant
  // object that restarted while it held the row in memory (IndexStore.deferRow).
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

  it("holds the rows of injects in memory, written before any read or soon after on their own", async () => {
    const t = await freshTenant("handoff-held");
    const key = "agent:main:held";
    const injector = await connect(t);
    await injector.request("chat.inject", { sessionKey: key, message: "note 0" });
    await injector.request("chat.inject", { sessionKey: key, message: "note 1" });
    const tenant = env.TENANTS.getByName(t.id);
    // The table as stored, read past the index store.
    const storedCount = () =>
      runInDurableObject(tenant, (_instance, state) => {
        const { row } = state.storage.sql.exec<{ row: string }>("SELECT row FROM sessions WHERE key = ?", key).one();
        return (JSON.parse(row) as { messageCount: number }).messageCount;
      });
    // In memory for now: the table holds the row written when the session was created.
    expect(await storedCount()).toBe(1);
    // Any read of the index writes the held rows first.
    expect((await injector.request("sessions.list", {})).payload.sessions[0]).toMatchObject({ key, messageCount: 2 });
    expect(await storedCount()).toBe(2);
    // Held again, the row is written on its own soon after, with no read.
    await injector.request("chat.inject", { sessionKey: key, message: "note 2" });
    expect(await storedCount()).toBe(2);
    await until(storedCount, (count) => count === 3, 2_000);
  });
});
