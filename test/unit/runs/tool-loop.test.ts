import { describe, expect, it } from "vitest";
import type { TranscriptMessage } from "../../../src/protocol/session";
import type { ContextMessage, ModelToolCall, RunnerReply } from "../../../src/runs/runners/runner";
import { RunnerError } from "../../../src/runs/runners/runner";
import type { JournalStep } from "../../../src/runs/tool-loop/tool-journal";
import {
  runToolLoop,
  type ToolLoopJournal,
  type ToolLoopPorts,
  type ToolOutcome,
} from "../../../src/runs/tool-loop/tool-loop";

// The tool loop engine over in-memory ports: the session's transcript and the tool journal as
// plain arrays, a scripted model, scripted tools. A "crash" is an attempt whose writes start
// failing after a given count (a dead isolate persists nothing more); a fresh attempt over the
// same store is the resumed run.

const RUN_ID = "run-1";

class Crash extends Error {}

/** What survives a crash: the transcript and the journal. */
type Store = { transcript: TranscriptMessage[]; steps: JournalStep[] };

type Script = {
  model(context: ContextMessage[]): RunnerReply;
  invoke?(call: ModelToolCall, idempotencyKey: string): Promise<ToolOutcome>;
  clientTools?: string[];
  signal?: AbortSignal;
  /** Persistent writes this attempt makes before every further one throws Crash. */
  writesBeforeCrash?: number;
};

/** One attempt of the run over the store, with a log of what it asked of the model and tools. */
function attempt(store: Store, script: Script) {
  let budget = script.writesBeforeCrash ?? Number.POSITIVE_INFINITY;
  const write = () => {
    if (budget-- <= 0) throw new Crash("crashed");
  };
  const modelContexts: ContextMessage[][] = [];
  const invoked: Array<{ name: string; key: string }> = [];
  const ended: string[] = [];
  const stepOf = (step: number) => store.steps.find((s) => s.step === step)!;
  const journal: ToolLoopJournal = {
    steps: () => structuredClone(store.steps),
    recordStep(_runId, step, message, messageSeq, calls) {
      write();
      store.steps.push({
        step,
        message,
        messageSeq,
        resultsAppended: false,
        calls: calls.map((call, position) => ({ position, ...call, state: "recorded", attempts: 0 })),
      });
    },
    markStarted(_runId, step, position) {
      write();
      const call = stepOf(step).calls[position]!;
      if (call.state !== "done") Object.assign(call, { state: "started", attempts: call.attempts + 1 });
    },
    markDone(_runId, step, position, result) {
      write();
      Object.assign(stepOf(step).calls[position]!, { state: "done", result });
    },
    markResultsAppended(_runId, step) {
      write();
      stepOf(step).resultsAppended = true;
    },
  };
  const ports: ToolLoopPorts = {
    journal,
    append(messages) {
      write();
      store.transcript.push(...messages);
      return messages.map((_, i) => store.transcript.length - messages.length + i + 1);
    },
    transaction(fn) {
      const before = structuredClone(store);
      try {
        fn();
      } catch (error) {
        Object.assign(store, before);
        throw error;
      }
    },
    async model(context) {
      modelContexts.push(structuredClone(context));
      await Promise.resolve();
      return script.model(context);
    },
    invoke(call, key) {
      invoked.push({ name: call.name, key });
      return script.invoke ? script.invoke(call, key) : Promise.resolve(toolOk(call.name));
    },
    clientTools: new Set(script.clientTools ?? []),
    events: { toolStarted: () => {}, toolEnded: (call) => ended.push(call.name), usage: () => {} },
    onText: () => {},
    signal: script.signal ?? new AbortController().signal,
    now: () => 1_000,
  };
  const run = (maxRounds = 8) => runToolLoop(ports, { runId: RUN_ID, context: [userTurn], maxRounds });
  return { run, modelContexts, invoked, ended };
}

const userTurn: ContextMessage = { role: "user", content: "What is going on?" };
const toolOk = (name: string): ToolOutcome => ({ text: `${name} ok`, details: { status: "ok" }, isError: false });
const reply = (text: string, toolCalls?: ModelToolCall[]): RunnerReply => ({
  kind: "reply",
  text,
  ...(toolCalls ? { toolCalls } : {}),
});
const toolMessages = (context: ContextMessage[]) => context.filter((m) => m.role === "tool").length;

/** One round of two session tools, then a text answer once their results are in the context. */
const twoToolsThenAnswer = (context: ContextMessage[]) =>
  toolMessages(context) === 0
    ? reply("Looking.", [
        { id: "call_a", name: "sessions_list", arguments: {} },
        { id: "call_b", name: "session_status", arguments: { sessionKey: "main" } },
      ])
    : reply("All quiet.");

/** The transcript without timestamps (every attempt stamps its own). */
const shape = (transcript: TranscriptMessage[]) => transcript.map(({ timestamp: _, ...message }) => message);

describe("runToolLoop over in-memory ports", () => {
  it("runs a round of tools and answers with the text of all rounds", async () => {
    const store: Store = { transcript: [], steps: [] };
    const loop = attempt(store, { model: twoToolsThenAnswer });
    const answer = await loop.run();
    expect(answer.text).toBe("All quiet.");
    expect(answer.streamedText).toBe("Looking.\n\nAll quiet.");
    expect(store.transcript.map((m) => m.role)).toEqual(["assistant", "toolResult", "toolResult"]);
    expect(store.transcript.slice(1).map((m) => m.toolCallId)).toEqual(["call_a", "call_b"]);
    expect(loop.invoked).toEqual([
      { name: "sessions_list", key: "run-1:call_a" },
      { name: "session_status", key: "run-1:call_b" },
    ]);
    expect(loop.modelContexts.map(toolMessages)).toEqual([0, 2]);
  });

  it("resumed after a crash at any write, ends with the same transcript and asks again only what was not kept", async () => {
    const reference: Store = { transcript: [], steps: [] };
    await attempt(reference, { model: twoToolsThenAnswer }).run();
    let crashes = 0;
    for (let writes = 0; ; writes++) {
      const store: Store = { transcript: [], steps: [] };
      const first = attempt(store, { model: twoToolsThenAnswer, writesBeforeCrash: writes });
      const outcome = await first.run().then(
        () => "answered",
        (error: unknown) => {
          if (!(error instanceof Crash)) throw error;
          return "crashed";
        },
      );
      if (outcome === "answered") break;
      crashes++;
      const kept = structuredClone(store.steps);
      const resumed = attempt(store, { model: twoToolsThenAnswer });
      const answer = await resumed.run();
      expect(answer.streamedText, `crash after ${writes} writes`).toBe("Looking.\n\nAll quiet.");
      expect(shape(store.transcript), `crash after ${writes} writes`).toEqual(shape(reference.transcript));
      // The model is asked again for the first round only when that round was not journaled.
      const firstRoundAsks = [...first.modelContexts, ...resumed.modelContexts].filter((c) => toolMessages(c) === 0);
      expect(firstRoundAsks.length, `crash after ${writes} writes`).toBe(kept.length === 0 ? 2 : 1);
      // A call whose result was journaled is never run again; the others run again under the same key.
      const keptDone = new Set(
        kept.flatMap((step) => step.calls.filter((c) => c.state === "done").map((c) => c.callId)),
      );
      for (const call of resumed.invoked) expect(keptDone.has(call.key.slice(`${RUN_ID}:`.length))).toBe(false);
      expect(resumed.invoked.length, `crash after ${writes} writes`).toBe(2 - keptDone.size);
    }
    // A step (2 writes), two starts, two results, the results (2 writes): a crash at each.
    expect(crashes).toBe(8);
  });

  it("stops at a client tool: the call goes back to the caller, the session tool beside it runs", async () => {
    const store: Store = { transcript: [], steps: [] };
    const loop = attempt(store, {
      clientTools: ["get_weather"],
      model: () =>
        reply("Checking.", [
          { id: "call_w", name: "get_weather", arguments: { city: "Oslo" } },
          { id: "call_s", name: "sessions_list", arguments: {} },
        ]),
    });
    const answer = await loop.run();
    expect(answer).toMatchObject({ kind: "reply", text: "", stopReason: "toolUse" });
    expect(answer.clientStop?.stepSeq).toBe(1);
    expect(answer.clientStop?.calls).toEqual([
      { id: expect.stringMatching(/^[0-9a-f]{9}$/), name: "get_weather", arguments: '{"city":"Oslo"}' },
    ]);
    expect(loop.invoked.map((call) => call.name)).toEqual(["sessions_list"]);
    expect(loop.modelContexts).toHaveLength(1);
    expect(store.transcript[1]).toMatchObject({
      role: "toolResult",
      toolCallId: "call_w",
      details: { status: "pending", tool: "get_weather", message: "Tool execution delegated to client" },
    });
  });

  it("aborted while a tool runs: rejects at once, keeps no result and leaves the call to run again", async () => {
    const controller = new AbortController();
    const store: Store = { transcript: [], steps: [] };
    const loop = attempt(store, {
      model: twoToolsThenAnswer,
      signal: controller.signal,
      invoke: (call) => {
        if (call.name === "session_status") {
          setTimeout(() => controller.abort(), 0); // once sessions_list has answered
          return new Promise(() => {}); // a sessions_send waiting minutes
        }
        return Promise.resolve(toolOk(call.name));
      },
    });
    await expect(loop.run()).rejects.toMatchObject({ name: "AbortError" });
    expect(store.transcript.map((m) => m.role)).toEqual(["assistant"]);
    expect(store.steps[0]?.resultsAppended).toBe(false);
    expect(store.steps[0]?.calls.map((c) => c.state)).toEqual(["done", "started"]);
    expect(loop.ended).toEqual(["sessions_list"]);
    expect(loop.modelContexts).toHaveLength(1);
  });

  it("fails the run when the model still asks for tools after maxRounds rounds", async () => {
    const store: Store = { transcript: [], steps: [] };
    let round = 0;
    const loop = attempt(store, {
      model: () => reply("", [{ id: `call_${++round}`, name: "sessions_list", arguments: {} }]),
    });
    const failure = loop.run(2);
    await expect(failure).rejects.toBeInstanceOf(RunnerError);
    await expect(failure).rejects.toThrow(
      "Tool loop stopped: the model asked for tools after 2 rounds (maxToolRounds 2)",
    );
    expect(loop.modelContexts).toHaveLength(3);
    expect(store.steps.map((step) => step.step)).toEqual([1, 2]);
    expect(loop.invoked).toHaveLength(2);
  });
});
