import { describe, expect, inject, it } from "vitest";
import { history, until } from "../support/helpers";
import { toolModel as model, toolLoopTenant as tenantWith, transcript } from "../support/tool-loop-tenant";
import type { GatewayClient } from "../support/ws-helpers";

// Every way a tool loop is stopped mid-way (docs/tool-loop.md, "Bounded and abortable"):
// chat.abort (also in tool-loop-openai.test.ts), sessions.abort, `/stop` and the run timeout, between
// rounds and while a sessions_send waits on a target that does not answer. Each test checks
// how the run ended, that the loop went no further (no model call, tool event or transcript
// write after the stop) and what the transcript holds.

/** The test peers: model `hang` never answers (test/peers/peer-server.ts). */
const peer = `http://127.0.0.1:${inject("peerPort")}`;
/** How long to watch a stopped loop for anything more: well over one SLOW round (~1.3 s). */
const SETTLE_MS = 1_500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A tenant whose `main` loops on the mock model and whose agent `slow` never answers (model `hang`). */
function withSlowTarget(id: string) {
  return tenantWith(id, {
    tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true } },
    session: { agentToAgent: { maxPingPongTurns: 0 } },
    agents: {
      list: [
        { id: "main", default: true, runner: { type: "openai", baseUrl: model, model: "mock" } },
        { id: "slow", runner: { type: "openai", baseUrl: `${peer}/v1`, model: "hang" } },
      ],
    },
  });
}

/** Model requests so far whose body contains `tag` (each test's user message carries its own). */
async function modelCalls(tag: string): Promise<number> {
  const res = await fetch(`${model}/requests?contains=${encodeURIComponent(tag)}`);
  return ((await res.json()) as { requests: unknown[] }).requests.length;
}

async function startLoop(client: GatewayClient, runId: string, message: string, extra: Record<string, unknown> = {}) {
  const sent = await client.request("chat.send", { sessionKey: "main", message, idempotencyKey: runId, ...extra });
  expect(sent.payload, JSON.stringify(sent)).toMatchObject({ runId, status: "started" });
}

/** Resolves once `n` tool calls of the run ended (the loop is mid-way). */
function toolCallsEnded(client: GatewayClient, runId: string, n: number) {
  return until(
    async () =>
      client.frames.filter(
        (f) =>
          f.event === "agent" &&
          f.payload?.runId === runId &&
          f.payload.stream === "item" &&
          f.payload.data?.phase === "end",
      ).length,
    (count) => count >= n,
    10_000,
  );
}

function ended(client: GatewayClient, runId: string) {
  return client.waitFor(
    (f) => f.event === "chat" && f.payload?.runId === runId && ["final", "error", "aborted"].includes(f.payload.state),
    15_000,
  );
}

/** The run's loop activity (model usage, tool items and tool events, text deltas) in `frames`. */
function loopActivity(frames: any[], runId: string) {
  return frames.filter(
    (f) =>
      f.type === "event" &&
      f.payload?.runId === runId &&
      ((f.event === "agent" && ["item", "tool", "usage", "assistant"].includes(f.payload.stream)) ||
        (f.event === "chat" && f.payload.state === "delta")),
  );
}

/**
 * After the run's end event: nothing more of the loop. Watches for SETTLE_MS that no model call
 * is made, no tool or usage event comes and the transcript does not change; answers the
 * transcript and the number of model calls the run made.
 */
async function expectLoopStopped(opts: {
  id: string;
  token: string;
  client: GatewayClient;
  runId: string;
  tag: string;
}) {
  const { id, token, client, runId, tag } = opts;
  const end = await ended(client, runId);
  const endAt = client.frames.indexOf(end);
  const calls = await modelCalls(tag);
  const messages = await transcript(id, token);
  await sleep(SETTLE_MS);
  expect(await modelCalls(tag), "no model call after the stop").toBe(calls);
  expect(loopActivity(client.frames.slice(endAt + 1), runId), "no loop events after the stop").toEqual([]);
  expect(await transcript(id, token), "nothing written after the stop").toEqual(messages);
  // Each model call that answered is one recorded step; at most one more was cut off in flight.
  const steps = messages.filter((m) => m.role === "assistant" && m.stopReason === "toolUse").length;
  expect(calls).toBeGreaterThanOrEqual(steps);
  expect(calls).toBeLessThanOrEqual(steps + 1);
  return { end, messages, calls, steps };
}

/**
 * The transcript of a loop cut short: the user message, then whole rounds (a step and the
 * result of its call), at most one last step whose call had not finished; no final answer.
 */
function expectCutShort(messages: Array<Record<string, any>>, text: string, minSteps = 1) {
  expect(messages[0]).toMatchObject({ role: "user", content: text });
  const rest = messages.slice(1);
  const roles = rest.map((m) => m.role).join(",");
  expect(roles).toMatch(/^assistant,toolResult(,assistant,toolResult)*(,assistant)?$/);
  for (let i = 0; i < rest.length; i += 2) {
    const step = rest[i]!;
    expect(step.stopReason).toBe("toolUse");
    const result = rest[i + 1];
    if (result) expect(result.toolCallId).toBe(step.content.find((b: any) => b.type === "toolCall").id);
  }
  expect(rest.filter((m) => m.role === "assistant").length).toBeGreaterThanOrEqual(minSteps);
  expect(messages.some((m) => m.stopReason === "stop")).toBe(false);
}

describe("a tool loop stopped mid-way", () => {
  it("sessions.abort stops it: aborted (rpc), no further model call, whole rounds in the transcript", async () => {
    const tag = "[tla-sessions-abort]";
    const text = `SLOW LOOP sessions_list {"limit":1} ${tag}`;
    const { token, client } = await tenantWith("tla-sessions-abort");
    await startLoop(client, "tla-sa", text);
    await toolCallsEnded(client, "tla-sa", 1);
    const aborted = await client.request("sessions.abort", { key: "main" });
    expect(aborted.payload).toEqual({ ok: true, abortedRunId: "tla-sa", status: "aborted" });
    const { end, messages } = await expectLoopStopped({
      id: "tla-sessions-abort",
      token,
      client,
      runId: "tla-sa",
      tag,
    });
    expect(end.payload).toMatchObject({ state: "aborted", stopReason: "rpc" });
    expect((await client.request("agent.wait", { runId: "tla-sa" })).payload).toMatchObject({
      status: "error",
      stopReason: "rpc",
    });
    expectCutShort(messages, text);
    // Nothing left running: a second abort finds no active run.
    expect((await client.request("sessions.abort", { key: "main" })).payload.status).toBe("no-active-run");
  });

  it("/stop stops it: aborted (stop), no further model call, whole rounds in the transcript", async () => {
    const tag = "[tla-stop]";
    const text = `SLOW LOOP sessions_list {"limit":1} ${tag}`;
    const { token, client } = await tenantWith("tla-stop");
    await startLoop(client, "tla-st", text);
    await toolCallsEnded(client, "tla-st", 1);
    const stop = await client.request("chat.send", {
      sessionKey: "main",
      message: "/stop",
      idempotencyKey: "tla-st-x",
    });
    expect(stop.payload).toEqual({ ok: true, aborted: true, runIds: ["tla-st"] });
    const { end, messages } = await expectLoopStopped({ id: "tla-stop", token, client, runId: "tla-st", tag });
    expect(end.payload).toMatchObject({ state: "aborted", stopReason: "stop" });
    expectCutShort(messages, text);
    // `/stop` itself is a command, not a turn: it is not in the transcript.
    expect(messages.some((m) => m.role === "user" && m.content === "/stop")).toBe(false);
    const row = (await client.request("sessions.list", {})).payload.sessions.find(
      (s: any) => s.key === "agent:main:main",
    );
    expect(row.abortedLastRun).toBe(true);
  });

  it("the run timeout stops it: timeout, no further model call, whole rounds in the transcript", async () => {
    const tag = "[tla-timeout]";
    const text = `SLOW LOOP sessions_list {"limit":1} ${tag}`;
    const { token, client } = await tenantWith("tla-timeout");
    const sentAt = Date.now();
    await startLoop(client, "tla-to", text, { timeoutMs: 3_000 });
    // Each SLOW round takes ~1.3 s: the deadline falls in the loop's third round.
    await toolCallsEnded(client, "tla-to", 1);
    const { end, messages } = await expectLoopStopped({ id: "tla-timeout", token, client, runId: "tla-to", tag });
    expect(end.payload).toMatchObject({ state: "error", errorMessage: "run timed out after 3s" });
    // The timeout's own message proves what stopped it; the bound only catches a loop that ran
    // on for many rounds, with room for a loaded machine (a 3 s margin failed there).
    expect(Date.now() - sentAt).toBeLessThan(3_000 + SETTLE_MS + 10_000);
    expect((await client.request("agent.wait", { runId: "tla-to" })).payload).toMatchObject({
      status: "timeout",
      error: "run timed out after 3s",
    });
    expectCutShort(messages, text);
  });
});

describe("a tool loop stopped while a sessions_send waits", () => {
  /** The wait's own limit: every stop below must end the run well before it. */
  const WAIT_SECONDS = 4;
  const stops: Array<{
    name: string;
    stop: (client: GatewayClient, runId: string) => Promise<unknown>;
    state: string;
    stopReason?: string;
    timeoutMs?: number;
  }> = [
    {
      name: "chat.abort",
      stop: async (client, runId) =>
        expect((await client.request("chat.abort", { sessionKey: "main", runId })).payload).toMatchObject({
          aborted: true,
          runIds: [runId],
        }),
      state: "aborted",
      stopReason: "rpc",
    },
    {
      name: "sessions.abort",
      stop: async (client, runId) =>
        expect((await client.request("sessions.abort", { key: "main" })).payload).toEqual({
          ok: true,
          abortedRunId: runId,
          status: "aborted",
        }),
      state: "aborted",
      stopReason: "rpc",
    },
    {
      name: "/stop",
      stop: async (client, runId) =>
        expect(
          (await client.request("chat.send", { sessionKey: "main", message: "/stop", idempotencyKey: `${runId}-stop` }))
            .payload,
        ).toEqual({ ok: true, aborted: true, runIds: [runId] }),
      state: "aborted",
      stopReason: "stop",
    },
    { name: "the run timeout", stop: async () => {}, state: "error", timeoutMs: 2_000 },
  ];

  for (const [i, s] of stops.entries()) {
    it(`${s.name} ends the loop at once, not after the wait's timeout, and writes no result`, async () => {
      const id = `tla-send-${i}`;
      const runId = `tla-send-run-${i}`;
      const tag = `[${id}]`;
      const text = `CALL sessions_list {"limit":1} THEN CALL sessions_send {"sessionKey":"agent:slow:main","message":"ping ${i}","timeoutSeconds":${WAIT_SECONDS}} ${tag}`;
      const { token, client } = await withSlowTarget(id);
      await startLoop(client, runId, text, s.timeoutMs ? { timeoutMs: s.timeoutMs } : {});
      // The first round is done and the send reached its target, whose model never answers: the call waits.
      await toolCallsEnded(client, runId, 1);
      await until(
        // The target comes into being only when the send reaches it (404 until then).
        async () => {
          const res = await history("agent:slow:main", "?limit=200", { token, prefix: `/t/${id}` });
          return res.status === 200 ? (res.data.messages as Array<Record<string, any>>) : [];
        },
        (target) => target.some((m) => m.role === "user" && m.content === `ping ${i}`),
        5_000,
      );
      const waitingSince = Date.now();
      await s.stop(client, runId);
      const end = await ended(client, runId);
      const stoppedAfter = Date.now() - waitingSince;
      // What proves "before the wait's timeout" is the order below (the send never ended, no
      // further model call); the elapsed bound only catches a stop that hangs (a 1.5 s bound
      // measured the machine).
      expect(stoppedAfter).toBeLessThan(WAIT_SECONDS * 1000);
      if (s.state === "aborted") {
        expect(end.payload).toMatchObject({ state: "aborted", stopReason: s.stopReason });
      } else {
        expect(end.payload).toMatchObject({ state: "error", errorMessage: "run timed out after 2s" });
      }
      // The sessions_send call started and never ended for this run.
      const items = client.frames
        .filter((f) => f.event === "agent" && f.payload?.runId === runId && f.payload.stream === "item")
        .map((f) => `${f.payload.data.phase}:${f.payload.data.name}`);
      expect(items).toEqual(["start:sessions_list", "end:sessions_list", "start:sessions_send"]);
      // Past the wait's own timeout: still no result written, no model call, no event.
      const { messages, calls } = await expectLoopStopped({ id, token, client, runId, tag });
      await sleep(Math.max(0, WAIT_SECONDS * 1000 + 500 - (Date.now() - waitingSince)));
      expect(await transcript(id, token)).toEqual(messages);
      expect(await modelCalls(tag)).toBe(calls);
      expect(loopActivity(client.frames.slice(client.frames.indexOf(end) + 1), runId)).toEqual([]);
      expect(calls).toBe(2);
      expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
      expectCutShort(messages, text, 2);
      expect(messages[3]!.content).toEqual([
        expect.objectContaining({ type: "toolCall", name: "sessions_send", arguments: expect.anything() }),
      ]);
      expect(messages.some((m) => m.role === "toolResult" && m.toolName === "sessions_send")).toBe(false);
      // The message was delivered once; the target's run goes on without the aborted loop.
      const target = await transcript(id, token, "agent:slow:main");
      expect(target.filter((m) => m.role === "user" && m.content === `ping ${i}`)).toHaveLength(1);
      if (i === 0) {
        // The session takes the next turn: the call without a result is left out of the replay.
        await client.request("chat.send", {
          sessionKey: "main",
          message: "hello again",
          idempotencyKey: `${runId}-next`,
        });
        const next = await ended(client, `${runId}-next`);
        expect(next.payload.state).toBe("final");
        expect(next.payload.message.content[0].text).toBe("ECHO: hello again");
      }
    });
  }
});
