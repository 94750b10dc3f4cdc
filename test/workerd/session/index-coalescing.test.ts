import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SessionUpdate } from "../../../src/contracts/session-update";
import { COLD_WINDOW_MS } from "../../../src/session/publish-window";
import type { SessionObject } from "../../../src/session/session-object";
import type { TenantObject } from "../../../src/tenant/tenant-object";
import { freshTenant, type TestTenant, until } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

// A session nobody listens to sends at most one index update per COLD_WINDOW_MS
// (src/session/publish-window.ts); the tenant object is the tenant's one funnel.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ref = (t: TestTenant, key: string) => ({ tenantId: t.id, key, agentId: "main" });
const message = (text: string) => ({
  role: "assistant" as const,
  content: [{ type: "text", text }],
  provider: "openclaw",
  model: "gateway-injected",
  stopReason: "stop",
  timestamp: Date.now(),
});
type Seen = { at: number; seqs: number[] };
/** The tenant object's session directory (private), where every update is applied. */
type Spied = { seen?: Seen[]; parts: { directory: { apply(update: SessionUpdate): unknown } } };

/** Records every update the tenant object applies (what reached it, in arrival order). */
async function spyOnUpdates(t: TestTenant): Promise<() => Promise<Seen[]>> {
  const tenant = env.TENANTS.getByName(t.id);
  await runInDurableObject(tenant, (object: TenantObject) => {
    const instance = object as unknown as Spied;
    const apply = instance.parts.directory.apply.bind(instance.parts.directory);
    instance.seen = [];
    instance.parts.directory.apply = (update: SessionUpdate) => {
      instance.seen!.push({ at: Date.now(), seqs: update.messages.map((m) => m.seq) });
      return apply(update);
    };
  });
  return () => runInDurableObject(tenant, (object: TenantObject) => (object as unknown as Spied).seen ?? []);
}

/** What the session's publisher last heard from the tenant (private; null: unknown = someone listens). */
function audienceOf(session: DurableObjectStub<SessionObject>) {
  return () =>
    runInDurableObject(session, (object: SessionObject) => {
      const parts = (object as unknown as { parts: { publisher: unknown } }).parts;
      return (parts.publisher as { audience: unknown }).audience;
    });
}

/** A session with one message whose tenant answered "nobody listens". */
async function coldSession(label: string) {
  const t = await freshTenant(label);
  const key = `agent:main:${label}`;
  const session = env.SESSIONS.getByName(`${t.id}/${key}`);
  await session.append(ref(t, key), { messages: [message("created")] });
  const seen = await spyOnUpdates(t);
  const messageCount = async () => (await env.TENANTS.getByName(t.id).session(key))?.messageCount ?? 0;
  return { t, key, session, seen, messageCount };
}

describe("index updates coalesced per session", () => {
  it("a session nobody listens to sends one update per window; every message reaches the index once, in order", async () => {
    const { t, key, session, seen, messageCount } = await coldSession("coalesce");
    const started = Date.now();
    for (let i = 2; i <= 21; i++) {
      await session.append(ref(t, key), { messages: [message(`burst ${i}`)] });
      await sleep(50);
    }
    const spanMs = Date.now() - started;
    await until(messageCount, (count) => count === 21, 10_000);
    const updates = await seen();
    expect(updates.flatMap((u) => u.seqs)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    // One update per window the burst spanned (the old 200 ms delay sent 5 a second), plus the last.
    expect(updates.length).toBeLessThanOrEqual(Math.ceil(spanMs / COLD_WINDOW_MS) + 1);
    for (let i = 1; i < updates.length; i++) {
      expect(updates[i]!.at - updates[i - 1]!.at).toBeGreaterThanOrEqual(COLD_WINDOW_MS - 50);
    }
  });

  it("nothing is lost when the session object is evicted inside its window: the retry alarm sends it", async () => {
    const { t, key, session, seen, messageCount } = await coldSession("coalesce-evict");
    for (let i = 2; i <= 6; i++) await session.append(ref(t, key), { messages: [message(`before eviction ${i}`)] });
    await evictDurableObject(session);
    await until(messageCount, (count) => count === 6, 10_000);
    expect((await seen()).flatMap((u) => u.seqs)).toEqual([2, 3, 4, 5, 6]);
  });

  it("a subscriber that joins a quiet session gets its next message at once, not after the window", async () => {
    const { t, key, session, seen, messageCount } = await coldSession("coalesce-join");
    // The tenant's fresh answer: nobody listens.
    await session.append(ref(t, key), { messages: [message("quiet")] });
    await until(messageCount, (count) => count === 2, 10_000);
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    try {
      await client.request("sessions.messages.subscribe", { key });
      // The subscribe's notice to the session is not awaited by the request: wait until the
      // session forgot the tenant's "nobody listens" (a fixed sleep lost that race under load).
      await until(audienceOf(session), (audience) => audience === null, 10_000);
      // A held message arrives COLD_WINDOW_MS after its append at the earliest (the window's
      // timer starts after it), so an arrival inside the window proves it was not held.
      const sentAt = Date.now();
      await session.append(ref(t, key), { messages: [message("followed")] });
      await client.waitFor((f) => f.type === "event" && f.event === "session.message", 5_000);
      expect(Date.now() - sentAt).toBeLessThan(COLD_WINDOW_MS);
      // Followed now: the next one goes at once too.
      const nextAt = Date.now();
      await session.append(ref(t, key), { messages: [message("followed again")] });
      await client.waitFor(() => client.events("session.message").length === 2, 5_000);
      expect(Date.now() - nextAt).toBeLessThan(COLD_WINDOW_MS);
      expect((await seen()).flatMap((u) => u.seqs)).toEqual([2, 3, 4]);
    } finally {
      client.close();
    }
  });
});
