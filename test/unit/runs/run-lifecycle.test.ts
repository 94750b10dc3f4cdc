import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LiveEvent } from "../../../src/contracts/tenant-api";
import { WATCHDOG_MS } from "../../../src/runs/run-lifecycle";
import type { RunnerOutcome } from "../../../src/runs/runners/runner";
import { deferred, reply, sessionWorld, settle } from "../support/session-world";

// The durable run lifecycle of one session (src/runs/run-lifecycle.ts) over the session's real
// stores on an in-memory SQLite, the model a script: start → model → reply → done, the FIFO
// queue, aborts, timeouts, and a restart mid-run (the watchdog runs the run again, or gives up).

type Events = Array<Omit<LiveEvent, "afterSeq">>;

/** The `chat` states and `agent` lifecycle phases one run's clients saw, in order. */
function runEvents(events: Events, runId: string): string[] {
  return events.flatMap(({ event, payload }) => {
    const p = payload as { runId?: string; state?: string; stream?: string; data?: { phase?: string } };
    if (p.runId !== runId) return [];
    if (event === "chat") return [`chat:${p.state}`];
    if (event === "agent" && p.stream === "lifecycle") return [`lifecycle:${p.data?.phase}`];
    return [];
  });
}

// A failed run logs a warning (run.failed); the tests read the run itself.
beforeEach(() => void vi.spyOn(console, "warn").mockImplementation(() => {}));
afterEach(() => vi.restoreAllMocks());

describe("run lifecycle over in-memory ports", () => {
  it("runs start → model → reply → done: the reply is appended, clients see it end, the run's timers go", async () => {
    const world = sessionWorld(async (run, controls) => {
      controls.onText("Hel");
      controls.onText("Hello");
      return reply(`Hello, ${run.input.message}`);
    });
    const { session } = world;
    const started = session.start("r1", "world");
    expect(started).toMatchObject({ status: "started", queued: false, userSeq: 1 });
    const outcome = await session.lifecycle.wait("r1", 5_000);
    expect(outcome).toMatchObject({ runId: "r1", status: "ok", reply: "Hello, world" });
    expect(session.messages()).toEqual([
      { role: "user", text: "world" },
      { role: "assistant", text: JSON.stringify([{ type: "text", text: "Hello, world" }]), stopReason: "stop" },
    ]);
    expect(session.transcript.entry()).toMatchObject({ status: "done", messageCount: 2, abortedLastRun: false });
    expect(runEvents(world.events, "r1")).toEqual([
      "lifecycle:start",
      "chat:status",
      "lifecycle:model",
      "chat:delta",
      "chat:delta",
      "lifecycle:end",
      "chat:final",
    ]);
    expect(world.settled).toEqual(["r1"]);
    expect(session.timers.nextDue()).toBeUndefined();
    expect(session.stores.runs.get("r1")).toMatchObject({ state: "ok", attempts: 1, replySeq: 2, userSeq: 1 });
  });

  it("admits runs behind a running one in order and starts each only when the slot frees", async () => {
    const calls = new Map<string, ReturnType<typeof deferred<RunnerOutcome>>>();
    const world = sessionWorld((run) => {
      const call = deferred<RunnerOutcome>();
      calls.set(run.runId, call);
      return call.promise;
    });
    const { session } = world;
    expect(session.start("r1", "one")).toMatchObject({ queued: false });
    expect(session.start("r2", "two")).toMatchObject({ queued: true });
    expect(session.start("r3", "three")).toMatchObject({ queued: true });
    await settle();
    expect(session.attempts).toEqual(["r1"]);
    expect(session.stores.runs.get("r2")?.state).toBe("queued");

    calls.get("r1")!.resolve(reply("first"));
    await session.lifecycle.wait("r1", 5_000);
    await settle();
    expect(session.attempts).toEqual(["r1", "r2"]);
    expect(session.stores.runs.get("r3")?.state).toBe("queued");
    calls.get("r2")!.resolve(reply("second"));
    await session.lifecycle.wait("r2", 5_000);
    await settle();
    expect(session.attempts).toEqual(["r1", "r2", "r3"]);
    calls.get("r3")!.resolve(reply("third"));
    await session.lifecycle.wait("r3", 5_000);

    // The user messages in order of admission, each reply after the run before it ended.
    expect(session.messages().map((m) => `${m.role}:${m.text.replace(/\W+/g, " ").trim()}`)).toEqual([
      "user:one",
      "user:two",
      "user:three",
      "assistant:type text text first",
      "assistant:type text text second",
      "assistant:type text text third",
    ]);
    expect(world.settled).toEqual(["r1", "r2", "r3"]);
  });

  it("aborts a run mid-call: its streamed text is kept as an aborted partial, the model's late answer is dropped, the next run starts", async () => {
    const first = deferred<RunnerOutcome>();
    const world = sessionWorld(async (run, controls) => {
      if (run.runId === "r2") return reply("next");
      controls.onText("half an ans");
      return first.promise;
    });
    const { session } = world;
    session.start("r1", "long");
    session.start("r2", "after");
    await settle();
    expect(session.lifecycle.abort()).toEqual({ abortedRunId: "r1", status: "aborted" });
    expect(session.lifecycle.snapshot("r1")).toMatchObject({ state: "aborted" });
    first.resolve(reply("too late"));
    expect(await session.lifecycle.wait("r2", 5_000)).toMatchObject({ status: "ok", reply: "next" });
    await settle();

    const texts = session.messages();
    expect(texts.map((m) => m.role)).toEqual(["user", "user", "assistant", "assistant"]);
    expect(texts[2]).toMatchObject({ stopReason: "aborted" });
    expect(texts[2]!.text).toContain("half an ans");
    expect(texts.some((m) => m.text.includes("too late"))).toBe(false);
    expect(runEvents(world.events, "r1")).toEqual([
      "lifecycle:start",
      "chat:status",
      "lifecycle:model",
      "chat:delta",
      "lifecycle:end",
      "chat:aborted",
    ]);
    expect(session.stores.runs.get("r1")).toMatchObject({ state: "aborted", stopReason: "rpc" });
  });

  it("ends a run at its timeout timer as `timeout`, keeping what it streamed", async () => {
    const world = sessionWorld(async (_run, controls) => {
      controls.onText("partial");
      return new Promise<RunnerOutcome>(() => {});
    });
    const { session } = world;
    session.start("r1", "slow", { input: { message: "slow", origin: "chat.send", timeoutSeconds: 5 } });
    await settle();
    // Before the deadline the alarm leaves the run alone; at it, the run ends.
    await session.alarm(Date.now() + 4_000);
    expect(session.lifecycle.snapshot("r1")?.status).toBe("pending");
    await session.alarm(Date.now() + 5_000);
    expect(session.lifecycle.snapshot("r1")).toMatchObject({ status: "timeout", error: "run timed out after 5s" });
    expect(session.messages().at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(session.transcript.entry()?.status).toBe("timeout");
    expect(session.timers.nextDue()).toBeUndefined();
  });

  it("runs a run whose instance died again after the restart (watchdog due at once) and appends its reply once", async () => {
    const world = sessionWorld(async (run) =>
      run.attempts === 1 ? new Promise<RunnerOutcome>(() => {}) : reply(`answer on attempt ${run.attempts}`),
    );
    world.session.start("r1", "question");
    await settle();
    expect(world.session.stores.runs.get("r1")).toMatchObject({ state: "running", attempts: 1 });

    const after = world.restart();
    after.recover();
    await after.alarm();
    expect(await after.lifecycle.wait("r1", 5_000)).toMatchObject({ status: "ok", reply: "answer on attempt 2" });
    expect(after.attempts).toEqual(["r1"]);
    expect(after.messages().filter((m) => m.role === "assistant")).toHaveLength(1);
    expect(after.stores.runs.get("r1")?.attempts).toBe(2);
  });

  it("arms the watchdog at its period, WATCHDOG_MS or the deployment's RUN_WATCHDOG_MS", async () => {
    const hang = async () => new Promise<RunnerOutcome>(() => {});
    for (const [watchdogMs, expected] of [
      [undefined, WATCHDOG_MS],
      [5_000, 5_000],
    ] as const) {
      const { session } = sessionWorld(hang, { watchdogMs });
      const startedAt = Date.now();
      session.start("r1", "question");
      await settle();
      const due = session.timers.nextDue() ?? 0;
      expect(due - startedAt).toBeGreaterThanOrEqual(expected);
      expect(due - startedAt).toBeLessThan(expected + 1_000);
    }
  });

  it("gives a run up as `error` once it was interrupted three times, and starts the run queued behind it", async () => {
    const world = sessionWorld(async (run) =>
      run.runId === "r1" ? new Promise<RunnerOutcome>(() => {}) : reply("the next one"),
    );
    world.session.start("r1", "cursed");
    world.session.start("r2", "fine");
    await settle();
    for (let restart = 1; restart <= 3; restart++) {
      const session = world.restart();
      session.recover();
      await session.alarm();
      await settle();
    }
    const session = world.session;
    expect(session.lifecycle.snapshot("r1")).toMatchObject({
      status: "error",
      error: "run interrupted 3 times; giving up",
    });
    expect(session.stores.runs.get("r1")?.attempts).toBe(3);
    expect(await session.lifecycle.wait("r2", 5_000)).toMatchObject({ status: "ok", reply: "the next one" });
  });

  it("keeps a held run's user message back until its release, even when the slot frees; its fallback timer releases it", async () => {
    const first = deferred<RunnerOutcome>();
    const world = sessionWorld(async (run) => (run.runId === "r0" ? first.promise : reply("held reply")));
    const { session } = world;
    session.start("r0", "running");
    expect(session.start("r1", "held", { hold: true })).toMatchObject({ status: "started", queued: true });
    first.resolve(reply("first"));
    await session.lifecycle.wait("r0", 5_000);
    await settle();
    expect(session.attempts).toEqual(["r0"]);
    expect(session.messages().map((m) => m.role)).toEqual(["user", "assistant"]);
    // The caller never released it: the fallback timer does.
    await session.alarm(Date.now() + 3_000);
    expect(await session.lifecycle.wait("r1", 5_000)).toMatchObject({ status: "ok", reply: "held reply" });
    expect(session.messages().map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("a hold is one timer row, the run's watchdog: released, the same row is re-armed for the run; a hold an older version recorded (a run-release row) still releases", async () => {
    const world = sessionWorld(async () => reply("done"));
    const { session } = world;
    expect(session.start("r1", "held", { hold: true })).toMatchObject({ queued: true });
    expect([...session.timers.refs("run-watchdog")]).toEqual(["r1"]);
    expect(session.timers.refs("run-release").size).toBe(0);
    session.lifecycle.release("r1");
    expect(await session.lifecycle.wait("r1", 5_000)).toMatchObject({ status: "ok", reply: "done" });
    // The older form: the hold's own release timer, no watchdog; its alarm releases it.
    expect(session.start("r2", "held before", { hold: true })).toMatchObject({ queued: true });
    session.timers.clear("run-watchdog", "r2");
    session.timers.set("run-release", "r2", Date.now() + 3_000);
    await settle();
    expect(session.attempts).toEqual(["r1"]);
    await session.alarm(Date.now() + 3_000);
    expect(await session.lifecycle.wait("r2", 5_000)).toMatchObject({ status: "ok", reply: "done" });
    expect(session.timers.refs("run-release").size).toBe(0);
  });
});
