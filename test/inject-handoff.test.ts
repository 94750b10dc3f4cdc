import { evictDurableObject } from "cloudflare:test";
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

  it("a handed-back update its caller never applied leaves the index behind only until the session's next start", async () => {
    const t = await freshTenant("handoff-lost");
    const key = "agent:main:lost";
    const session = env.SESSIONS.getByName(`${t.id}/${key}`);
    await session.inject(ref(t, key), injected("delivered"), false);
    await until(
      () => rowOf(t, key),
      (row) => row?.messageCount === 1,
    );
    // What a caller that died between the answer and applying it leaves behind.
    const handed = await session.inject(ref(t, key), injected("never applied"), true);
    expect(updateOf(handed)?.messages.map((m) => m.seq)).toEqual([2]);
    expect((await rowOf(t, key))?.messageCount).toBe(1);
    await evictDurableObject(session);
    await session.entry();
    const row = await until(
      () => rowOf(t, key),
      (r) => r?.messageCount === 2,
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
});
