import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LiveEvent, SessionUpdate } from "../../../src/contracts/session-update";
import { type PublishAnswer, Publisher } from "../../../src/session/publisher";
import { openSessionDatabase } from "../../../src/session/session-database";
import { Transcript } from "../../../src/session/transcript";
import { MemoryStorage } from "../support/memory-storage";
import { REF, settle } from "../support/session-world";

// The session's publisher (src/session/publisher.ts): the transcript is its outbox and the
// tenant its one subscriber, here a list of the updates it acknowledged. Over the session's
// real store on an in-memory SQLite.

type Tenant = {
  updates: SessionUpdate[];
  /** The next answers, or errors (the tenant unreachable); then `hot`. */
  answers: Array<PublishAnswer | Error>;
  /** While set, a delivery waits for it (a slow tenant, a loaded machine). */
  gate?: Promise<void>;
  /** Deliveries begun (acknowledged or not). */
  begun: number;
};

function session() {
  const storage = new MemoryStorage();
  const store = openSessionDatabase(storage.asStorage).session;
  const transcript = new Transcript(store, () => {});
  transcript.ensureEntry(REF, undefined, Date.now());
  const tenant: Tenant = { updates: [], answers: [], begun: 0 };
  const publisher = new Publisher(store, async (_tenantId, update) => {
    tenant.begun += 1;
    await tenant.gate;
    const answer = tenant.answers.shift() ?? { hot: true, listening: true };
    if (answer instanceof Error) throw answer;
    tenant.updates.push(structuredClone(update));
    return answer;
  });
  let appended = 0;
  /** Appends `n` user messages, one commit each (a burst). */
  const append = (n: number) => {
    for (let i = 0; i < n; i++) {
      appended += 1;
      transcript.append([{ role: "user", content: `m${appended}`, timestamp: Date.now() }], (entry) => entry);
    }
  };
  const event = (name: string, state = "final"): LiveEvent => ({
    event: "chat",
    payload: { runId: name, state },
    afterSeq: transcript.entry()!.messageCount,
  });
  return { store, publisher, tenant, append, event };
}

/** Each update as its message seqs and event run ids. */
const shape = (updates: SessionUpdate[]) =>
  updates.map((u) => ({ seqs: u.messages.map((m) => m.seq), events: u.events.map((e) => e.payload.runId) }));

beforeEach(() => void vi.spyOn(console, "error").mockImplementation(() => {}));
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("publisher over in-memory ports", () => {
  it("delivers a burst of appends and events as one ordered update, and nothing twice", async () => {
    const s = session();
    s.append(3);
    void s.publisher.emit(s.event("e1"));
    s.append(1);
    await s.publisher.emit(s.event("e2"));
    expect(shape(s.tenant.updates)).toEqual([{ seqs: [1, 2, 3, 4], events: ["e1", "e2"] }]);
    expect(s.tenant.updates[0]!.row).toBeDefined();
    expect(s.publisher.hasPending()).toBe(false);
    await s.publisher.publish();
    await s.publisher.flush();
    expect(s.tenant.updates).toHaveLength(1);
  });

  it("after a failed delivery sends everything again in order, without the streaming deltas", async () => {
    const s = session();
    s.tenant.answers.push(new Error("tenant restarting"));
    s.append(2);
    void s.publisher.emit(s.event("delta", "delta"));
    await expect(s.publisher.emit(s.event("final"))).rejects.toThrow("tenant restarting");
    expect(s.publisher.hasPending()).toBe(true);
    s.append(1);
    await s.publisher.emit(s.event("later"));
    expect(shape(s.tenant.updates)).toEqual([{ seqs: [1, 2, 3], events: ["final", "later"] }]);
  });

  it("splits a long burst into bounded updates, each event after the messages it follows", async () => {
    const s = session();
    s.append(150);
    void s.publisher.emit(s.event("at150"));
    s.append(100);
    await s.publisher.emit(s.event("at250"));
    const updates = shape(s.tenant.updates);
    expect(updates.map((u) => [u.seqs[0], u.seqs.at(-1), u.events])).toEqual([
      [1, 200, ["at150"]],
      [201, 250, ["at250"]],
    ]);
  });

  it("holds a quiet session's appends for its window, and a waiting caller cuts it", async () => {
    const s = session();
    s.tenant.answers.push({ hot: false, listening: false });
    s.append(1);
    await s.publisher.publish();
    // The clock stands still from here: only the cut can end the window (a bound on the
    // elapsed time measured the machine).
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    s.append(1);
    const quiet = s.publisher.publish();
    await settle();
    await settle();
    expect(s.tenant.updates).toHaveLength(1);
    await s.publisher.flush();
    await quiet;
    expect(shape(s.tenant.updates)).toEqual([
      { seqs: [1], events: [] },
      { seqs: [2], events: [] },
    ]);
  });

  it("what a quiet session appends during a slow delivery waits the window, not sent right after", async () => {
    const s = session();
    s.tenant.answers.push({ hot: false, listening: false }, { hot: false, listening: false });
    let release = () => {};
    s.tenant.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    s.append(1);
    const first = s.publisher.publish();
    while (s.tenant.begun === 0) await settle();
    // Appended while the first update is on its way.
    s.append(1);
    const second = s.publisher.publish();
    release();
    await first;
    // The tenant answered "nobody listens": the second message waits out the window.
    expect(shape(s.tenant.updates)).toEqual([{ seqs: [1], events: [] }]);
    expect(s.publisher.hasPending()).toBe(true);
    await s.publisher.flush();
    await second;
    expect(shape(s.tenant.updates)).toEqual([
      { seqs: [1], events: [] },
      { seqs: [2], events: [] },
    ]);
  });
});
