import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { TIMER_LEASE_MS, TIMER_RETRY_MS, type TimerHandlers, Timers } from "../../../src/timers/timers";
import { call, createTenant, issueToken, until } from "../support/helpers";

const peer = `http://127.0.0.1:${inject("peerPort")}`;

type Row = { kind: string; ref: string; due_at: number; leased: number; attempts: number };

function rows(sql: SqlStorage): Row[] {
  return sql.exec<Row>("SELECT kind, ref, due_at, leased, attempts FROM timers ORDER BY kind, ref").toArray();
}

/** Handlers that do nothing unless a test overrides one kind. */
function handlers(overrides: Partial<TimerHandlers>): TimerHandlers {
  const none = () => undefined;
  return {
    "run-release": none,
    "run-timeout": none,
    "run-watchdog": none,
    delivery: none,
    flow: none,
    "spawn-announce": none,
    "spawn-archive": none,
    ...overrides,
  };
}

describe("timers (leases, retries, recovery) on a real object's SQLite", () => {
  const stubFor = (name: string) => env.SESSIONS.getByName(`timers-unit/${name}`);

  it("keeps a job's row leased while its work runs and removes it only when the work is done", async () => {
    await runInDurableObject(stubFor("lease"), async (_instance, state) => {
      const timers = new Timers(state.storage);
      const now = Date.now();
      timers.set("delivery", "d1", now - 1);
      let seenDuringWork: Row[] = [];
      await timers.fire(
        handlers({
          delivery: async () => {
            seenDuringWork = rows(state.storage.sql);
          },
        }),
        now,
      );
      // While the handler ran, the row was still there, leased and pushed out by the lease.
      expect(seenDuringWork).toEqual([
        { kind: "delivery", ref: "d1", due_at: now + TIMER_LEASE_MS, leased: 1, attempts: 0 },
      ]);
      expect(rows(state.storage.sql)).toEqual([]);
    });
  });

  it("a handler that reschedules its own job keeps the new due time", async () => {
    await runInDurableObject(stubFor("resched"), async (_instance, state) => {
      const timers = new Timers(state.storage);
      const now = Date.now();
      timers.set("flow", "f1", now - 1);
      await timers.fire(handlers({ flow: (ref) => timers.set("flow", ref, now + 30_000) }), now);
      expect(rows(state.storage.sql)).toEqual([
        { kind: "flow", ref: "f1", due_at: now + 30_000, leased: 0, attempts: 0 },
      ]);
    });
  });

  it("a failing handler is retried with backoff and its attempt count is stored", async () => {
    await runInDurableObject(stubFor("retry"), async (_instance, state) => {
      const timers = new Timers(state.storage);
      const now = Date.now();
      timers.set("spawn-announce", "r1", now - 1);
      const failing = handlers({
        "spawn-announce": () => {
          throw new Error("requester unreachable");
        },
      });
      await timers.fire(failing, now);
      const [first] = rows(state.storage.sql);
      expect(first).toMatchObject({ leased: 0, attempts: 1 });
      expect(first!.due_at).toBeGreaterThanOrEqual(now + TIMER_RETRY_MS);
      // A second failure doubles the delay (the count is in the row, so a restart keeps it).
      const before = Date.now();
      await timers.fire(failing, first!.due_at);
      const [second] = rows(state.storage.sql);
      expect(second).toMatchObject({ leased: 0, attempts: 2 });
      expect(second!.due_at).toBeGreaterThanOrEqual(before + 2 * TIMER_RETRY_MS);
    });
  });

  it("a new instance makes the jobs a dead instance was running due at once", async () => {
    await runInDurableObject(stubFor("recover"), async (_instance, state) => {
      const now = Date.now();
      state.storage.sql.exec(
        "INSERT INTO timers (due_at, kind, ref, leased) VALUES (?, 'delivery', 'cut-off', 1), (?, 'flow', 'later', 0)",
        now + TIMER_LEASE_MS,
        now + 3_600_000,
      );
      new Timers(state.storage).recoverLeases(now);
      expect(rows(state.storage.sql)).toEqual([
        { kind: "delivery", ref: "cut-off", due_at: now, leased: 0, attempts: 0 },
        { kind: "flow", ref: "later", due_at: now + 3_600_000, leased: 0, attempts: 0 },
      ]);
    });
  });
});

describe("durable jobs survive an eviction at an await", () => {
  async function deliveryTenant(path: string) {
    const id = `cutoff-${crypto.randomUUID().slice(0, 8)}`;
    await createTenant(id);
    const { token } = await issueToken(id);
    const config = {
      gateway: { tools: { allow: ["sessions_send"] } },
      tools: { sessions: { visibility: "agent" } },
      session: { agentToAgent: { maxPingPongTurns: 0 } },
      delivery: { webhookUrl: `${peer}${path}`, maxAttempts: 5 },
    };
    expect((await call(`/t/${id}/v1/config`, { method: "PUT", token, json: config })).status).toBe(200);
    const key = "agent:main:target";
    const seeded = await call(`/t/${id}/v1/sessions/${key}/messages`, {
      method: "POST",
      token,
      json: { role: "user", content: "hi", deliveryContext: { channel: "slack", to: "C7" } },
    });
    expect(seeded.status).toBe(201);
    const deliveries = async () =>
      (await call(`/t/${id}/v1/sessions/${key}/deliveries`, { token })).data.deliveries as any[];
    return { id, token, key, stub: env.SESSIONS.getByName(`${id}/${key}`), deliveries };
  }
  const recorded = async (path: string) =>
    (await (await fetch(`${peer}/control/recorded?path=${path}`)).json()) as any[];

  it("evicting the object while a delivery is in flight loses nothing and sends one idempotency key", async () => {
    const path = `/delivery/slow-1500/${crypto.randomUUID()}`;
    const t = await deliveryTenant(path);
    const sent = await call(`/t/${t.id}/tools/invoke`, {
      method: "POST",
      token: t.token,
      json: { tool: "sessions_send", args: { sessionKey: t.key, message: "news?", timeoutSeconds: 0 } },
    });
    expect(sent.status).toBe(200);
    await until(
      () => recorded(path),
      (list) => list.length === 1,
    );
    await evictDurableObject(t.stub);
    const done = await until(t.deliveries, (list) => list[0]?.status === "delivered", 20_000);
    expect(done).toHaveLength(1);
    const received = await recorded(path);
    expect(new Set(received.map((r) => r.body.idempotencyKey))).toEqual(new Set([done[0].idempotencyKey]));
  });

  it("a delivery a dead instance left mid-attempt (leased, not recorded) is sent again by the next one", async () => {
    const path = `/delivery/${crypto.randomUUID()}`;
    const t = await deliveryTenant(path);
    // The state a crash during the webhook POST leaves behind: the row pending with no attempt
    // recorded, its timer leased into the future, the receiver already holding the request.
    const idempotencyKey = "flow-x:announce";
    await runInDurableObject(t.stub, (_instance, state) => {
      const now = Date.now();
      state.storage.sql.exec(
        `INSERT INTO deliveries (id, idempotency_key, kind, target, message, status, attempts, created_at, updated_at)
         VALUES ('cut-off', ?, 'a2a-announce', '{"channel":"slack","to":"C7"}', 'news', 'pending', 0, ?, ?)`,
        idempotencyKey,
        now,
        now,
      );
      state.storage.sql.exec(
        "INSERT INTO timers (due_at, kind, ref, leased) VALUES (?, 'delivery', 'cut-off', 1)",
        now + TIMER_LEASE_MS,
      );
    });
    await fetch(`${peer}${path}`, { method: "POST", body: JSON.stringify({ idempotencyKey, message: "news" }) });
    await evictDurableObject(t.stub);

    const done = await until(t.deliveries, (list) => list[0]?.status === "delivered", 10_000);
    expect(done[0]).toMatchObject({ idempotencyKey, attempts: 1 });
    const received = await recorded(path);
    expect(received.map((r) => r.body.idempotencyKey)).toEqual([idempotencyKey, idempotencyKey]);
  });
});
