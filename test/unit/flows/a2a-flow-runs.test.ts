import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SessionApi, StartAnswer } from "../../../src/contracts/session-api";
import type { TenantApi } from "../../../src/contracts/tenant-api";
import { A2aFlowDriver } from "../../../src/flows/a2a-flow";
import type { RunnerOutcome } from "../../../src/runs/runners/runner";
import { reply, type SessionInstance, sessionWorld, settle, TENANT } from "../support/session-world";

// The sessions_send flow driven by the target session's own run lifecycle (as session-parts
// wires them): the primary run settles → the flow advances → its steps run as runs of this
// session (or of the requester, a fake SessionApi) → the announce is posted. The flow's rows
// and timers are the session's real stores on an in-memory SQLite.

const REQUESTER = "agent:main:requester";

function target(replies: Record<string, string>, options: { hangPrimary?: boolean; settleLost?: boolean } = {}) {
  const announced: string[] = [];
  const requesterRuns: string[] = [];
  const requester = {
    async startRun(_ref: unknown, request: { runId: string }): Promise<StartAnswer> {
      requesterRuns.push(request.runId);
      const outcome = { runId: request.runId, status: "ok", state: "ok", reply: replies[request.runId] } as const;
      return { runId: request.runId, status: "started", queued: false, outcome };
    },
  };
  const drivers = new WeakMap<SessionInstance, A2aFlowDriver>();
  const driverOf = (session: SessionInstance) => {
    let driver = drivers.get(session);
    if (!driver) {
      driver = new A2aFlowDriver({
        store: session.stores.flows,
        timers: session.timers,
        runs: session.lifecycle,
        session: () => requester as unknown as SessionApi,
        tenant: () =>
          ({
            recordFlowStep: async (_runId: string, key: string) => ({ owner: key, runner: { type: "echo" } }),
          }) as unknown as TenantApi,
        announce: (_flow, text) => void announced.push(text),
        waitUntil: (promise) => void background.push(promise),
      });
      drivers.set(session, driver);
    }
    return driver;
  };
  const background: Promise<unknown>[] = [];
  let restarted = false;
  const world = sessionWorld(
    (run) =>
      options.hangPrimary && run.runId === "f1"
        ? new Promise<RunnerOutcome>(() => {})
        : Promise.resolve(reply(replies[run.runId] ?? "")),
    {
      onSettled: (runId, session) => {
        // The object died between the run's commit and the flow's advance: nothing continues it here.
        if (options.settleLost && session === world.session && !restarted) return;
        driverOf(session).runSettled(runId);
      },
      handlers: (session) => ({ flow: (flowId) => driverOf(session).advance(flowId) }),
    },
  );
  /** Until the flow's background steps are done. */
  const idle = async () => {
    for (let i = 0; i < 20; i++) {
      await Promise.all(background.splice(0));
      await settle();
    }
  };
  const startPrimary = (timeoutSeconds?: number) =>
    driverOf(world.session).startPrimary(
      { tenantId: TENANT, key: world.session.transcript.entry()!.key, agentId: "main" },
      {
        runId: "f1",
        input: { message: "How is the build?", origin: "agent", ...(timeoutSeconds ? { timeoutSeconds } : {}) },
        runner: { type: "echo" },
        userMessage: { role: "user", content: "How is the build?", timestamp: Date.now() },
      },
      {
        originalMessage: "How is the build?",
        requesterKey: REQUESTER,
        requesterAgentId: "main",
        targetDisplayKey: "main",
        maxTurns: 1,
      },
    );
  const restart = () => {
    restarted = true;
    return world.restart();
  };
  return { world, announced, requesterRuns, idle, startPrimary, restart, driverOf };
}

beforeEach(() => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

describe("sessions_send flow over the session's run lifecycle", () => {
  it("continues when the primary run settles: the requester's turn, the announce run here, the announce posted", async () => {
    const w = target({ f1: "green", "f1:turn:1": "thanks", "f1:announce": "Build is green." });
    expect(w.startPrimary()).toMatchObject({ status: "started" });
    await w.idle();
    expect(w.requesterRuns).toEqual(["f1:turn:1"]);
    expect(w.world.session.attempts).toEqual(["f1", "f1:announce"]);
    expect(w.announced).toEqual(["Build is green."]);
    expect(w.world.session.stores.flows.get("f1")).toMatchObject({ state: "done", outcome: "announced" });
    expect(w.world.session.timers.has("flow", "f1")).toBe(false);
  });

  it("ends with no reply and no announce when the primary run times out", async () => {
    const w = target({ "f1:announce": "never" }, { hangPrimary: true });
    w.startPrimary(5);
    await settle();
    expect(w.world.session.timers.has("flow", "f1")).toBe(true);
    await w.world.session.alarm(Date.now() + 5_000);
    await w.idle();
    expect(w.world.session.lifecycle.snapshot("f1")?.status).toBe("timeout");
    expect(w.world.session.stores.flows.get("f1")).toMatchObject({ state: "done", outcome: "no-reply" });
    expect(w.requesterRuns).toEqual([]);
    expect(w.announced).toEqual([]);
    expect(w.world.session.attempts).toEqual(["f1"]);
  });

  it("resumes a flow whose instance died right after the primary reply: the restart re-arms it and it advances once", async () => {
    const w = target({ f1: "green", "f1:turn:1": "thanks", "f1:announce": "Build is green." }, { settleLost: true });
    w.startPrimary();
    await w.world.session.lifecycle.wait("f1", 5_000);
    await w.idle();
    expect(w.world.session.stores.flows.get("f1")?.state).toBe("primary");
    const after = w.restart();
    after.recover();
    // The run's end cleared every timer about its id, the flow's too; the restart re-arms it.
    expect(after.timers.has("flow", "f1")).toBe(false);
    w.driverOf(after).reconcile();
    await after.alarm();
    await w.idle();
    expect(w.announced).toEqual(["Build is green."]);
    expect(w.requesterRuns).toEqual(["f1:turn:1"]);
    expect(after.stores.flows.get("f1")).toMatchObject({ state: "done", outcome: "announced" });
  });
});
