import { describe, expect, it } from "vitest";
import type { TenantContext } from "../../../src/domain/context";
import type { InboundAdapter, InboundDecision } from "../../../src/features/channels/adapter";
import type { DebounceStore } from "../../../src/features/channels/debounce-store";
import { ChannelInbox, inboxLanes, MAX_UPDATE_ATTEMPTS, turnRunId } from "../../../src/features/channels/inbox";
import {
  type InboxStore,
  type InboxUpdate,
  PAIRING_PENDING_MAX,
  startingKey,
} from "../../../src/features/channels/inbox-store";
import { telegramUpdateVerdict } from "../../../src/features/channels/telegram/ingress";

/** The inbox's store in memory: enough of InboxStore for the drain's decisions. */
class MemoryStore {
  updates: Array<InboxUpdate & { done?: string }> = [];
  pairings = new Map<string, { code: string; approved: boolean }>();
  accept(updateId: string, body = "{}") {
    if (this.updates.some((u) => u.updateId === updateId)) return false;
    this.updates.push({
      channel: "telegram",
      updateId,
      body,
      origin: null,
      attempts: 0,
      acked: false,
      receivedAt: Date.now(),
    });
    return true;
  }
  nextPending() {
    return this.nextPendingBut(new Set());
  }
  nextPendingBut(starting: ReadonlySet<string>) {
    const next = this.updates.find((u) => !u.done && !starting.has(startingKey(u.channel, u.updateId)));
    return next ? { ...next } : null;
  }
  hasPending() {
    return this.updates.some((u) => !u.done);
  }
  countAttempt(_c: string, id: string) {
    this.updates.find((u) => u.updateId === id)!.attempts++;
  }
  markAcked(_c: string, id: string) {
    this.updates.find((u) => u.updateId === id)!.acked = true;
  }
  finish(_c: string, id: string, outcome: string) {
    this.updates.find((u) => u.updateId === id)!.done = outcome;
  }
  approvedSenders() {
    return new Set([...this.pairings].filter(([, p]) => p.approved).map(([id]) => id));
  }
  pairingOf(_c: string, sender: string) {
    return this.pairings.get(sender) ?? null;
  }
  touchPairing() {}
  addPairing(_c: string, request: { senderId: string; code: string }) {
    this.pairings.set(request.senderId, { code: request.code, approved: false });
  }
  pendingPairings() {
    return [...this.pairings.values()].filter((p) => !p.approved);
  }
}

/** `lanes`: the deployment's CHANNEL_INBOX_LANES (8 here, the default; "1" is the serial drain). */
function harness(decisions: Record<string, InboundDecision>, lanes = 8) {
  const store = new MemoryStore();
  const started: string[] = [];
  const acks: string[] = [];
  const queued: Array<{ idempotencyKey: string; message: string }> = [];
  let failStartOnce = false;
  /** Starts held until released (by run id), the run ids whose start began, the ones to fail once. */
  const held = new Map<string, Promise<void>>();
  const begun: string[] = [];
  const failing = new Set<string>();
  const adapter: InboundAdapter = {
    decide: async ({ body }) => decisions[(JSON.parse(body) as { id: string }).id] ?? null,
    acknowledge: async (_config, ack) => void acks.push(ack.chatId),
    pairingMessage: (sender, code) => `code for ${sender}: ${code}`,
  };
  const context = {
    tenantId: "t",
    config: {},
    principal: { kind: "operator", scopes: ["operator.write"] },
    tenant: { recordRunStart: async (_runId: string, key: string) => ({ owner: key }) },
    sessions: () => ({
      startRun: async (_ref: unknown, request: { runId: string }) => {
        begun.push(request.runId);
        await held.get(request.runId);
        if (failing.delete(request.runId)) throw new Error("session object unreachable");
        if (failStartOnce) {
          failStartOnce = false;
          throw new Error("session object unreachable");
        }
        const fresh = !started.includes(request.runId);
        if (fresh) started.push(request.runId);
        return { runId: request.runId, status: fresh ? "started" : "in_flight", sessionId: "s" };
      },
    }),
  } as unknown as TenantContext;
  const inbox = new ChannelInbox({
    store: store as unknown as InboxStore,
    transaction: (fn) => fn(),
    tenantId: "t",
    // No debounce window here: each update is its own turn (bursts: test/unit/channels/channel-debounce.test.ts).
    config: async () => ({ messages: { inbound: { debounceMs: 0 } } }),
    adapters: { telegram: adapter },
    bursts: { bursts: () => [], has: () => false, release: () => undefined } as unknown as DebounceStore,
    context: () => context,
    enqueue: (input) => void queued.push(input),
    lanes,
  });
  const hold = (runId: string) => {
    let release = () => {};
    held.set(runId, new Promise<void>((resolve) => (release = resolve)));
    return release;
  };
  const failOnce = (runId: string) => failing.add(runId);
  return { store, inbox, started, acks, queued, begun, hold, failOnce, failNextStart: () => (failStartOnce = true) };
}

const turn = (chat: string, sessionKey = "agent:main:main"): InboundDecision => ({
  action: "turn",
  turn: {
    sessionKey,
    text: "hi",
    senderId: chat,
    seed: {},
    replyTarget: { channel: "telegram", to: `telegram:${chat}` },
    ack: { chatId: chat },
  },
});

/** Waits (event loop turns, no clock) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
}

/** A DM turn: its own session per chat (dmScope per-channel-peer). */
const dm = (chat: string) => turn(chat, `agent:main:telegram:direct:${chat}`);

describe("the channel inbox's drain", () => {
  it("starts one run per update, named by the update, and acknowledges it once even when handled again", async () => {
    const h = harness({ a: turn("1") });
    h.store.accept("7", JSON.stringify({ id: "a" }));
    h.failNextStart();
    await expect(h.inbox.drain()).rejects.toThrow("unreachable");
    expect(h.store.updates[0]!.done).toBeUndefined();
    await h.inbox.drain(); // the timer's retry
    await h.inbox.drain(); // nothing left
    expect(h.started).toEqual([turnRunId("telegram", "7")]);
    expect(h.acks).toEqual(["1"]);
    expect(h.store.updates[0]!.done).toBe("turn telegram:7");
  });

  it("sends a pairing code once per sender; later messages of that sender are silent", async () => {
    const ask: InboundDecision = { action: "pairing", ask: { senderId: "9", chatId: "9", meta: {} } };
    const h = harness({ p: ask });
    h.store.accept("1", JSON.stringify({ id: "p" }));
    h.store.accept("2", JSON.stringify({ id: "p" }));
    await h.inbox.drain();
    expect(h.queued.map((q) => q.idempotencyKey)).toEqual(["pairing:telegram:9"]);
    expect(h.queued[0]!.message).toMatch(/^code for 9: [A-Z0-9]{8}$/);
    expect(h.started).toEqual([]);
    expect(h.store.updates.map((u) => u.done)).toEqual(["pairing", "pairing"]);
  });

  it("holds at most PAIRING_PENDING_MAX pending requests: a 4th sender gets no code until one is approved", async () => {
    const ask = (sender: string): InboundDecision => ({
      action: "pairing",
      ask: { senderId: sender, chatId: sender, meta: {} },
    });
    const h = harness({ a: ask("1"), b: ask("2"), c: ask("3"), d: ask("4"), e: ask("5") });
    for (const [n, id] of ["a", "b", "c", "d", "e"].entries()) h.store.accept(String(n), JSON.stringify({ id }));
    await h.inbox.drain();
    expect(PAIRING_PENDING_MAX).toBe(3);
    expect(h.queued.map((q) => q.idempotencyKey)).toEqual([
      "pairing:telegram:1",
      "pairing:telegram:2",
      "pairing:telegram:3",
    ]);
    expect(h.store.updates.map((u) => u.done).slice(3)).toEqual([
      "ignored: pending pairing requests full",
      "ignored: pending pairing requests full",
    ]);
    // One approved: the next new sender gets a code again.
    h.store.pairings.get("1")!.approved = true;
    h.store.accept("5", JSON.stringify({ id: "d" }));
    await h.inbox.drain();
    expect(h.queued.map((q) => q.idempotencyKey).at(-1)).toBe("pairing:telegram:4");
  });

  it("gives up an update that keeps failing, so the ones behind it are handled", async () => {
    const h = harness({ a: turn("1"), b: turn("2") });
    h.store.accept("1", JSON.stringify({ id: "a" }));
    h.store.accept("2", JSON.stringify({ id: "b" }));
    h.store.updates[0]!.body = "not json";
    for (let i = 0; i < MAX_UPDATE_ATTEMPTS - 1; i++) await expect(h.inbox.drain()).rejects.toThrow();
    await h.inbox.drain();
    expect(h.store.updates[0]!.done).toMatch(/^failed: /);
    expect(h.started).toEqual(["telegram:2"]);
  });

  it("starts the turns of different sessions side by side, each session's in order (issue 46 item 7)", async () => {
    const h = harness({ a: dm("1"), b: dm("2"), c: dm("1") });
    h.store.accept("1", JSON.stringify({ id: "a" }));
    h.store.accept("2", JSON.stringify({ id: "b" }));
    h.store.accept("3", JSON.stringify({ id: "c" }));
    const releaseFirst = h.hold("telegram:1");
    const drained = h.inbox.drain();
    // Chat 2's start does not wait for chat 1's; chat 1's second update waits for its first.
    await until(() => h.started.includes("telegram:2"));
    expect(h.begun).toEqual(["telegram:1", "telegram:2"]);
    expect(h.started).toEqual(["telegram:2"]);
    releaseFirst();
    await drained;
    expect(h.started).toEqual(["telegram:2", "telegram:1", "telegram:3"]);
    expect(h.store.updates.map((u) => u.done)).toEqual(["turn telegram:1", "turn telegram:2", "turn telegram:3"]);
  });

  it("a failed start stops its session's lane until the retry; other sessions go on", async () => {
    const h = harness({ a: dm("1"), b: dm("1"), c: dm("2") });
    for (const [n, id] of ["a", "b", "c"].entries()) h.store.accept(String(n + 1), JSON.stringify({ id }));
    h.failOnce("telegram:1");
    await expect(h.inbox.drain()).rejects.toThrow("unreachable");
    // Update 2 (same session) never started ahead of the failed 1; chat 2's turn did.
    expect(h.started).toEqual(["telegram:3"]);
    expect(h.store.updates.map((u) => u.done)).toEqual([undefined, undefined, "turn telegram:3"]);
    await h.inbox.drain(); // the timer's retry
    expect(h.started).toEqual(["telegram:3", "telegram:1", "telegram:2"]);
    expect(h.store.updates[0]!.attempts).toBe(1);
  });

  it("holds at most its lanes' bound of starts at once; one lane is the serial drain", async () => {
    const chats = ["1", "2", "3", "4", "5"];
    const h = harness(Object.fromEntries(chats.map((c) => [c, dm(c)])), 2);
    for (const c of chats) h.store.accept(c, JSON.stringify({ id: c }));
    const releases = chats.map((c) => h.hold(`telegram:${c}`));
    const drained = h.inbox.drain();
    await until(() => h.begun.length === 2);
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(h.begun).toEqual(["telegram:1", "telegram:2"]);
    releases[1]!();
    await until(() => h.begun.length === 3);
    for (const release of releases) release();
    await drained;
    expect(h.started).toEqual(["telegram:2", "telegram:1", "telegram:3", "telegram:4", "telegram:5"]);
  });

  it("one lane (CHANNEL_INBOX_LANES=1) starts one turn at a time, as before the lanes", async () => {
    expect([
      inboxLanes({}),
      inboxLanes({ CHANNEL_INBOX_LANES: "1" }),
      inboxLanes({ CHANNEL_INBOX_LANES: "32" }),
      inboxLanes({ CHANNEL_INBOX_LANES: "x" }),
    ]).toEqual([8, 1, 32, 8]);
    const h = harness({ a: dm("1"), b: dm("2") }, inboxLanes({ CHANNEL_INBOX_LANES: "1" }));
    h.store.accept("1", JSON.stringify({ id: "a" }));
    h.store.accept("2", JSON.stringify({ id: "b" }));
    const releaseFirst = h.hold("telegram:1");
    const drained = h.inbox.drain();
    await until(() => h.begun.length === 1);
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(h.begun).toEqual(["telegram:1"]);
    releaseFirst();
    await drained;
    expect(h.started).toEqual(["telegram:1", "telegram:2"]);
  });

  it("drops updates of a channel that is not configured", async () => {
    const h = harness({});
    h.store.accept("1", JSON.stringify({ id: "nothing" }));
    await h.inbox.drain();
    expect(h.store.updates[0]!.done).toBe("ignored: channel not configured");
  });
});

describe("the Telegram webhook's answer", () => {
  it("is as recorded for each kind of body", () => {
    expect(telegramUpdateVerdict(false, '{"update_id":1}')).toEqual({ ok: false, status: 401, text: "unauthorized" });
    expect(telegramUpdateVerdict(true, "")).toEqual({ ok: false, status: 400, text: "empty payload" });
    expect(telegramUpdateVerdict(true, "{x")).toEqual({
      ok: false,
      status: 400,
      text: "Expected property name or '}' in JSON at position 1 (line 1 column 2)",
    });
    expect(telegramUpdateVerdict(true, "[1]")).toEqual({ ok: false, status: 500, text: "" });
    expect(telegramUpdateVerdict(true, '{"message":{}}')).toEqual({ ok: false, status: 500, text: "" });
    expect(telegramUpdateVerdict(true, '{"update_id":42,"edited_message":{}}')).toMatchObject({
      ok: true,
      updateId: "42",
    });
  });
});
