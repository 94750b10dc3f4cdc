import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, inject, it } from "vitest";
import { MAX_MESSAGE_BYTES } from "../../../src/model/message-limits";
import { call, createTenant, history, issueToken } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const open: GatewayClient[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

/** A tenant whose default agent uses the given runner; returns an admin token and a connected client. */
async function tenantWith(id: string, runner?: Record<string, unknown>, extraConfig: Record<string, unknown> = {}) {
  await createTenant(id);
  const admin = await issueToken(id);
  const config = { ...(runner ? { agents: { list: [{ id: "main", default: true, runner }] } } : {}), ...extraConfig };
  const put = await call(`/t/${id}/v1/config`, { method: "PUT", token: admin.token, json: config });
  expect(put.status).toBe(200);
  const client = await GatewayClient.connect({ path: `/t/${id}`, token: admin.token });
  open.push(client);
  return { token: admin.token, client };
}

const final = (client: GatewayClient, runId: string) =>
  client.waitFor(
    (f) => f.event === "chat" && f.payload.runId === runId && ["final", "error", "aborted"].includes(f.payload.state),
    10_000,
  );

describe("chat.send with the echo runner", () => {
  it("starts a run, streams events and lands ECHO: <text> in the transcript", async () => {
    const { client } = await tenantWith("run-echo");
    await client.request("sessions.messages.subscribe", { key: "main" });
    const res = await client.request("chat.send", { sessionKey: "main", message: "hello", idempotencyKey: "run-1" });
    expect(res.payload).toMatchObject({ runId: "run-1", status: "started" });
    // The ack comes before any event of the run, even in a session the run creates.
    const ackAt = client.frames.indexOf(res);
    await client.waitFor((f) => f.event === "chat" && f.payload.runId === "run-1" && f.payload.state === "final");
    expect(client.frames.findIndex((f) => f.type === "event" && f.payload?.runId === "run-1")).toBeGreaterThan(ackAt);
    const done = await final(client, "run-1");
    expect(done.payload).toMatchObject({
      state: "final",
      sessionKey: "agent:main:main",
      message: { role: "assistant", content: [{ type: "text", text: "ECHO: hello" }] },
    });
    const lifecycle = client
      .events("agent")
      .filter((e) => e.payload.runId === "run-1" && e.payload.stream === "lifecycle");
    expect(lifecycle.map((e) => e.payload.data.phase)).toEqual(["start", "model", "end"]);
    await client.waitFor(() => client.events("session.message").length === 2);
    const messages = client.events("session.message").map((e) => e.payload.message);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(messages[0].provenance).toEqual({ kind: "external_user" });
    // The final chat event follows the assistant message on the wire.
    const order = client.frames
      .filter((f) => f.event === "session.message" || (f.event === "chat" && f.payload.state === "final"))
      .map((f) => f.event);
    expect(order).toEqual(["session.message", "session.message", "chat"]);
  });

  it("emits sessions.changed phases start and end (error on failure) to sessions.subscribe'd connections", async () => {
    const { client } = await tenantWith("run-phases", { type: "openai", baseUrl: `${peer}/v1`, model: "fail500" });
    await client.request("sessions.subscribe", {});
    await client.request("chat.send", { sessionKey: "main", message: "x", idempotencyKey: "ph-1" });
    await client.waitFor(
      (f) => f.event === "sessions.changed" && f.payload.runId === "ph-1" && f.payload.phase === "error",
    );
    const phases = client
      .events("sessions.changed")
      .filter((e) => e.payload.runId === "ph-1")
      .map((e) => e.payload.phase);
    expect(phases).toEqual(["start", "error"]);
    const ok = await tenantWith("run-phases-ok");
    await ok.client.request("sessions.subscribe", {});
    await ok.client.request("chat.send", { sessionKey: "main", message: "x", idempotencyKey: "ph-2" });
    await ok.client.waitFor(
      (f) => f.event === "sessions.changed" && f.payload.runId === "ph-2" && f.payload.phase === "end",
    );
    expect(
      ok.client
        .events("sessions.changed")
        .filter((e) => e.payload.runId === "ph-2")
        .map((e) => e.payload.phase),
    ).toEqual(["start", "end"]);
  });

  it("dedupes by idempotencyKey: in flight, then the cached result", async () => {
    const { client } = await tenantWith("run-dedupe", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    const first = await client.request("chat.send", { sessionKey: "main", message: "abc", idempotencyKey: "same" });
    expect(first.payload.status).toBe("started");
    const again = await client.request("chat.send", { sessionKey: "main", message: "abc", idempotencyKey: "same" });
    expect(again.payload).toEqual({ runId: "same", status: "in_flight" });
    await final(client, "same");
    const cached = await client.request("chat.send", { sessionKey: "main", message: "abc", idempotencyKey: "same" });
    expect(cached.payload).toEqual({ runId: "same", status: "ok" });
    const transcript = await client.request("chat.history", { sessionKey: "main" });
    expect(transcript.payload.messages).toHaveLength(2);
  });

  it("refuses a message over the row limit with a clear error, appending nothing", async () => {
    const { client } = await tenantWith("run-too-large");
    const res = await client.request("chat.send", {
      sessionKey: "main",
      message: "x".repeat(1_900_000),
      idempotencyKey: "big",
    });
    expect(res.error).toMatchObject({ code: "INVALID_REQUEST", message: expect.stringContaining("1800000") });
    expect((await client.request("chat.history", { sessionKey: "main" })).payload.messages).toEqual([]);
  });

  it("refuses empty messages", async () => {
    const { client } = await tenantWith("run-empty");
    const res = await client.request("chat.send", { sessionKey: "main", message: "   ", idempotencyKey: "e1" });
    expect(res.error.message).toBe("message or attachment required");
  });

  it("runs one at a time per session, FIFO", async () => {
    const { client } = await tenantWith("run-fifo", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    await client.request("chat.send", { sessionKey: "main", message: "first", idempotencyKey: "f1" });
    await client.request("chat.send", { sessionKey: "main", message: "second", idempotencyKey: "f2" });
    await final(client, "f2");
    const starts = client
      .events("agent")
      .filter((e) => e.payload.stream === "lifecycle" && e.payload.data.phase !== "model");
    expect(starts.map((e) => `${e.payload.runId}:${e.payload.data.phase}`)).toEqual([
      "f1:start",
      "f1:end",
      "f2:start",
      "f2:end",
    ]);
    const transcript = await client.request("chat.history", { sessionKey: "main" });
    expect(transcript.payload.messages.map((m: any) => m.role)).toEqual(["user", "user", "assistant", "assistant"]);
  });
});

describe("agent and agent.wait", () => {
  it("answers the same request id twice: accepted, then the final result", async () => {
    const { client } = await tenantWith("run-agent");
    client.send({
      type: "req",
      id: "a1",
      method: "agent",
      params: { message: "two phase", sessionKey: "agent:main:work", idempotencyKey: "ag-1" },
    });
    await client.waitFor(() => client.frames.filter((f) => f.type === "res" && f.id === "a1").length === 2);
    const [accepted, finished] = client.frames.filter((f) => f.type === "res" && f.id === "a1");
    expect(accepted.payload).toMatchObject({
      runId: "ag-1",
      status: "accepted",
      sessionKey: "agent:main:work",
      agentId: "main",
    });
    expect(finished.payload).toMatchObject({
      runId: "ag-1",
      status: "ok",
      summary: "completed",
      result: { payloads: [{ text: "ECHO: two phase", mediaUrl: null }] },
    });
    // "accepted" comes before any event of the run, as OpenClaw sends it.
    const acceptedAt = client.frames.indexOf(accepted);
    const firstEvent = client.frames.findIndex((f) => f.type === "event" && f.payload?.runId === "ag-1");
    expect(firstEvent).toBeGreaterThan(acceptedAt);
    // …and the run's events come before the final answer (openclaw-node stops listening there).
    const finalAt = client.frames.indexOf(finished);
    const lastEvent = client.frames.findLastIndex((f) => f.type === "event" && f.payload?.runId === "ag-1");
    expect(lastEvent).toBeLessThan(finalAt);
    const wait = await client.request("agent.wait", { runId: "ag-1" });
    expect(wait.payload).toMatchObject({
      runId: "ag-1",
      status: "ok",
      startedAt: expect.any(Number),
      endedAt: expect.any(Number),
    });
  });

  it("reports a wait timeout as an ok response with status timeout, and the run goes on", async () => {
    const { client } = await tenantWith("run-wait", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    await client.request("chat.send", { sessionKey: "main", message: "take your time", idempotencyKey: "w1" });
    const early = await client.request("agent.wait", { runId: "w1", timeoutMs: 20 });
    expect(early.ok).toBe(true);
    expect(early.payload).toMatchObject({ runId: "w1", status: "timeout" });
    const late = await client.request("agent.wait", { runId: "w1", timeoutMs: 20_000 });
    expect(late.payload.status).toBe("ok");
  });

  it("rejects unknown agent ids and model overrides from non-admins", async () => {
    const { client } = await tenantWith("run-agent-errors", undefined, {
      agents: { list: [{ id: "main" }, { id: "ops" }] },
    });
    const unknown = await client.request("agent", { message: "x", agentId: "ghost", idempotencyKey: "u1" });
    expect(unknown.error.message).toBe('unknown agent id "ghost"');
    const ok = await client.request("agent", { message: "x", agentId: "ops", idempotencyKey: "u2" });
    expect(ok.payload.sessionKey).toBe("agent:ops:main");
  });
});

describe("send policy", () => {
  it("blocks chat.send when the session override denies, appending nothing", async () => {
    const { client } = await tenantWith("policy-override");
    await client.request("sessions.patch", { key: "main", sendPolicy: "deny" });
    const res = await client.request("chat.send", { sessionKey: "main", message: "hi", idempotencyKey: "p1" });
    expect(res.error).toMatchObject({ code: "INVALID_REQUEST", message: "send blocked by session policy" });
    expect((await client.request("chat.history", { sessionKey: "main" })).payload.messages).toEqual([]);
  });

  it("blocks by config rule on channel and chat type", async () => {
    const { client } = await tenantWith("policy-rule", undefined, {
      session: { sendPolicy: { rules: [{ action: "deny", match: { channel: "discord", chatType: "group" } }] } },
    });
    const res = await client.request("chat.send", {
      sessionKey: "agent:main:discord:group:g1",
      message: "x",
      idempotencyKey: "p2",
    });
    expect(res.error.message).toBe("send blocked by session policy");
    const allowed = await client.request("chat.send", {
      sessionKey: "agent:main:telegram:group:g1",
      message: "x",
      idempotencyKey: "p3",
    });
    expect(allowed.payload.status).toBe("started");
  });

  it("answers the /send command with OpenClaw's texts and applies it", async () => {
    const { client } = await tenantWith("policy-command");
    await client.request("chat.send", { sessionKey: "main", message: "/send off", idempotencyKey: "s1" });
    const confirmation = await final(client, "s1");
    expect(confirmation.payload.message.content[0].text).toBe("⚙️ Send policy set to off.");
    const blocked = await client.request("chat.send", { sessionKey: "main", message: "hello", idempotencyKey: "s2" });
    expect(blocked.error.message).toBe("send blocked by session policy");
    await client.request("chat.send", { sessionKey: "main", message: "/send", idempotencyKey: "s3" });
    expect((await final(client, "s3")).payload.message.content[0].text).toBe("⚙️ Usage: /send on|off|inherit");
    await client.request("chat.send", { sessionKey: "main", message: "/send inherit", idempotencyKey: "s4" });
    await final(client, "s4");
    expect(
      (await client.request("chat.send", { sessionKey: "main", message: "hello", idempotencyKey: "s5" })).payload
        .status,
    ).toBe("started");
  });
});

describe("aborts and timeouts", () => {
  it("/stop aborts the active run and keeps the partial reply", async () => {
    const { client } = await tenantWith("abort-stop", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    await client.request("chat.send", { sessionKey: "main", message: "a long answer please", idempotencyKey: "x1" });
    await client.waitFor((f) => f.event === "chat" && f.payload.state === "delta", 5000);
    const stop = await client.request("chat.send", { sessionKey: "main", message: "/stop", idempotencyKey: "x2" });
    expect(stop.payload).toEqual({ ok: true, aborted: true, runIds: ["x1"] });
    const aborted = await final(client, "x1");
    expect(aborted.payload.state).toBe("aborted");
    const wait = await client.request("agent.wait", { runId: "x1" });
    expect(wait.payload.status).toBe("error");
    const messages = (await client.request("chat.history", { sessionKey: "main" })).payload.messages;
    expect(messages.at(-1)).toMatchObject({ role: "assistant", openclawAbort: { aborted: true, runId: "x1" } });
    const row = (await client.request("sessions.list", {})).payload.sessions.find(
      (s: any) => s.key === "agent:main:main",
    );
    expect(row.abortedLastRun).toBe(true);
  });

  it("chat.abort and sessions.abort stop a run by id", async () => {
    const { client } = await tenantWith("abort-methods", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    await client.request("chat.send", { sessionKey: "main", message: "one", idempotencyKey: "c1" });
    expect((await client.request("chat.abort", { sessionKey: "main", runId: "c1" })).payload).toEqual({
      ok: true,
      aborted: true,
      runIds: ["c1"],
    });
    await client.request("chat.send", { sessionKey: "main", message: "two", idempotencyKey: "c2" });
    expect((await client.request("sessions.abort", { key: "main" })).payload).toEqual({
      ok: true,
      abortedRunId: "c2",
      status: "aborted",
    });
    expect((await client.request("sessions.abort", { key: "main" })).payload).toEqual({
      ok: true,
      abortedRunId: null,
      status: "no-active-run",
    });
  });

  it("ends a run as timeout from the alarm timer", async () => {
    const { client } = await tenantWith("timeout", { type: "openai", baseUrl: `${peer}/v1`, model: "hang" });
    await client.request("chat.send", {
      sessionKey: "main",
      message: "never answered",
      idempotencyKey: "t1",
      timeoutMs: 1000,
    });
    const wait = await client.request("agent.wait", { runId: "t1", timeoutMs: 10_000 });
    expect(wait.payload).toMatchObject({ status: "timeout", error: "run timed out after 1s" });
    const done = await final(client, "t1");
    expect(done.payload).toMatchObject({ state: "error", errorMessage: "run timed out after 1s" });
  });
});

describe("runner failures", () => {
  for (const [name, runner, expected] of [
    ["a 5xx", { type: "openai", baseUrl: `${peer}/v1`, model: "fail500" }, "model endpoint answered 500"],
    [
      "a malformed stream",
      { type: "openai", baseUrl: `${peer}/v1`, model: "malformed" },
      "malformed stream from model",
    ],
    [
      "a stream cut short",
      { type: "openai", baseUrl: `${peer}/v1`, model: "truncated" },
      "malformed stream from model",
    ],
    [
      "a refused connection",
      { type: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "echo" },
      "model endpoint unreachable",
    ],
    ["a failing webhook", { type: "webhook", url: `${peer}/webhook/fail` }, "webhook answered 503"],
  ] as const) {
    it(`ends the run as error on ${name}, appending no reply`, async () => {
      const id = `fail-${name.replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")}`;
      const { client } = await tenantWith(id, runner);
      await client.request("chat.send", { sessionKey: "main", message: "x", idempotencyKey: "r1" });
      const wait = await client.request("agent.wait", { runId: "r1", timeoutMs: 10_000 });
      expect(wait.payload.status).toBe("error");
      expect(wait.payload.error).toContain(expected);
      const event = await final(client, "r1");
      expect(event.payload.state).toBe("error");
      expect(event.payload.errorMessage).toContain(expected);
      const messages = (await client.request("chat.history", { sessionKey: "main" })).payload.messages;
      expect(messages.map((m: any) => m.role)).toEqual(["user"]);
    });
  }
});

describe("openai runner", () => {
  it("streams throttled deltas with cumulative text and records usage", async () => {
    const { client } = await tenantWith("openai-stream", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    await client.request("chat.send", { sessionKey: "main", message: "stream me", idempotencyKey: "o1" });
    const done = await final(client, "o1");
    expect(done.payload.message.content[0].text).toBe("ECHO: stream me");
    const deltas = client.events("chat").filter((e) => e.payload.state === "delta");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.at(-1)!.payload.message.content[0].text).toBe("ECHO: stream me");
    expect(deltas.map((d) => d.payload.deltaText).join("")).toBe("ECHO: stream me");
    const seqs = client
      .events("chat")
      .filter((e) => e.payload.runId === "o1")
      .map((e) => e.payload.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const assistant = (await client.request("chat.history", { sessionKey: "main" })).payload.messages.at(-1);
    expect(assistant.usage).toMatchObject({ input: 11, totalTokens: expect.any(Number) });
    const row = (await client.request("sessions.list", {})).payload.sessions.find(
      (s: any) => s.key === "agent:main:main",
    );
    expect(row.inputTokens).toBe(11);
  });

  it("passes extraSystemPrompt to the model as a system message", async () => {
    const { client } = await tenantWith("openai-system", {
      type: "openai",
      baseUrl: `${peer}/v1`,
      model: "system-echo",
    });
    client.send({
      type: "req",
      id: "sp",
      method: "agent",
      params: { message: "x", extraSystemPrompt: "be brief", idempotencyKey: "sp1" },
    });
    const res = await client.waitFor((f) => f.type === "res" && f.id === "sp" && f.payload?.status === "ok", 10_000);
    expect(res.payload.result.payloads[0].text).toBe("SYSTEM: be brief");
  });
});

describe("webhook runner", () => {
  it("signs the run request and lands a synchronous reply", async () => {
    const { client, token } = await tenantWith("hook-sync", { type: "webhook", url: `${peer}/webhook/sync` });
    const secret = (await call("/t/hook-sync/v1/runner-secret", { token })).data.secret;
    await fetch(`${peer}/control/secret`, { method: "POST", body: JSON.stringify({ secret }) });
    await client.request("chat.send", { sessionKey: "main", message: "ping", idempotencyKey: "h1" });
    expect((await final(client, "h1")).payload.message.content[0].text).toBe("HOOK: ping");
    const recorded = (await (await fetch(`${peer}/control/recorded?path=/webhook/sync`)).json()) as any[];
    const request = recorded.find((r) => r.body.runId === "h1");
    expect(request.validSignature).toBe(true);
    expect(request.body).toMatchObject({
      sessionKey: "agent:main:main",
      agentId: "main",
      input: { message: "ping" },
      runToken: expect.stringMatching(/^ocr_/),
    });
  });

  it("completes a 202 run by callback with the run token, idempotently; other tenants get 403", async () => {
    const { client } = await tenantWith("hook-async", { type: "webhook", url: `${peer}/webhook/async` });
    await tenantWith("hook-other");
    await client.request("chat.send", { sessionKey: "main", message: "later", idempotencyKey: "h2" });
    let request: any;
    for (let i = 0; i < 100 && !request; i++) {
      const recorded = (await (await fetch(`${peer}/control/recorded?path=/webhook/async`)).json()) as any[];
      request = recorded.find((r) => r.body.runId === "h2");
      if (!request) await new Promise((r) => setTimeout(r, 50));
    }
    const runToken = request.body.runToken;
    const base = "/t/hook-async/v1/runs/h2";
    expect((await call(`${base}/events`, { method: "POST", token: runToken, json: { text: "work" } })).status).toBe(
      200,
    );
    expect(
      (await call("/t/hook-other/v1/runs/h2/complete", { method: "POST", token: runToken, json: { reply: "x" } }))
        .status,
    ).toBe(403);
    expect((await call(`${base}/complete`, { method: "POST", token: null, json: { reply: "x" } })).status).toBe(401);
    // While the run is active its token acts as its session for tools, and for nothing else.
    const invoke = () =>
      call("/t/hook-async/tools/invoke", { method: "POST", token: runToken, json: { tool: "sessions_list" } });
    expect((await invoke()).status).toBe(200);
    expect((await call("/t/hook-async/v1/sessions", { token: runToken })).status).toBe(403);
    const done = await call(`${base}/complete`, { method: "POST", token: runToken, json: { reply: "async done" } });
    expect(done.data).toMatchObject({ ok: true, completed: true, state: "ok" });
    const again = await call(`${base}/complete`, { method: "POST", token: runToken, json: { reply: "twice" } });
    expect(again.data).toMatchObject({ ok: true, completed: false, state: "ok" });
    const messages = (await client.request("chat.history", { sessionKey: "main" })).payload.messages;
    expect(messages.map((m: any) => m.content[0]?.text ?? m.content)).toEqual(["later", "async done"]);
    // Once the run ended, the token no longer acts as the session (callbacks are still acknowledged).
    const ended = await invoke();
    expect(ended.status).toBe(401);
    expect(ended.data.error.message).toBe("run token is no longer valid: its run has ended");
  });

  it("refuses run tokens in any other encoding than the one minted (401)", async () => {
    const { client } = await tenantWith("hook-mangled", { type: "webhook", url: `${peer}/webhook/async` });
    await client.request("chat.send", { sessionKey: "main", message: "later", idempotencyKey: "m1" });
    let request: any;
    for (let i = 0; i < 100 && !request; i++) {
      const recorded = (await (await fetch(`${peer}/control/recorded?path=/webhook/async`)).json()) as any[];
      request = recorded.find((r) => r.body.runId === "m1" && r.body.tenantId === "hook-mangled");
      if (!request) await new Promise((r) => setTimeout(r, 50));
    }
    const runToken: string = request.body.runToken;
    const [payload, signature] = runToken.slice("ocr_".length).split(".") as [string, string];
    const mangled = [
      `${runToken}.x`,
      `${runToken}=`,
      `${runToken}x`,
      `ocr_${payload}=.${signature}`,
      `ocr_${payload}.${signature}.`,
      `ocr_.${payload}.${signature}`,
      `OCR_${payload}.${signature}`,
    ];
    for (const token of mangled) {
      const invoked = await call("/t/hook-mangled/tools/invoke", {
        method: "POST",
        token,
        json: { tool: "sessions_list" },
      });
      expect(invoked.status, token.slice(-12)).toBe(401);
      const completed = await call("/t/hook-mangled/v1/runs/m1/complete", {
        method: "POST",
        token,
        json: { reply: "x" },
      });
      expect(completed.status, token.slice(-12)).toBe(401);
    }
    // The token as minted still works (the run is active).
    expect(
      (await call("/t/hook-mangled/tools/invoke", { method: "POST", token: runToken, json: { tool: "sessions_list" } }))
        .status,
    ).toBe(200);
  });
});

describe("ingest with run: true and recovery", () => {
  it("starts a run from the HTTP ingest", async () => {
    const res = await call("/v1/sessions/ingested/messages", {
      method: "POST",
      json: { role: "user", content: "via http", run: true, idempotencyKey: "ing-1" },
    });
    expect(res.status).toBe(201);
    expect(res.data).toMatchObject({
      sessionKey: "agent:main:ingested",
      seq: 1,
      runId: "ingest:agent:main:ingested:ing-1",
    });
    // Idempotency keys of ingest are per session: the same key elsewhere is a new message.
    const other = await call("/v1/sessions/ingested-too/messages", {
      method: "POST",
      json: { role: "user", content: "same key", run: true, idempotencyKey: "ing-1" },
    });
    expect(other.data).toMatchObject({ sessionKey: "agent:main:ingested-too", seq: 1 });
    let messages: any[] = [];
    for (let i = 0; i < 50 && messages.length < 2; i++) {
      messages = (await history("ingested")).data.messages;
      if (messages.length < 2) await new Promise((r) => setTimeout(r, 20));
    }
    expect(messages.map((m) => m.content[0]?.text ?? m.content)).toEqual(["via http", "ECHO: via http"]);
  });

  it("keeps the FIFO queue through an eviction: a queued run still runs, each reply once", async () => {
    const { client } = await tenantWith("evict-queue", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    await client.request("chat.send", { sessionKey: "main", message: "one", idempotencyKey: "q1" });
    await client.request("chat.send", { sessionKey: "main", message: "two", idempotencyKey: "q2" });
    await evictDurableObject(env.SESSIONS.getByName("evict-queue/agent:main:main"));
    const second = await client.request("agent.wait", { runId: "q2", timeoutMs: 20_000 });
    expect(second.payload.status).toBe("ok");
    expect((await client.request("agent.wait", { runId: "q1", timeoutMs: 1000 })).payload.status).toBe("ok");
    const messages = (await client.request("chat.history", { sessionKey: "main" })).payload.messages;
    expect(messages.map((m: any) => (typeof m.content === "string" ? m.content : m.content[0].text))).toEqual([
      "one",
      "two",
      "ECHO: one",
      "ECHO: two",
    ]);
  });

  it("resumes a run interrupted by eviction exactly once", async () => {
    const { client } = await tenantWith("evict-run", { type: "openai", baseUrl: `${peer}/v1`, model: "slow" });
    await client.request("chat.send", { sessionKey: "main", message: "survive", idempotencyKey: "ev1" });
    await client.waitFor((f) => f.event === "chat" && f.payload.state === "delta", 5000);
    await evictDurableObject(env.SESSIONS.getByName("evict-run/agent:main:main"));
    const wait = await client.request("agent.wait", { runId: "ev1", timeoutMs: 15_000 });
    expect(wait.payload.status).toBe("ok");
    const messages = (await client.request("chat.history", { sessionKey: "main" })).payload.messages;
    expect(messages.map((m: any) => m.role)).toEqual(["user", "assistant"]);
  });
});

describe("a run's reply over the per-message limit", () => {
  it("is stored cut to the limit with a marker, the run ends ok, and its final event carries the stored text", async () => {
    const { token, client } = await tenantWith("run-reply-cut");
    // The user's message fits; its echo ("ECHO: " and the reply's fields) does not.
    const text = "y".repeat(MAX_MESSAGE_BYTES - 150);
    const res = await client.request("chat.send", { sessionKey: "main", message: text, idempotencyKey: "big-1" });
    expect(res.payload, JSON.stringify(res.error)).toMatchObject({ status: "started" });
    const done = await final(client, "big-1");
    expect(done.payload.state).toBe("final");
    const page = await history("main", "?limit=5", { token, prefix: "/t/run-reply-cut" });
    const stored = page.data.messages.at(-1);
    expect(stored.role).toBe("assistant");
    expect(new TextEncoder().encode(JSON.stringify(stored)).byteLength).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    const storedText: string = stored.content[0].text;
    expect(storedText.startsWith("ECHO: yyy")).toBe(true);
    expect(storedText).toMatch(
      /\[truncated: this message was \d+ bytes of JSON; the limit is 1800000 bytes per message\]$/,
    );
    // The final event carries the message as stored.
    expect(done.payload.message.content[0].text).toBe(storedText);
  });
});

describe("deltas of a long reply", () => {
  it("carry its whole text once per frame: a 1 MiB echo costs a subscriber about 5 MiB of frames, not 7", async () => {
    const { client } = await tenantWith("run-long-delta");
    await client.request("sessions.messages.subscribe", { key: "main" });
    const text = "z".repeat(1024 * 1024);
    const from = client.frames.length;
    const res = await client.request("chat.send", { sessionKey: "main", message: text, idempotencyKey: "long-1" });
    expect(res.payload, JSON.stringify(res.error)).toMatchObject({ status: "started" });
    await final(client, "long-1");
    await client.waitFor(() => client.events("session.message").length === 2);
    const frames = client.frames.slice(from).filter((f) => ["agent", "chat", "session.message"].includes(f.event));
    const bytes = frames.reduce((sum, f) => sum + JSON.stringify(f).length, 0);
    console.log(`frames of a 1 MiB echo: ${frames.length}, ${(bytes / 1024 / 1024).toFixed(2)} MiB`);
    // The user's and the assistant's session.message, the final chat event, one agent and one chat delta.
    expect(bytes).toBeLessThan(5.2 * 1024 * 1024);
    const deltas = client.events("chat").filter((e) => e.payload.runId === "long-1" && e.payload.state === "delta");
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas[0].payload).toMatchObject({ replace: true, deltaText: `ECHO: ${text}` });
    expect(deltas[0].payload.message).toBeUndefined();
    const done = await final(client, "long-1");
    expect(done.payload.message.content[0].text).toBe(`ECHO: ${text}`);
  });
});
