import { afterEach, describe, expect, it, vi } from "vitest";
import type { LiveEvent } from "../../../src/contracts/tenant-api";
import { deliveryBackoffMs, PLATFORM_WAIT_MAX_MS, REPLY_PART_SPACING_MS } from "../../../src/delivery/delivery-target";
import { Outbox, type OutboxPorts, type OutboxStore } from "../../../src/delivery/outbox";
import type { ChannelSender } from "../../../src/features/channels/adapter";
import { HTTP_429_RULE, withRateLimitRule } from "../../../src/features/channels/rate-limit";
import type { Delivery, DeliveryStatus } from "../../../src/model/delivery";
import type { TenantConfig } from "../../../src/protocol/config";
import type { SessionEntry } from "../../../src/protocol/session";

// The session's outbox over in-memory ports: delivery rows in a Map, timers as a Map of due
// times, the delivery webhook as a stubbed fetch. What it proves: attempts, backoff, dead
// letters, the send policy at delivery time, one attempt at a time, and no secret in an error.

const WEBHOOK = "https://hooks.example.com/deliver";
const SIGNING_SECRET = "whsec-0123456789abcdef0123456789";
const T0 = 1_700_000_000_000;

/** The rows in a Map: the methods the outbox calls (the webhook path), as delivery-store.ts does them in SQL. */
function memoryStore(): OutboxStore {
  const rows = new Map<string, Delivery>();
  const store: Partial<OutboxStore> = {
    enqueue(input, at) {
      const existing = [...rows.values()].find((row) => row.idempotencyKey === input.idempotencyKey);
      if (existing) return existing;
      const delivery: Delivery = {
        id: `d${rows.size + 1}`,
        ...input,
        status: "pending",
        attempts: 0,
        createdAt: at,
        updatedAt: at,
      };
      rows.set(delivery.id, delivery);
      return delivery;
    },
    get: (id) => rows.get(id),
    recordPartsSent(id, parts) {
      const row = rows.get(id);
      if (row) rows.set(id, { ...row, partsSent: parts });
    },
    pendingIds: () => [...rows.values()].filter((row) => row.status === "pending").map((row) => row.id),
    record(id, outcome: { status: DeliveryStatus; error?: string; deliveredTo?: string }, at) {
      const row = rows.get(id);
      if (row?.status !== "pending") return false;
      rows.set(id, {
        ...row,
        status: outcome.status,
        attempts: row.attempts + 1,
        ...(outcome.error ? { lastError: outcome.error } : {}),
        ...(outcome.deliveredTo ? { deliveredTo: outcome.deliveredTo } : {}),
        updatedAt: at,
      });
      return true;
    },
  };
  return store as OutboxStore;
}

function outboxWith(
  config: Partial<TenantConfig>,
  entry: Partial<SessionEntry> | null = { key: "agent:main:main" },
  channels: Pick<OutboxPorts, "channelSender" | "channelSendResult"> = {},
) {
  const store = memoryStore();
  const timers = new Map<string, number>();
  const events: Array<Omit<LiveEvent, "afterSeq">> = [];
  const outbox = new Outbox({
    store,
    timers: {
      set: (_kind, ref, dueAt) => void timers.set(ref, dueAt),
      clear: (_kind, ref) => void timers.delete(ref),
      has: (_kind, ref) => timers.has(ref),
      refs: () => new Set(timers.keys()),
    },
    entry: () => entry as SessionEntry | null,
    tenantConfig: async () => config as TenantConfig,
    signingSecret: async () => SIGNING_SECRET,
    outbound: () => ({ allowLoopback: false, allowedHosts: [], ownOrigins: [] }),
    emit: (event) => events.push(event),
    ...channels,
  });
  const queue = (key = "k1") =>
    outbox.enqueue(
      { idempotencyKey: key, kind: "announce", target: { channel: "slack", to: "C1" }, message: "hi" },
      T0,
    );
  return { outbox, store, timers, events, queue };
}

/** The delivery webhook: answers each POST with the next status (or throws the next error). */
function webhookAnswering(...answers: Array<number | Error>) {
  const posts: Request[] = [];
  const fetch = vi.fn(async (input: URL | string, init: RequestInit) => {
    posts.push(new Request(input, init));
    const answer = answers.shift() ?? 200;
    if (answer instanceof Error) throw answer;
    return new Response("{}", { status: answer });
  });
  vi.stubGlobal("fetch", fetch);
  return posts;
}

afterEach(() => vi.unstubAllGlobals());

describe("Outbox over in-memory ports", () => {
  it("retries a failing webhook with backoff, then dead-letters it after maxAttempts and says so once", async () => {
    const posts = webhookAnswering(500, 502, 503);
    const { outbox, store, timers, events, queue } = outboxWith({
      delivery: { webhookUrl: WEBHOOK, maxAttempts: 3 },
    } as Partial<TenantConfig>);
    const { id } = queue();
    expect(timers.get(id)).toBe(T0);
    await outbox.attempt(id, T0);
    expect(store.get(id)).toMatchObject({ status: "pending", attempts: 1, lastError: "delivery webhook answered 500" });
    expect(timers.get(id)).toBe(T0 + deliveryBackoffMs(1));
    await outbox.attempt(id, T0 + 1_000);
    expect(timers.get(id)).toBe(T0 + 1_000 + deliveryBackoffMs(2));
    expect(events).toEqual([]);
    await outbox.attempt(id, T0 + 3_000);
    expect(store.get(id)).toMatchObject({ status: "dead", attempts: 3, lastError: "delivery webhook answered 503" });
    expect(events).toEqual([
      {
        event: "sessions.changed",
        payload: { reason: "delivery", deliveryId: id, deliveryStatus: "dead", deliveryKind: "announce" },
      },
    ]);
    await outbox.attempt(id, T0 + 10_000);
    expect(posts).toHaveLength(3);
    expect(posts[0]!.headers.get("idempotency-key")).toBe("k1");
    expect(await posts[0]!.json()).toMatchObject({ type: "delivery", sessionKey: "agent:main:main", channel: "slack" });
  });

  it("delivers once: two attempts at the same time POST once, a late one changes nothing", async () => {
    const posts = webhookAnswering(200);
    const { outbox, store, events, queue } = outboxWith({ delivery: { webhookUrl: WEBHOOK } } as Partial<TenantConfig>);
    const { id } = queue();
    await Promise.all([outbox.attempt(id, T0), outbox.attempt(id, T0)]);
    await outbox.attempt(id, T0 + 1);
    expect(posts).toHaveLength(1);
    expect(store.get(id)).toMatchObject({ status: "delivered", deliveredTo: WEBHOOK, attempts: 1 });
    expect(events).toHaveLength(1);
  });

  it("blocks at delivery time when the session's send policy denies the channel", async () => {
    const posts = webhookAnswering(200);
    const { outbox, store, queue } = outboxWith({
      delivery: { webhookUrl: WEBHOOK },
      session: { sendPolicy: { default: "deny" } },
    } as Partial<TenantConfig>);
    const { id } = queue();
    await outbox.attempt(id, T0);
    expect(store.get(id)).toMatchObject({ status: "blocked", lastError: "send blocked by session policy" });
    expect(posts).toHaveLength(0);
  });

  it("keeps an unreachable webhook's error without the secret it signed with", async () => {
    webhookAnswering(new Error(`connect ECONNREFUSED (signed with ${SIGNING_SECRET})`));
    const { outbox, store, queue } = outboxWith({ delivery: { webhookUrl: WEBHOOK } } as Partial<TenantConfig>);
    const { id } = queue();
    await outbox.attempt(id, T0);
    const error = store.get(id)?.lastError ?? "";
    expect(error).toMatch(/^delivery webhook unreachable: connect ECONNREFUSED/);
    expect(error).not.toContain(SIGNING_SECRET);
  });

  it("paces a reply's parts: each part recorded as sent, the next due a second later, none an attempt", async () => {
    const calls: number[] = [];
    const threeParts: ChannelSender = {
      credentials: [],
      send: async (_delivery, fromPart) => {
        calls.push(fromPart);
        return fromPart + 1 < 3 ? { partsSent: fromPart + 1, moreParts: true } : { partsSent: 3 };
      },
    };
    const { outbox, store, timers, queue } = outboxWith({}, undefined, { channelSender: async () => threeParts });
    const { id } = queue();
    await outbox.attempt(id, T0);
    expect(store.get(id)).toMatchObject({ status: "pending", attempts: 0, partsSent: 1 });
    const due = timers.get(id)!;
    expect(due - T0).toBeGreaterThanOrEqual(REPLY_PART_SPACING_MS);
    expect(due - T0).toBeLessThan(REPLY_PART_SPACING_MS + 1_000);
    await outbox.attempt(id, due);
    expect(store.get(id)).toMatchObject({ status: "pending", partsSent: 2 });
    await outbox.attempt(id, timers.get(id)!);
    expect(store.get(id)).toMatchObject({ status: "delivered", attempts: 1 });
    expect(calls).toEqual([0, 1, 2]);
  });

  it("redacts a channel sender's error with the credentials it declared, before it is kept, logged or evented", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const token = "123456:AAE-bot-token-Zq81tL0vWm3Kp7Rj";
    // A proxy that echoes the path it was asked for (`/bot<token>/sendMessage`), URL-encoded too.
    const echoing: ChannelSender = {
      credentials: [token],
      send: async () => ({
        partsSent: 0,
        error: `telegram answered 404: Not Found: /bot${token}/sendMessage (${encodeURIComponent(token)})`,
      }),
    };
    const reported: unknown[] = [];
    const { outbox, store, events, queue } = outboxWith({ delivery: { maxAttempts: 1 } }, undefined, {
      channelSender: async () => echoing,
      channelSendResult: async (_channel, result) => void reported.push(result),
    });
    const { id } = queue();
    await outbox.attempt(id, T0);
    const kept = store.get(id)!;
    expect(kept).toMatchObject({
      status: "dead",
      lastError: expect.stringMatching(/^telegram answered 404: Not Found/),
    });
    const logged = warn.mock.calls.map((args) => String(args[0])).join("\n");
    expect(logged).toContain("delivery.dead");
    // The channel's status (channels.status, read scope) gets the redacted text too.
    expect(reported).toEqual([{ ok: false, error: kept.lastError }]);
    for (const text of [JSON.stringify(kept), logged, JSON.stringify(events), JSON.stringify(reported)]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(token.split(":")[1]);
    }
    warn.mockRestore();
  });

  it("keeps a capability webhook URL's secret out of the error and shows it as origin only once delivered", async () => {
    const secretPath = "https://hooks.slack.com/services/T0001/B0002/xoxsecretpath";
    webhookAnswering(new Error(`fetch failed: ${secretPath}`), 200);
    const { outbox, store, queue } = outboxWith({ delivery: { webhookUrl: secretPath } } as Partial<TenantConfig>);
    const { id } = queue();
    await outbox.attempt(id, T0);
    expect(store.get(id)?.lastError).toBe(
      "delivery webhook unreachable: fetch failed: https://hooks.slack.com/services/[REDACTED]/[REDACTED]/[REDACTED]",
    );
    await outbox.attempt(id, T0 + deliveryBackoffMs(1));
    expect(store.get(id)).toMatchObject({ status: "delivered", deliveredTo: "https://hooks.slack.com/…" });
  });

  it("records a delivery without a webhook to the log without its body", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const { outbox, store } = outboxWith({});
    const { id } = outbox.enqueue(
      { idempotencyKey: "k-body", kind: "announce", target: { channel: "slack", to: "C1" }, message: "private words" },
      T0,
    );
    await outbox.attempt(id, T0);
    expect(store.get(id)).toMatchObject({ status: "delivered", deliveredTo: "log" });
    const printed = log.mock.calls.map((args) => String(args[0])).join("\n");
    expect(printed).toContain("k-body");
    expect(printed).not.toContain("private words");
    log.mockRestore();
  });

  it("after a restart arms a timer, due now, for each pending delivery that lost its own", () => {
    const { outbox, timers, queue } = outboxWith({});
    const first = queue("a");
    const second = queue("b");
    timers.clear();
    timers.set(second.id, T0 + 5_000);
    outbox.reconcile(T0 + 10);
    expect(timers).toEqual(
      new Map([
        [second.id, T0 + 5_000],
        [first.id, T0 + 10],
      ]),
    );
  });

  it("waits the platform's retry_after before the next attempt and resumes from the part not yet sent", async () => {
    const sent: number[] = [];
    const { outbox, store, timers, queue } = outboxWith({}, null, {
      channelSender: async () => ({
        credentials: [],
        send: async (_delivery, fromPart) => {
          sent.push(fromPart);
          return sent.length === 1
            ? { partsSent: 1, error: "telegram answered 429: Too Many Requests: retry after 30", retryAfterMs: 30_000 }
            : { partsSent: 2 };
        },
      }),
    });
    const { id } = queue();
    await outbox.attempt(id, T0);
    expect(deliveryBackoffMs(1)).toBeLessThan(30_000);
    // Due 30 s after the answer: T0 plus the attempt's own real milliseconds (its lookups and send).
    expect(timers.get(id)).toBeGreaterThanOrEqual(T0 + 30_000);
    expect(timers.get(id)).toBeLessThan(T0 + 31_000);
    await outbox.attempt(id, T0 + 30_000);
    expect(store.get(id)).toMatchObject({ status: "delivered" });
    expect(sent).toEqual([0, 1]);
  });

  it("a platform's wait past PLATFORM_WAIT_MAX_MS (Retry-After: 99999999, a far-off date) makes the delivery dead at once, not parked for years", async () => {
    const farOff = new Date(Date.now() + 10 * 365 * 24 * 3_600_000).toUTCString();
    for (const retryAfter of ["99999999", farOff]) {
      const { outbox, store, timers, queue } = outboxWith({}, null, {
        channelSender: async () =>
          withRateLimitRule(
            {
              credentials: [],
              send: async () => ({
                partsSent: 0,
                error: "slack answered 429: ratelimited",
                refusal: { status: 429, retryAfter, body: {} },
              }),
            },
            HTTP_429_RULE,
          ),
      });
      const { id } = queue();
      await outbox.attempt(id, T0);
      expect(store.get(id)).toMatchObject({ status: "dead", attempts: 1 });
      // No retry armed for the asked wait (the timer left is the enqueue's, due at T0).
      expect(timers.get(id) ?? T0).toBeLessThan(T0 + PLATFORM_WAIT_MAX_MS);
      expect(store.get(id)?.lastError).toMatch(
        /^slack answered 429: ratelimited \(the platform asked to wait \d+ s, past the 3600 s/,
      );
    }
  });

  it("a platform's wait up to PLATFORM_WAIT_MAX_MS is waited in full", async () => {
    const { outbox, store, timers, queue } = outboxWith({}, null, {
      channelSender: async () => ({
        credentials: [],
        send: async () => ({ partsSent: 0, error: "telegram answered 429", retryAfterMs: PLATFORM_WAIT_MAX_MS }),
      }),
    });
    const { id } = queue();
    await outbox.attempt(id, T0);
    expect(store.get(id)).toMatchObject({ status: "pending" });
    expect(timers.get(id)).toBeGreaterThanOrEqual(T0 + PLATFORM_WAIT_MAX_MS);
    expect(timers.get(id)).toBeLessThan(T0 + PLATFORM_WAIT_MAX_MS + 1_000);
  });

  it("counts the platform's wait from its answer, not from when the attempt began (a slow 429 is not retried early)", async () => {
    const ANSWER_MS = 120;
    const { outbox, timers, queue } = outboxWith({}, null, {
      channelSender: async () => ({
        credentials: [],
        send: async () => {
          await new Promise((resolve) => setTimeout(resolve, ANSWER_MS));
          return {
            partsSent: 0,
            error: "telegram answered 429: Too Many Requests: retry after 3",
            retryAfterMs: 3_000,
          };
        },
      }),
    });
    const { id } = queue();
    await outbox.attempt(id, T0);
    // At least most of the answer's time later than T0 + 3 s (a timer may fire a millisecond early).
    expect(timers.get(id)).toBeGreaterThanOrEqual(T0 + 3_000 + ANSWER_MS / 2);
  });

  it("reports each channel send's result for the channel's status, and a failing report fails no delivery", async () => {
    const answers = ["telegram answered 401: Unauthorized", undefined];
    const reported: unknown[] = [];
    const { outbox, store, queue } = outboxWith({}, null, {
      channelSender: async () => ({
        credentials: [],
        send: async () => {
          const error = answers.shift();
          return error ? { partsSent: 0, error } : { partsSent: 1 };
        },
      }),
      channelSendResult: async (channel, result) => {
        reported.push([channel, result]);
        throw new Error("the inbox object is away");
      },
    });
    const { id } = queue();
    await outbox.attempt(id, T0);
    expect(store.get(id)).toMatchObject({ status: "pending", lastError: "telegram answered 401: Unauthorized" });
    await outbox.attempt(id, T0 + 1_000);
    expect(store.get(id)).toMatchObject({ status: "delivered" });
    expect(reported).toEqual([
      ["slack", { ok: false, error: "telegram answered 401: Unauthorized" }],
      ["slack", { ok: true }],
    ]);
  });

  it("reports the ids the platform gave the bot's messages with a successful send (a quote of one is a mention)", async () => {
    const reported: unknown[] = [];
    const { outbox, store, queue } = outboxWith({}, null, {
      channelSender: async () => ({
        credentials: [],
        send: async () => ({ partsSent: 2, sentMessageIds: ["5001", "5002"] }),
      }),
      channelSendResult: async (channel, result) => void reported.push([channel, result]),
    });
    const { id } = queue();
    await outbox.attempt(id, T0);
    expect(store.get(id)).toMatchObject({ status: "delivered" });
    expect(reported).toEqual([["slack", { ok: true, sentMessageIds: ["5001", "5002"] }]]);
  });
});
