// Acceptance test of the tool loop: a real `wrangler dev` whose agents run on the scripted
// tool-calling mock model (test/peers/tool-mock-model.mjs, the mock the real gateway's tool
// turns were recorded against, shared/peer/tool-loop) on 127.0.0.1 — `main` through the openai
// runner, `claude` through the Anthropic Messages runner. Runs are started and aborted over the
// gateway WebSocket (chat.send / agent.wait / chat.abort) and judged by their transcripts.
// The last test SIGKILLs the whole server group mid-loop, three times, and restarts it on the
// same state: every loop finishes, every sessions_send target got its message once, every
// sessions_spawn made one child. Run with `node --test test/e2e/`.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { GatewayConn, gatewayUrl } from "../../bench/lib/gateway.mjs";
import { killAllServersNow, killAndRestart, startServer } from "../../bench/lib/server.mjs";
import { startToolMockModel } from "../peers/tool-mock-model.mjs";
import { CRASH_TEST_VARS, httpJson } from "./http-json.mjs";

const TOKEN = "Bearer dev-operator-token";
const RUN_WAIT_MS = 40_000;
const MAX_TOOL_ROUNDS = 5;

process.once("exit", killAllServersNow);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const enc = encodeURIComponent;
let server;
let mock;
let conn;

const http = (method, path, body) =>
  httpJson(server.baseUrl, method, path, { authorization: TOKEN, body, timeoutMs: 20_000 });

async function configure() {
  const runner = { type: "openai", baseUrl: mock.url, model: "mock" };
  const res = await http("PUT", "/v1/config", {
    tools: { sessions: { visibility: "agent" } },
    session: { agentToAgent: { maxPingPongTurns: 0 } },
    agents: {
      defaults: { maxToolRounds: MAX_TOOL_ROUNDS, subagents: { maxSpawnDepth: 2 } },
      list: [
        { id: "main", default: true, runner },
        { id: "claude", runner: { type: "anthropic", baseUrl: mock.url, model: "claude-mock", maxTokens: 1024 } },
      ],
    },
  });
  assert.equal(res.status, 200, res.text);
}

before(async () => {
  mock = await startToolMockModel();
  server = await startServer({ vars: CRASH_TEST_VARS });
  await configure();
  conn = await GatewayConn.open(gatewayUrl(server.baseUrl));
});

after(async () => {
  conn?.terminate();
  await server?.stop();
  await mock?.close();
});

let runCounter = 0;
/** One chat.send turn in `key`; resolves with agent.wait's snapshot once it ended. */
async function turn(key, message) {
  const runId = `tl-${++runCounter}-${Date.now()}`;
  const sent = await conn.request("chat.send", { sessionKey: key, message, idempotencyKey: runId });
  assert.ok(sent.ok, JSON.stringify(sent.error));
  const waited = await conn.request("agent.wait", { runId, timeoutMs: RUN_WAIT_MS }, RUN_WAIT_MS + 5_000);
  return { runId, ...waited.payload };
}

async function history(key) {
  const res = await http("GET", `/sessions/${enc(key)}/history?limit=500&includeTools=1`);
  assert.equal(res.status, 200, res.text);
  return res.json.messages;
}

const toolCalls = (message) =>
  (Array.isArray(message.content) ? message.content : []).filter((b) => b.type === "toolCall");
const textOf = (message) =>
  typeof message.content === "string" ? message.content : message.content.map((b) => b.text ?? "").join("");

/** The messages of the latest turn (from its user message on). */
async function lastTurn(key) {
  const messages = await history(key);
  const start = messages.findLastIndex((m) => m.role === "user");
  return messages.slice(start);
}

test("sessions_list: one call, recorded as OpenClaw records it", async () => {
  const done = await turn("agent:main:list", 'CALL sessions_list {"limit":5}');
  assert.equal(done.status, "ok", JSON.stringify(done));
  const [user, call, result, final] = await lastTurn("agent:main:list");
  assert.equal(user.role, "user");
  assert.equal(call.stopReason, "toolUse");
  assert.deepEqual(
    toolCalls(call).map((c) => [c.name, c.arguments]),
    [["sessions_list", { limit: 5 }]],
  );
  assert.equal(result.role, "toolResult");
  assert.equal(result.toolCallId, toolCalls(call)[0].id);
  assert.equal(result.isError, false);
  assert.equal(final.stopReason, "stop");
  assert.match(textOf(final), /^DONE: /);
  // OpenClaw's wire: tools[] with the recorded schemas, tool_choice auto, ids alphanumeric on replay.
  const requests = mock.requests.filter(
    (r) => r.api === "openai" && JSON.stringify(r.body).includes("sessions_list {"),
  );
  const first = requests.at(-2).body;
  assert.equal(first.tool_choice, "auto");
  assert.deepEqual(
    first.tools.map((t) => t.function.name),
    ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "session_status", "agents_list"],
  );
  const replay = requests.at(-1).body.messages;
  const assistant = replay.find((m) => m.tool_calls);
  assert.match(assistant.tool_calls[0].id, /^[A-Za-z0-9]+$/);
  assert.equal(replay.find((m) => m.role === "tool").tool_call_id, assistant.tool_calls[0].id);
});

test("sessions_history with a tool error: the error goes back to the model and the run ends ok", async () => {
  const done = await turn(
    "agent:main:hist",
    'CALL sessions_history {"sessionKey":"agent:main:list","includeTools":true} && CALL sessions_history {}',
  );
  assert.equal(done.status, "ok");
  const results = (await lastTurn("agent:main:hist")).filter((m) => m.role === "toolResult");
  assert.equal(results[0].isError, false);
  assert.ok(
    results[0].details.messages.some((m) => m.role === "toolResult"),
    "includeTools keeps tool results",
  );
  assert.equal(results[1].isError, true);
  assert.match(textOf(results[1]), /^Validation failed for tool "sessions_history":\n {2}- sessionKey: /);
  const plain = await http("POST", "/tools/invoke", {
    tool: "sessions_history",
    args: { sessionKey: "agent:main:list" },
    sessionKey: "agent:main:hist",
  });
  assert.ok(!plain.json.result.details.messages.some((m) => m.role === "toolResult"), "hidden unless includeTools");
});

test("sessions_send with timeoutSeconds: the target runs once and its reply is the result", async () => {
  assert.equal((await turn("agent:main:other", "hello")).status, "ok");
  const done = await turn(
    "agent:main:sender",
    'CALL sessions_send {"sessionKey":"agent:main:other","message":"ping from sender","timeoutSeconds":20}',
  );
  assert.equal(done.status, "ok");
  const result = (await lastTurn("agent:main:sender")).find((m) => m.role === "toolResult");
  assert.equal(result.details.status, "ok", JSON.stringify(result.details));
  assert.equal(result.details.reply, "ECHO: ping from sender");
  const target = await history("agent:main:other");
  assert.equal(target.filter((m) => m.role === "user" && textOf(m) === "ping from sender").length, 1);
});

test("parallel calls: one answer with three calls, results in call order", async () => {
  const done = await turn(
    "agent:main:par",
    'CALL sessions_list {"limit":1} && CALL agents_list {} && CALL session_status {}',
  );
  assert.equal(done.status, "ok");
  const messages = await lastTurn("agent:main:par");
  assert.deepEqual(
    messages.map((m) => m.role),
    ["user", "assistant", "toolResult", "toolResult", "toolResult", "assistant"],
  );
  assert.deepEqual(
    toolCalls(messages[1]).map((c) => c.name),
    ["sessions_list", "agents_list", "session_status"],
  );
  assert.deepEqual(
    messages.slice(2, 5).map((m) => m.toolName),
    ["sessions_list", "agents_list", "session_status"],
  );
});

test("a three-step chain", async () => {
  const done = await turn(
    "agent:main:chain",
    'CALL sessions_list {"limit":1} THEN CALL agents_list {} THEN CALL session_status {}',
  );
  assert.equal(done.status, "ok");
  const messages = await lastTurn("agent:main:chain");
  const steps = messages.filter((m) => m.role === "assistant" && m.stopReason === "toolUse");
  assert.deepEqual(
    steps.map((m) => toolCalls(m)[0].name),
    ["sessions_list", "agents_list", "session_status"],
  );
  // Each model call's assistant message carries its own usage (the mock: 7 output tokens each).
  const outputs = messages.filter((m) => m.role === "assistant").map((m) => m.usage?.output);
  assert.deepEqual(outputs, [7, 7, 7, 7]);
  const row = (await http("GET", "/v1/sessions?search=chain")).json.sessions.find((s) => s.key === "agent:main:chain");
  assert.equal(row?.outputTokens, 28, `session row sums the run's calls: ${JSON.stringify(row)}`);
});

test("sessions_spawn: the child runs with the sub-agent's tools, its announce comes back", async () => {
  const done = await turn("agent:main:parent", 'CALL sessions_spawn {"task":"CALL session_status {}","label":"kid"}');
  assert.equal(done.status, "ok");
  // The whole history: the child's announce may already have started the parent's next turn.
  const result = (await history("agent:main:parent")).find(
    (m) => m.role === "toolResult" && m.toolName === "sessions_spawn",
  );
  assert.equal(result.details.status, "accepted");
  const child = result.details.childSessionKey;
  let childMessages = [];
  for (let i = 0; i < 80 && !childMessages.some((m) => m.role === "assistant" && m.stopReason === "stop"); i++) {
    await sleep(250);
    childMessages = await history(child);
  }
  const denied = childMessages.find((m) => m.role === "toolResult");
  assert.equal(textOf(denied), "Tool session_status not found", "a sub-agent is not offered session_status");
  const childRequest = mock.requests.find((r) => JSON.stringify(r.body.messages).includes("[Subagent Context]"));
  assert.deepEqual(
    childRequest.body.tools.map((t) => t.function.name),
    ["sessions_list", "sessions_history", "sessions_spawn"],
  );
  let parent = [];
  for (let i = 0; i < 80 && parent.filter((m) => m.role === "assistant").length < 3; i++) {
    await sleep(250);
    parent = await history("agent:main:parent");
  }
  assert.ok(parent.filter((m) => m.role === "assistant").length >= 3, "the announce was answered in the parent");
});

test("an endless loop is stopped by the round cap", async () => {
  const done = await turn("agent:main:cap", 'LOOP sessions_list {"limit":1}');
  assert.equal(done.status, "error");
  assert.match(done.error, new RegExp(`Tool loop stopped: .*${MAX_TOOL_ROUNDS} rounds`));
  const steps = (await lastTurn("agent:main:cap")).filter((m) => m.stopReason === "toolUse");
  assert.equal(steps.length, MAX_TOOL_ROUNDS);
});

test("an endless loop is stopped by chat.abort mid-way", async () => {
  const runId = `abort-${Date.now()}`;
  await conn.request("chat.send", {
    sessionKey: "agent:main:abort",
    message: 'SLOW LOOP sessions_list {"limit":1}',
    idempotencyKey: runId,
  });
  await conn.waitForEvent(
    (f) =>
      f.event === "agent" && f.payload.runId === runId && f.payload.stream === "item" && f.payload.data.phase === "end",
    20_000,
  );
  const aborted = await conn.request("chat.abort", { sessionKey: "agent:main:abort", runId });
  assert.equal(aborted.payload.aborted, true);
  const waited = await conn.request("agent.wait", { runId, timeoutMs: 10_000 });
  assert.notEqual(waited.payload.status, "ok", JSON.stringify(waited.payload));
  const before = (await history("agent:main:abort")).length;
  await sleep(2_000);
  assert.equal((await history("agent:main:abort")).length, before, "nothing is written after the abort");
});

test("the Anthropic runner runs the same loop over tool_use / tool_result", async () => {
  const done = await turn("agent:claude:main", 'CALL sessions_list {"limit":2}');
  assert.equal(done.status, "ok", JSON.stringify(done));
  const [, call, result, final] = await lastTurn("agent:claude:main");
  assert.equal(call.api, "anthropic-messages");
  assert.deepEqual(toolCalls(call)[0].arguments, { limit: 2 });
  assert.match(toolCalls(call)[0].id, /^toolu_/);
  assert.equal(result.toolName, "sessions_list");
  assert.match(textOf(final), /^DONE: /);
  const requests = mock.requests.filter((r) => r.api === "anthropic");
  const last = requests.at(-1);
  assert.equal(last.headers["anthropic-version"], "2023-06-01");
  assert.equal(last.body.max_tokens, 1024);
  assert.ok(last.body.tools.every((t) => t.input_schema && t.name && t.description));
  const results = last.body.messages
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b) => b.type === "tool_result");
  assert.equal(results.length, 1);
});

test("SIGKILL mid-loop: loops finish, each target got one message, each spawn made one child", {
  timeout: 240_000,
}, async () => {
  const LOOPS = 3;
  const waves = [700, 1_700, 2_600]; // before the model answered, while tools run, in the next model call
  const loops = [];
  for (let wave = 0; wave < waves.length; wave++) {
    for (let i = 0; i < LOOPS; i++) {
      const key = `agent:main:crash-${wave}-${i}`;
      const target = `agent:main:crash-tgt-${wave}-${i}`;
      assert.equal((await turn(target, "hello")).status, "ok");
      const message =
        `HOLD(1200) CALL sessions_send {"sessionKey":"${target}","message":"crash ping ${wave}.${i}","timeoutSeconds":15}` +
        ` && CALL sessions_spawn {"task":"child ${wave}.${i}"} THEN CALL sessions_list {"limit":1}`;
      const runId = `crash-${wave}-${i}-${Date.now()}`;
      const sent = await conn.request("chat.send", { sessionKey: key, message, idempotencyKey: runId });
      assert.ok(sent.ok);
      loops.push({ key, target, runId, text: `crash ping ${wave}.${i}` });
    }
    await sleep(waves[wave]);
    conn.terminate();
    server = await killAndRestart(server, { vars: CRASH_TEST_VARS });
    conn = await GatewayConn.open(gatewayUrl(server.baseUrl));
  }
  // Every loop finishes (resumed by its watchdog after the restart).
  for (const loop of loops) {
    let messages = [];
    for (let i = 0; i < 240; i++) {
      messages = await history(loop.key).catch(() => []);
      if (messages.some((m) => m.role === "assistant" && m.stopReason === "stop")) break;
      await sleep(500);
    }
    const final = messages.findLast((m) => m.role === "assistant" && m.stopReason === "stop");
    assert.ok(final, `${loop.key} finished: ${JSON.stringify(messages.map((m) => [m.role, m.stopReason]))}`);
    const sends = messages.filter((m) => m.role === "toolResult" && m.toolName === "sessions_send");
    assert.equal(sends.length, 1, `${loop.key}: one sessions_send result`);
    const spawns = messages.filter((m) => m.role === "toolResult" && m.toolName === "sessions_spawn");
    assert.equal(spawns.length, 1, `${loop.key}: one sessions_spawn result`);
    const target = await history(loop.target);
    assert.equal(
      target.filter((m) => m.role === "user" && textOf(m) === loop.text).length,
      1,
      `${loop.target} received "${loop.text}" exactly once`,
    );
    const children = await http("GET", `/v1/sessions?spawnedBy=${enc(loop.key)}&limit=50`);
    assert.equal(children.status, 200, children.text);
    assert.equal(children.json.sessions.length, 1, `${loop.key} made exactly one child`);
  }
});
