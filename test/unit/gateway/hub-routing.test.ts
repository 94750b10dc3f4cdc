import { describe, expect, it } from "vitest";
import type { HubDelivery, HubInterest } from "../../../src/contracts/hub-api";
import type { ConnectionState } from "../../../src/gateway/connection";
import { Connections } from "../../../src/gateway/connections";
import { assignHub, hubCapacity, TENANT_HUB, wants } from "../../../src/gateway/hub-routing";
import { InterestReporter } from "../../../src/gateway/interest-reporter";

const state = (extra: Partial<ConnectionState>): ConnectionState => ({
  connId: "c",
  tenantId: "t",
  origin: "http://x",
  phase: "ready",
  nonce: "n",
  challengeTs: 0,
  scopes: ["operator.read"],
  ...extra,
});
const update = (key: string, events = 0): HubDelivery => ({
  kind: "update",
  update: {
    key,
    messages: [],
    reasons: [],
    events: Array.from({ length: events }, () => ({ event: "chat" as const, payload: {}, afterSeq: 0 })),
  },
  row: null,
});
const interest = (extra: Partial<HubInterest>): HubInterest => ({
  sockets: 1,
  readers: 0,
  watchers: 0,
  keys: [],
  ...extra,
});

describe("hub routing", () => {
  it("sums a hub's connections from its subscription index: sockets, readers, watchers and followed keys (unready and unreadable ones only count as sockets)", () => {
    const connections = new Connections({ getWebSockets: () => [] } as unknown as DurableObjectState);
    const socket = () => ({ serializeAttachment: () => {} }) as unknown as WebSocket;
    const states: Array<Partial<ConnectionState>> = [
      { sessions: true },
      { messageKeys: ["agent:main:b", "agent:main:a"] },
      { messageKeys: ["agent:main:a"] },
      { phase: "challenge", address: "203.0.113.1" },
      { scopes: [], sessions: true },
    ];
    const added = states.map((extra) => connections.add(socket(), state(extra)));
    expect(connections.interest()).toEqual({
      sockets: 5,
      readers: 3,
      watchers: 1,
      keys: ["agent:main:a", "agent:main:b"],
      handshaking: { "203.0.113.1": 1 },
    });
    // Leaving and changing keep it current: the follower of b goes, the watcher stops watching.
    connections.remove(added[1]!.ws);
    connections.update(added[0]!, { ...added[0]!.state, sessions: false });
    expect(connections.interest()).toEqual({
      sockets: 4,
      readers: 2,
      watchers: 0,
      keys: ["agent:main:a"],
      handshaking: { "203.0.113.1": 1 },
    });
    // A socket that finishes its handshake leaves the count.
    connections.update(added[3]!, { ...added[3]!.state, phase: "ready" });
    expect(connections.interest().handshaking).toEqual({});
  });

  it("sends a hub only what one of its connections would receive", () => {
    const keys = new Set(["agent:main:a"]);
    const plain = interest({ readers: 1 });
    expect(wants(plain, new Set(), update("agent:main:z", 1))).toBe(true); // run events go to every reader
    expect(wants(plain, new Set(), update("agent:main:z"))).toBe(false); // messages and changes do not
    expect(wants(interest({ readers: 1 }), keys, update("agent:main:a"))).toBe(true);
    expect(wants(interest({ readers: 1, watchers: 1 }), new Set(), update("agent:main:z"))).toBe(true);
    expect(wants(interest({ sockets: 3 }), new Set(), update("agent:main:z", 2))).toBe(false); // nobody may read
    const deleted: HubDelivery = { kind: "deleted", session: { key: "agent:main:a" }, at: 1 };
    expect(wants(interest({ readers: 1 }), keys, deleted)).toBe(false);
    expect(wants(interest({ readers: 1, watchers: 1 }), keys, deleted)).toBe(true);
  });

  it("keeps sockets in the tenant object until it is full, then fills hubs in order, counting the ones assigned since a hub's report", () => {
    expect(assignHub(999, 1000, new Map())).toBe(TENANT_HUB);
    expect(assignHub(1000, 1000, new Map())).toBe(1);
    expect(assignHub(1000, 1000, new Map([[1, { sockets: 999, assigned: 0 }]]))).toBe(1);
    expect(assignHub(1000, 1000, new Map([[1, { sockets: 998, assigned: 2 }]]))).toBe(2);
    // A hub that emptied is used again before a new one.
    const loads = new Map([
      [1, { sockets: 1000, assigned: 0 }],
      [3, { sockets: 10, assigned: 0 }],
    ]);
    expect(assignHub(1000, 1000, loads)).toBe(2);
  });

  it("reads the capacity from the deployment's var, 500 when unset or not a positive integer", () => {
    expect(hubCapacity("2")).toBe(2);
    expect(hubCapacity(undefined)).toBe(500);
    expect(hubCapacity("0")).toBe(500);
    expect(hubCapacity("many")).toBe(500);
  });
});

describe("interest reports", () => {
  it("sends one report at a time, folds changes made meanwhile into the next, and settles once the latest arrived", async () => {
    let current = interest({ sockets: 1 });
    const sent: HubInterest[] = [];
    let release: () => void = () => {};
    const reporter = new InterestReporter(
      () => current,
      (report) => {
        sent.push(report);
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    );
    reporter.changed();
    for (let sockets = 2; sockets <= 5; sockets++) {
      current = interest({ sockets });
      reporter.changed();
    }
    let settled = false;
    void reporter.settled().then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(sent.map((s) => s.sockets)).toEqual([1]);
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sent.map((s) => s.sockets)).toEqual([1, 5]);
    expect(settled).toBe(false);
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(settled).toBe(true);
  });

  it("tries a failed report again", async () => {
    let calls = 0;
    const reporter = new InterestReporter(
      () => interest({}),
      async () => {
        calls += 1;
        if (calls === 1) throw new Error("tenant restarting");
      },
    );
    reporter.changed();
    await reporter.settled();
    expect(calls).toBe(2);
  });
});
