import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, inject, it } from "vitest";
import { call, createTenant, issueToken } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/** What real OpenClaw clients observe of a run: event payloads, aborts before the start, waits. */

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const open: GatewayClient[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

async function tenantWith(id: string, runner?: Record<string, unknown>) {
  await createTenant(id);
  const admin = await issueToken(id);
  const config = runner ? { agents: { list: [{ id: "main", default: true, runner }] } } : {};
  const put = await call(`/t/${id}/v1/config`, { method: "PUT", token: admin.token, json: config });
  expect(put.status).toBe(200);
  const client = await GatewayClient.connect({ path: `/t/${id}`, token: admin.token });
  open.push(client);
  return { token: admin.token, client };
}

const ended = (client: GatewayClient, runId: string) =>
  client.waitFor(
    (f) => f.event === "chat" && f.payload.runId === runId && ["final", "error", "aborted"].includes(f.payload.state),
    10_000,
  );

const runEvents = (client: GatewayClient, runId: string) =>
  client.frames.filter((f) => (f.event === "chat" || f.event === "agent") && f.payload?.runId === runId);

describe("run event payloads", () => {
  it("names the agent on chat and agent events, the session on lifecycle events, and shares one seq per run", async () => {
    const { client } = await tenantWith("fid-payloads");
    await client.request("sessions.messages.subscribe", { key: "main" });
    await client.request("chat.send", { sessionKey: "main", message: "hello", idempotencyKey: "p1" });
    await ended(client, "p1");
    const sessionId = (await client.request("sessions.list", {})).payload.sessions[0].sessionId;
    const events = runEvents(client, "p1");
    expect(events.every((e) => e.payload.agentId === "main")).toBe(true);
    const agent = events.filter((e) => e.event === "agent");
    expect(agent.every((e) => e.payload.isHeartbeat === false)).toBe(true);
    const lifecycle = agent.filter((e) => e.payload.stream === "lifecycle");
    expect(lifecycle.every((e) => e.payload.sessionId === sessionId)).toBe(true);
    // One counter per run: the agent events count 1, 2, 3… and each chat event reuses its source's seq.
    expect(agent.map((e) => e.payload.seq)).toEqual(agent.map((_, i) => i + 1));
    const status = events.find((e) => e.event === "chat" && e.payload.state === "status");
    expect(status.payload).toMatchObject({ phase: "starting_model" });
    const runStatus = agent.find((e) => e.payload.stream === "run_status");
    expect(runStatus.payload).toMatchObject({ data: { phase: "starting_model" }, seq: status.payload.seq });
    const end = lifecycle.find((e) => e.payload.data.phase === "end");
    const final = events.find((e) => e.event === "chat" && e.payload.state === "final");
    expect(final.payload.seq).toBe(end.payload.seq);
  });

  it("reports the runner starting, the model it runs and the terminal reply on the lifecycle end", async () => {
    const { client } = await tenantWith("fid-lifecycle");
    await client.request("chat.send", { sessionKey: "main", message: "hello y", idempotencyKey: "l1" });
    await ended(client, "l1");
    const lifecycle = runEvents(client, "l1").filter((e) => e.event === "agent" && e.payload.stream === "lifecycle");
    expect(lifecycle.map((e) => e.payload.data.phase)).toEqual(["start", "model", "end"]);
    expect(lifecycle[1].payload.data).toEqual({ phase: "model", provider: "echo", model: "echo" });
    expect(lifecycle[2].payload.data).toMatchObject({
      phase: "end",
      startedAt: lifecycle[0].payload.data.startedAt,
      endedAt: expect.any(Number),
      stopReason: "stop",
      aborted: false,
      terminalReply: { disposition: "visible", text: "ECHO: hello y" },
    });
    const wait = await client.request("agent.wait", { runId: "l1" });
    expect(wait.payload).toMatchObject({
      runId: "l1",
      status: "ok",
      stopReason: "stop",
      terminalReply: { disposition: "visible", text: "ECHO: hello y" },
    });
  });
});

describe("run event payloads after an eviction", () => {
  it("a webhook run completed by callback after its session object was evicted still names its agent and session", async () => {
    const { client } = await tenantWith("fid-evict", { type: "webhook", url: `${peer}/webhook/async` });
    await client.request("chat.send", { sessionKey: "main", message: "later", idempotencyKey: "ev1" });
    let request: any;
    for (let i = 0; i < 100 && !request; i++) {
      const recorded = (await (await fetch(`${peer}/control/recorded?path=/webhook/async`)).json()) as any[];
      request = recorded.find((r) => r.body.runId === "ev1");
      if (!request) await new Promise((r) => setTimeout(r, 50));
    }
    await evictDurableObject(env.SESSIONS.getByName("fid-evict/agent:main:main"));
    const before = runEvents(client, "ev1").length;
    const done = await call("/t/fid-evict/v1/runs/ev1/complete", {
      method: "POST",
      token: request.body.runToken,
      json: { reply: "async done" },
    });
    expect(done.data).toMatchObject({ ok: true, completed: true });
    const end = await ended(client, "ev1");
    expect(end.payload).toMatchObject({ state: "final", agentId: "main" });
    const after = runEvents(client, "ev1").slice(before);
    expect(after.every((e) => e.payload.agentId === "main")).toBe(true);
    const lifecycleEnd = after.find((e) => e.event === "agent" && e.payload.data?.phase === "end");
    expect(lifecycleEnd.payload).toMatchObject({
      sessionId: expect.any(String),
      data: { startedAt: expect.any(Number), terminalReply: { disposition: "visible", text: "async done" } },
    });
  });
});

describe("aborts before the run started", () => {
  /** Sends chat.send and, in the very next frame, the abort; answers both responses. */
  async function sendThenAbort(client: GatewayClient, key: string, runId: string, abort: [string, unknown]) {
    client.send({
      type: "req",
      id: `send-${runId}`,
      method: "chat.send",
      params: { sessionKey: key, message: "hi", idempotencyKey: runId },
    });
    client.send({ type: "req", id: `abort-${runId}`, method: abort[0], params: abort[1] });
    const send = await client.waitFor((f) => f.type === "res" && f.id === `send-${runId}`);
    const aborted = await client.waitFor((f) => f.type === "res" && f.id === `abort-${runId}`);
    return { send, aborted };
  }

  async function expectAbortedWithNothingAppended(
    client: GatewayClient,
    key: string,
    runId: string,
    stopReason: string,
  ) {
    const end = await ended(client, runId);
    expect(end.payload).toMatchObject({ state: "aborted", stopReason, agentId: "main" });
    const events = runEvents(client, runId);
    expect(events.some((e) => e.event === "chat" && ["final", "delta"].includes(e.payload.state))).toBe(false);
    const lifecycleEnd = events.find((e) => e.event === "agent" && e.payload.data?.phase === "end");
    expect(lifecycleEnd.payload.data).toMatchObject({ status: "cancelled", aborted: true, stopReason });
    const wait = await client.request("agent.wait", { runId });
    expect(wait.payload).toEqual({ runId, status: "error", endedAt: expect.any(Number), stopReason });
    const history = await client.request("chat.history", { sessionKey: key });
    expect(history.payload.messages).toEqual([]);
  }

  it("chat.abort with the run id aborts it: aborted event, no final, nothing appended", async () => {
    const { client } = await tenantWith("fid-abort-id", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    const key = "agent:main:abort-id";
    const { aborted } = await sendThenAbort(client, key, "a1", ["chat.abort", { sessionKey: key, runId: "a1" }]);
    expect(aborted.payload).toEqual({ ok: true, aborted: true, runIds: ["a1"] });
    await expectAbortedWithNothingAppended(client, key, "a1", "rpc");
  });

  it("chat.abort without a run id aborts it and chat.send answers the aborted run as OpenClaw does", async () => {
    const { client } = await tenantWith("fid-abort-all", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    const key = "agent:main:abort-all";
    const { send, aborted } = await sendThenAbort(client, key, "a2", ["chat.abort", { sessionKey: key }]);
    expect(aborted.payload).toEqual({ ok: true, aborted: true, runIds: ["a2"] });
    expect(send.payload).toEqual({
      runId: "a2",
      status: "timeout",
      summary: "aborted",
      stopReason: "rpc",
      endedAt: expect.any(Number),
    });
    await expectAbortedWithNothingAppended(client, key, "a2", "rpc");
    // The same idempotencyKey again answers the aborted run.
    const again = await client.request("chat.send", { sessionKey: key, message: "hi", idempotencyKey: "a2" });
    expect(again.payload).toMatchObject({ runId: "a2", status: "timeout", summary: "aborted", stopReason: "rpc" });
  });

  it("on an existing session with the instant echo runner, chat.abort right after chat.send wins 5 times of 5", async () => {
    const { client } = await tenantWith("fid-abort-echo");
    const key = "agent:main:abort-echo";
    await client.request("sessions.subscribe", {});
    await client.request("chat.send", { sessionKey: key, message: "warm", idempotencyKey: "warm" });
    await ended(client, "warm");
    for (let i = 0; i < 5; i++) {
      const runId = `echo-abort-${i}`;
      const { send, aborted } = await sendThenAbort(client, key, runId, ["chat.abort", { sessionKey: key, runId }]);
      // The send is answered before its run starts; the abort then finds it waiting.
      expect(send.payload).toEqual({ runId, status: "started" });
      expect(aborted.payload).toEqual({ ok: true, aborted: true, runIds: [runId] });
      const end = await ended(client, runId);
      expect(end.payload.state).toBe("aborted");
    }
    // An aborted run ends (phase end) without settling any input, as the real gateway tells it.
    await client.request("sessions.list", {});
    const changes = client.events("sessions.changed").filter((e) => e.payload.sessionKey === key);
    const ends = changes.filter((e) => e.payload.phase === "end").map((e) => e.payload.runId);
    expect(ends).toEqual(["warm", ...[0, 1, 2, 3, 4].map((i) => `echo-abort-${i}`)]);
    expect(changes.filter((e) => e.payload.reason === "agent.input.settled")).toHaveLength(1);
    // Nothing of the aborted sends reached the transcript: only the warm-up turn.
    const history = await client.request("chat.history", { sessionKey: key });
    expect(history.payload.messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
  });

  it("sessions.abort with only the key right after chat.send on an existing session aborts the held run", async () => {
    const { client } = await tenantWith("fid-abort-key-held");
    const key = "agent:main:abort-key-held";
    await client.request("chat.send", { sessionKey: key, message: "warm", idempotencyKey: "kh-warm" });
    await ended(client, "kh-warm");
    const { aborted } = await sendThenAbort(client, key, "kh-1", ["sessions.abort", { key }]);
    expect(aborted.payload).toEqual({ ok: true, abortedRunId: "kh-1", status: "aborted" });
    expect((await ended(client, "kh-1")).payload.state).toBe("aborted");
  });

  it("a run admitted behind a held one keeps the transcript in admission order", async () => {
    await tenantWith("fid-held-order");
    const key = "agent:main:order";
    const stub = env.SESSIONS.getByName(`fid-held-order/${key}`);
    const ref = { tenantId: "fid-held-order", key, agentId: "main" };
    const run = (runId: string, text: string, hold: boolean) =>
      stub.startRun(ref, {
        runId,
        input: { message: text, origin: "chat.send" },
        runner: { type: "echo" },
        userMessage: { role: "user", content: text },
        ...(hold ? { hold } : {}),
      });
    const held = await run("h1", "first", true);
    await run("n2", "second", false);
    // The held run starts when its caller lets go of the answer's gate (no second call).
    held.gate?.[Symbol.dispose]();
    expect(await stub.waitRun("h1", 1_000)).toMatchObject({ status: "ok", reply: "ECHO: first" });
    await stub.waitRun("n2", 5_000);
    const page = await call(`/t/fid-held-order/sessions/${encodeURIComponent(key)}/history`, {
      token: (await issueToken("fid-held-order")).token,
    });
    const texts = page.data.messages.map((m: { content: unknown }) =>
      typeof m.content === "string" ? m.content : (m.content as Array<{ text: string }>)[0]!.text,
    );
    // As with any queued run: the user messages in admission order, then the replies in turn.
    expect(texts).toEqual(["first", "second", "ECHO: first", "ECHO: second"]);
  });

  it("a send whose answer was not followed by its release still runs (the fallback starts it)", async () => {
    await tenantWith("fid-release-fallback");
    const key = "agent:main:fallback";
    const stub = env.SESSIONS.getByName(`fid-release-fallback/${key}`);
    const started = await stub.startRun(
      { tenantId: "fid-release-fallback", key, agentId: "main" },
      {
        runId: "held-1",
        input: { message: "held", origin: "chat.send" },
        runner: { type: "echo" },
        userMessage: { role: "user", content: "held" },
        hold: true,
      },
    );
    expect(started).toMatchObject({ runId: "held-1", status: "started" });
    expect((await stub.runSnapshot("held-1"))?.status).toBe("pending");
    // Held: its user message is not in the transcript yet.
    expect((await stub.entry())?.messageCount ?? 0).toBe(0);
    // Nobody releases it: the durable fallback timer does, after RUN_RELEASE_FALLBACK_MS.
    const done = await stub.waitRun("held-1", 10_000);
    expect(done).toMatchObject({ status: "ok", reply: "ECHO: held" });
  });

  it("sessions.abort aborts it", async () => {
    const { client } = await tenantWith("fid-abort-sessions", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    const key = "agent:main:abort-sessions";
    const { aborted } = await sendThenAbort(client, key, "a3", ["sessions.abort", { key }]);
    expect(aborted.payload).toEqual({ ok: true, abortedRunId: "a3", status: "aborted" });
    await expectAbortedWithNothingAppended(client, key, "a3", "rpc");
  });

  it("/stop aborts it with stopReason stop", async () => {
    const { client } = await tenantWith("fid-abort-stop", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    const key = "agent:main:abort-stop";
    const { aborted } = await sendThenAbort(client, key, "a4", [
      "chat.send",
      { sessionKey: key, message: "/stop", idempotencyKey: "a4-stop" },
    ]);
    expect(aborted.payload).toEqual({ ok: true, aborted: true, runIds: ["a4"] });
    await expectAbortedWithNothingAppended(client, key, "a4", "stop");
  });

  it("an abort by id that reaches the session before the run's start still aborts it", async () => {
    const { client } = await tenantWith("fid-abort-early", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    const key = "agent:main:abort-early";
    // What chat.abort does when the tenant recorded the run id a moment ago but its start has not arrived yet.
    const session = env.SESSIONS.getByName(`fid-abort-early/${key}`) as any;
    expect(await session.abortRun("a5", "rpc", ["a5"])).toEqual({ abortedRunId: "a5", status: "aborted" });
    // An abort for a run id the tenant did not record changes nothing.
    expect(await session.abortRun("a6", "rpc", [])).toEqual({ abortedRunId: null, status: "no-active-run" });
    const send = await client.request("chat.send", { sessionKey: key, message: "hi", idempotencyKey: "a5" });
    expect(send.payload).toMatchObject({ runId: "a5", status: "timeout", summary: "aborted", stopReason: "rpc" });
    await expectAbortedWithNothingAppended(client, key, "a5", "rpc");
    const later = await client.request("chat.send", { sessionKey: key, message: "hi", idempotencyKey: "a6" });
    expect(later.payload.status).toBe("started");
  });

  it("/stop that reaches the session before a recorded run's start aborts that run too", async () => {
    const { client } = await tenantWith("fid-stop-early", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    const key = "agent:main:stop-early";
    const session = env.SESSIONS.getByName(`fid-stop-early/${key}`) as any;
    expect(await session.stopRuns("stop", ["s1"])).toEqual(["s1"]);
    const send = await client.request("chat.send", { sessionKey: key, message: "hi", idempotencyKey: "s1" });
    expect(send.payload).toMatchObject({ runId: "s1", status: "timeout", summary: "aborted", stopReason: "stop" });
    await expectAbortedWithNothingAppended(client, key, "s1", "stop");
    // The ids an abort passes come from the tenant: run ids it recorded for the key a moment ago.
    expect(await (env.TENANTS.getByName("fid-stop-early") as any).recentRunIds(key)).toEqual(["s1"]);
    expect(await (env.TENANTS.getByName("fid-stop-early") as any).recentRunIds("agent:main:main")).toEqual([]);
  });
});

describe("runs an abort may catch on their way", () => {
  it("are the runs recorded as abortable a moment ago, per session key", async () => {
    await createTenant("fid-recent");
    const tenant = env.TENANTS.getByName("fid-recent") as any;
    // A sub-agent's announce run is recorded, but no abort waits for it.
    expect(await tenant.recordAnnounceRun("announce-run", "agent:main:k")).toBe("agent:main:k");
    expect(await tenant.recordRunStart("send-run", "agent:main:k")).toEqual({ owner: "agent:main:k" });
    expect(await tenant.recordRunStart("other-run", "agent:main:other")).toEqual({ owner: "agent:main:other" });
    // A run id owned by another session is not this key's.
    expect(await tenant.recordRunStart("other-run", "agent:main:k")).toEqual({ owner: "agent:main:other" });
    expect(await tenant.recentRunIds("agent:main:k")).toEqual(["send-run"]);
  });
});

describe("agent.wait on a run id not known yet", () => {
  it("answers ok with status timeout when no such run appears within timeoutMs", async () => {
    const { client } = await tenantWith("fid-wait-unknown");
    const wait = await client.request("agent.wait", { runId: "never-started", timeoutMs: 300 });
    expect(wait.ok).toBe(true);
    expect(wait.payload).toEqual({ runId: "never-started", status: "timeout" });
  });

  it("waits for a run whose agent request comes after the wait, and answers its outcome", async () => {
    const { client } = await tenantWith("fid-wait-early");
    client.send({
      type: "req",
      id: "early-wait",
      method: "agent.wait",
      params: { runId: "late-1", timeoutMs: 15_000 },
    });
    // A round trip after the wait frame: the wait is parked before the run is requested.
    await client.request("sessions.list", {});
    expect(client.frames.some((f) => f.type === "res" && f.id === "early-wait")).toBe(false);
    await client.request("agent", { message: "came later", sessionKey: "agent:main:late", idempotencyKey: "late-1" });
    const wait = await client.waitFor((f) => f.type === "res" && f.id === "early-wait", 15_000);
    expect(wait.ok).toBe(true);
    expect(wait.payload).toMatchObject({
      runId: "late-1",
      status: "ok",
      terminalReply: { disposition: "visible", text: "ECHO: came later" },
    });
  });
});

describe("chat.inject", () => {
  it("announces the injected message as a chat final of run inject-<messageId>, then session.message", async () => {
    const { client } = await tenantWith("fid-inject");
    await client.request("sessions.messages.subscribe", { key: "main" });
    const res = await client.request("chat.inject", { sessionKey: "main", message: "injected", label: "note" });
    expect(res.ok).toBe(true);
    const messageId = res.payload.messageId;
    const chat = client.frames.find((f) => f.event === "chat" && f.payload.runId === `inject-${messageId}`);
    // The chat event reaches the caller before its answer, as OpenClaw sends it.
    expect(chat).toBeDefined();
    expect(client.frames.indexOf(chat)).toBeLessThan(client.frames.indexOf(res));
    expect(chat.payload).toMatchObject({
      runId: `inject-${messageId}`,
      sessionKey: "agent:main:main",
      agentId: "main",
      seq: 0,
      state: "final",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "[note]\n\ninjected" }],
        timestamp: expect.any(Number),
        stopReason: "stop",
        provider: "openclaw",
        model: "gateway-injected",
        api: "openai-responses",
      },
    });
    const appended = await client.waitFor((f) => f.event === "session.message" && f.payload.messageId === messageId);
    expect(appended.payload.message.content[0].text).toBe("[note]\n\ninjected");
  });
});

describe("run statuses only where a runner is called", () => {
  it("a chat command's fixed reply has no runner-starting status and no model phase", async () => {
    const { client } = await tenantWith("fid-fixed");
    await client.request("chat.send", { sessionKey: "main", message: "/send", idempotencyKey: "f1" });
    await ended(client, "f1");
    const events = runEvents(client, "f1");
    expect(events.some((e) => e.event === "chat" && e.payload.state === "status")).toBe(false);
    const phases = events.filter((e) => e.payload.stream === "lifecycle").map((e) => e.payload.data.phase);
    expect(phases).toEqual(["start", "end"]);
  });
});

describe("the same run id twice while its start is on its way", () => {
  it("runs once and answers the second send in flight; an abort then aborts the one run", async () => {
    const { client } = await tenantWith("fid-dup-start", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    const key = "agent:main:dup-start";
    const params = { sessionKey: key, message: "hi", idempotencyKey: "d1" };
    client.send({ type: "req", id: "first", method: "chat.send", params });
    client.send({ type: "req", id: "second", method: "chat.send", params });
    client.send({ type: "req", id: "abort", method: "chat.abort", params: { sessionKey: key, runId: "d1" } });
    const second = await client.waitFor((f) => f.type === "res" && f.id === "second");
    expect(second.payload).toEqual({ runId: "d1", status: "in_flight" });
    const abort = await client.waitFor((f) => f.type === "res" && f.id === "abort");
    expect(abort.payload).toEqual({ ok: true, aborted: true, runIds: ["d1"] });
    expect((await ended(client, "d1")).payload.state).toBe("aborted");
    expect((await client.request("chat.history", { sessionKey: key })).payload.messages).toEqual([]);
  });
});

describe("sessions.abort without a key", () => {
  it("finds the session by the run id, answers no-active-run for an unknown run, and wants a key otherwise", async () => {
    const { client } = await tenantWith("fid-abort-nokey", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    await client.request("chat.send", { sessionKey: "agent:main:nokey", message: "hi", idempotencyKey: "nk-1" });
    const aborted = await client.request("sessions.abort", { runId: "nk-1" });
    expect(aborted.payload).toMatchObject({ ok: true, abortedRunId: "nk-1", status: "aborted" });
    expect((await ended(client, "nk-1")).payload.state).toBe("aborted");
    const unknown = await client.request("sessions.abort", { runId: "never-sent" });
    expect(unknown.payload).toEqual({ ok: true, abortedRunId: null, status: "no-active-run" });
    const neither = await client.request("sessions.abort", {});
    expect(neither.error).toEqual({ code: "INVALID_REQUEST", message: "key required" });
  });
});

describe("what a run's end tells and what a send may carry", () => {
  it("a run aborted while running settles its input; one aborted before it started does not", async () => {
    const { client } = await tenantWith("fid-settled", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    await client.request("sessions.subscribe", {});
    const key = "agent:main:settled";
    await client.request("chat.send", { sessionKey: key, message: "long", idempotencyKey: "st-1" });
    await client.waitFor((f) => f.event === "chat" && f.payload.runId === "st-1" && f.payload.state === "delta");
    await client.request("chat.abort", { sessionKey: key, runId: "st-1" });
    await ended(client, "st-1");
    await client.request("sessions.list", {});
    const settled = client
      .events("sessions.changed")
      .filter((e) => e.payload.sessionKey === key && e.payload.reason === "agent.input.settled");
    expect(settled).toHaveLength(1);
  });

  it("accepts every provenance field OpenClaw defines on chat.send", async () => {
    const { client } = await tenantWith("fid-provenance");
    const res = await client.request("chat.send", {
      sessionKey: "agent:main:prov",
      message: "from a job",
      idempotencyKey: "pv-1",
      systemInputProvenance: { kind: "internal_system", jobId: "j1", runId: "r0", sourcePromptPrefix: "[cron]" },
    });
    expect(res.ok).toBe(true);
    await ended(client, "pv-1");
  });
});
