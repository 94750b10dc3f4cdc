import { describe, expect, it } from "vitest";
import type { SessionApi, StartAnswer } from "../../../src/contracts/session-api";
import type { TenantApi } from "../../../src/contracts/tenant-api";
import { A2aFlowDriver, type FlowRows } from "../../../src/flows/a2a-flow";
import type { Flow, FlowSpec } from "../../../src/model/flow";
import type { RunSnapshot } from "../../../src/model/run-types";

// The sessions_send follow-up (primary reply → ping-pong → announce) over in-memory ports: the
// flow rows in a Map, both sessions' runs as scripted replies that end at once (a run id
// started twice runs once, as a session object dedupes it), timers as a Map of due times.

const T0 = 1_700_000_000_000;
const FLOW_ID = "flow-1";
const REQUESTER = "agent:main:requester";
const TARGET = "agent:main:target";
const echo = { type: "echo" } as const;

/** Replies by step run id (the primary run's id is the flow id); undefined: the run failed. */
type Replies = Record<string, string | undefined>;

function world(
  replies: Replies,
  options: { maxTurns?: number; unreachableOnce?: string; stepAnswer?: (turn?: number) => object | null } = {},
) {
  const rows = new Map<string, Flow>();
  const store: FlowRows = {
    insert: (id, spec) => void (rows.has(id) || rows.set(id, { id, state: "primary", spec, turn: 0 })),
    get: (id) => structuredClone(rows.get(id)),
    unfinished: () => [...rows.values()].filter((flow) => flow.state !== "done"),
    update(id, change) {
      const flow = rows.get(id)!;
      rows.set(id, {
        ...flow,
        ...Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined)),
      } as Flow);
    },
  };
  const timers = new Map<string, number>();
  /** Each step run that ran, in order: side, id and the message it was given. */
  const ran: Array<{ side: "requester" | "target"; runId: string; message: string }> = [];
  const announced: string[] = [];
  let unreachable = options.unreachableOnce;
  const snapshotOf = (runId: string): RunSnapshot => {
    const reply = replies[runId];
    return reply === undefined
      ? { runId, status: "error", state: "error", error: "model failed" }
      : { runId, status: "ok", state: "ok", reply };
  };
  const run = (side: "requester" | "target", runId: string, message: string): StartAnswer => {
    if (ran.some((r) => r.runId === runId)) return { runId, status: "in_flight", outcome: snapshotOf(runId) };
    ran.push({ side, runId, message });
    return { runId, status: "started", queued: false, outcome: snapshotOf(runId) };
  };
  const requester = {
    async startRun(_ref: unknown, request: { runId: string; input: { message: string } }) {
      if (unreachable === request.runId) {
        unreachable = undefined;
        throw new Error("requester session restarting");
      }
      return run("requester", request.runId, request.input.message);
    },
    waitRun: async (runId: string) => snapshotOf(runId),
  };
  const driver = new A2aFlowDriver({
    store,
    timers: {
      set: (_kind, ref, dueAt) => void timers.set(ref, dueAt),
      clear: (_kind, ref) => void timers.delete(ref),
      has: (_kind, ref) => timers.has(ref),
      refs: () => new Set(timers.keys()),
    },
    runs: {
      start: (request) => run("target", request.runId, request.input.message),
      wait: async (runId) => snapshotOf(runId),
      snapshot: (runId) => snapshotOf(runId),
    },
    session: (_tenantId, key) => {
      expect(key).toBe(REQUESTER);
      return requester as unknown as SessionApi;
    },
    tenant: () =>
      ({
        recordFlowStep: async (_runId: string, key: string, step: { turn?: number }) =>
          options.stepAnswer?.(step.turn) ?? { owner: key, runner: echo },
      }) as unknown as TenantApi,
    announce: (_flow, reply) => announced.push(reply),
    waitUntil: () => {},
  });
  const spec: FlowSpec = {
    tenantId: "t1",
    primaryRunId: FLOW_ID,
    originalMessage: "How is the build?",
    requesterKey: REQUESTER,
    requesterAgentId: "main",
    targetKey: TARGET,
    targetAgentId: "main",
    targetDisplayKey: TARGET,
    maxTurns: options.maxTurns ?? 2,
  };
  store.insert(FLOW_ID, spec, T0);
  const advance = () => driver.advance(FLOW_ID, () => T0);
  return { advance, flow: () => rows.get(FLOW_ID)!, ran, announced, timers };
}

describe("A2aFlowDriver over in-memory ports", () => {
  it("runs the ping-pong turns alternately in each session, then the announce, and posts it", async () => {
    const w = world({
      [FLOW_ID]: "green",
      [`${FLOW_ID}:turn:1`]: "thanks",
      [`${FLOW_ID}:turn:2`]: "welcome",
      [`${FLOW_ID}:announce`]: "Build is green.",
    });
    await w.advance();
    expect(w.ran).toEqual([
      { side: "requester", runId: `${FLOW_ID}:turn:1`, message: "green" },
      { side: "target", runId: `${FLOW_ID}:turn:2`, message: "thanks" },
      { side: "target", runId: `${FLOW_ID}:announce`, message: "Agent-to-agent announce step." },
    ]);
    expect(w.announced).toEqual(["Build is green."]);
    expect(w.flow()).toMatchObject({
      state: "done",
      outcome: "announced",
      round1Reply: "green",
      latestReply: "welcome",
    });
    expect(w.timers.has(FLOW_ID)).toBe(false);
  });

  it("a step the tenant stops (config now) or refuses (a run limit) ends the flow there, never retried", async () => {
    const replies = {
      [FLOW_ID]: "green",
      [`${FLOW_ID}:turn:1`]: "thanks",
      [`${FLOW_ID}:turn:2`]: "welcome",
      [`${FLOW_ID}:announce`]: "Build is green.",
    };
    const stopped = world(replies, {
      stepAnswer: (turn) => (turn === 2 ? { stopped: "past maxPingPongTurns" } : null),
    });
    await stopped.advance();
    expect(stopped.ran.map((r) => r.runId)).toEqual([`${FLOW_ID}:turn:1`]);
    expect(stopped.announced).toEqual([]);
    expect(stopped.flow()).toMatchObject({ state: "done", outcome: "stopped" });
    expect(stopped.timers.has(FLOW_ID)).toBe(false);

    const refusal = { limit: "runStartsPerMinute", message: "Too many run starts", retryAfterMs: 30_000 };
    const refused = world(replies, { stepAnswer: (turn) => (turn === undefined ? { refused: refusal } : null) });
    await refused.advance();
    expect(refused.ran.map((r) => r.runId)).toEqual([`${FLOW_ID}:turn:1`, `${FLOW_ID}:turn:2`]);
    expect(refused.announced).toEqual([]);
    expect(refused.flow()).toMatchObject({ state: "done", outcome: "stopped" });
  });

  it("REPLY_SKIP ends the ping-pong at once; ANNOUNCE_SKIP keeps the announce silent", async () => {
    const w = world({
      [FLOW_ID]: "green",
      [`${FLOW_ID}:turn:1`]: "REPLY_SKIP",
      [`${FLOW_ID}:announce`]: " ANNOUNCE_SKIP ",
    });
    await w.advance();
    expect(w.ran.map((r) => r.runId)).toEqual([`${FLOW_ID}:turn:1`, `${FLOW_ID}:announce`]);
    expect(w.announced).toEqual([]);
    expect(w.flow()).toMatchObject({ state: "done", outcome: "silent", latestReply: "green" });
  });

  it("ends without steps when the primary run fails or answers only blanks", async () => {
    for (const replies of [{}, { [FLOW_ID]: "  " }]) {
      const w = world(replies);
      await w.advance();
      expect(w.ran).toEqual([]);
      expect(w.flow()).toMatchObject({ state: "done", outcome: "no-reply" });
    }
  });

  it("a step that cannot reach the other session retries by timer, then continues where it stopped, each step once", async () => {
    const replies = {
      [FLOW_ID]: "green",
      [`${FLOW_ID}:turn:1`]: "thanks",
      [`${FLOW_ID}:turn:2`]: "welcome",
      [`${FLOW_ID}:announce`]: "done",
    };
    const w = world(replies, { unreachableOnce: `${FLOW_ID}:turn:1` });
    await w.advance();
    expect(w.flow()).toMatchObject({ state: "pingpong", turn: 1 });
    expect(w.timers.get(FLOW_ID)).toBe(T0 + 1_000);
    expect(w.ran).toEqual([]);
    await w.advance();
    expect(w.ran.map((r) => r.runId)).toEqual([`${FLOW_ID}:turn:1`, `${FLOW_ID}:turn:2`, `${FLOW_ID}:announce`]);
    expect(w.flow()).toMatchObject({ state: "done", outcome: "announced" });
    // Advanced again (a late timer): nothing runs twice and nothing is announced again.
    await w.advance();
    expect(w.ran).toHaveLength(3);
    expect(w.announced).toEqual(["done"]);
  });

  it("a turn that fails ends the ping-pong; an announce that fails stays silent", async () => {
    const w = world(
      { [FLOW_ID]: "green", [`${FLOW_ID}:turn:1`]: "thanks", [`${FLOW_ID}:turn:2`]: "welcome" },
      { maxTurns: 3 },
    );
    await w.advance();
    expect(w.ran.map((r) => r.runId)).toEqual([
      `${FLOW_ID}:turn:1`,
      `${FLOW_ID}:turn:2`,
      `${FLOW_ID}:turn:3`,
      `${FLOW_ID}:announce`,
    ]);
    expect(w.announced).toEqual([]);
    expect(w.flow()).toMatchObject({ state: "done", outcome: "silent", latestReply: "welcome" });
  });
});
