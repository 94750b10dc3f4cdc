// Acceptance test: the OpenAI-compatible door of a real `wrangler dev`, driven by the official
// `openai` npm client (and the Python one when it is installed), as Open WebUI, scripts and
// bridges use it. Run with `node --test test/e2e/openai-sdk.e2e.mjs`.
//
// A mock OpenAI-compatible provider on 127.0.0.1 backs the `openai` runner of agent `slow`
// (it streams its answer in pieces, slowly when asked), so streaming, disconnects and the
// outbound runner are exercised as well as the echo runner.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { startToolMockModel } from "../peers/tool-mock-model.mjs";
import { httpJson } from "./http-json.mjs";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const TOKEN = "dev-operator-token";
const ADMIN = "dev-admin-token";
const TEST_MS = 60_000;

process.once("exit", killAllServersNow);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    killAllServersNow();
    process.exit(130);
  });
}

let server;
/** The scripted tool-calling mock (CALL <name> <json>) behind the client-tools tenant's agent. */
let toolModel;
let provider;
let providerUrl;
const providerRequests = [];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A mock provider: `SLOW<ms> …` pauses that long between its two halves; it echoes the last user line. */
function startProvider() {
  return new Promise((resolveStart) => {
    const srv = createServer(async (req, res) => {
      let raw = "";
      for await (const chunk of req) raw += chunk;
      const body = JSON.parse(raw || "{}");
      providerRequests.push(body);
      const last = body.messages?.at(-1)?.content ?? "";
      const text = `MOCK: ${last}`;
      const pause = Number(/SLOW(\d+)/.exec(last)?.[1] ?? 0);
      res.writeHead(200, { "content-type": "text/event-stream" });
      const half = Math.ceil(text.length / 2);
      const send = (obj) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
      send({ choices: [{ index: 0, delta: { content: text.slice(0, half) } }] });
      await sleep(pause);
      if (res.destroyed) return;
      send({ choices: [{ index: 0, delta: { content: text.slice(half) }, finish_reason: "stop" }] });
      send({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
      res.end("data: [DONE]\n\n");
    });
    srv.listen(0, "127.0.0.1", () => resolveStart(srv));
  });
}

const admin = (method, path, body) =>
  httpJson(server.baseUrl, method, path, { authorization: `Bearer ${ADMIN}`, body, timeoutMs: 15_000 });
const api = (method, path, body, token = TOKEN) =>
  httpJson(server.baseUrl, method, path, { authorization: token ? `Bearer ${token}` : null, body, timeoutMs: 15_000 });

/** An SDK client for a tenant (`/v1` of the default tenant, or `/t/<id>/v1`). */
const client = (token = TOKEN, prefix = "") =>
  new OpenAI({ apiKey: token, baseURL: `${server.baseUrl}${prefix}/v1`, maxRetries: 0, timeout: 30_000 });

/** The session a completion ran in (the completion id is the run id). */
async function sessionOf(completionId, token = TOKEN, prefix = "") {
  const res = await api("GET", `${prefix}/v1/runs/${completionId}?wait=10`, undefined, token);
  assert.equal(res.status, 200, res.text);
  return res.json.run;
}

before(async () => {
  toolModel = await startToolMockModel();
  provider = await startProvider();
  providerUrl = `http://127.0.0.1:${provider.address().port}/v1`;
  server = await startServer({ cwd: REPO_ROOT, runtime: process.env.E2E_RUNTIME ?? "wrangler" });
  const config = await api("PUT", "/v1/config", {
    agents: {
      list: [
        { id: "main", default: true },
        { id: "slow", runner: { type: "openai", baseUrl: providerUrl, model: "mock-model" } },
      ],
    },
  });
  assert.equal(config.status, 200, config.text);
});

after(async () => {
  await server?.stop();
  provider?.close();
  await toolModel?.close();
});

describe("the official openai npm client", { timeout: TEST_MS * 6 }, () => {
  test("models: list and retrieve; an unknown id is NotFoundError", { timeout: TEST_MS }, async () => {
    const openai = client();
    const list = await openai.models.list();
    assert.deepEqual(
      list.data.map((m) => m.id),
      ["openclaw", "openclaw/default", "openclaw/main", "openclaw/slow"],
    );
    assert.deepEqual(list.data[0], {
      id: "openclaw",
      object: "model",
      created: 0,
      owned_by: "openclaw",
      permission: [],
    });
    assert.equal((await openai.models.retrieve("openclaw/main")).id, "openclaw/main");
    await assert.rejects(openai.models.retrieve("openclaw/nope"), (e) => e instanceof OpenAI.NotFoundError);
  });

  test("chat, non-streaming: echo runner, id is the run id, the transcript holds the turn", {
    timeout: TEST_MS,
  }, async () => {
    const openai = client();
    const completion = await openai.chat.completions.create({
      model: "openclaw",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "hello door" },
      ],
    });
    assert.match(completion.id, /^chatcmpl_[0-9a-f-]{36}$/);
    assert.equal(completion.object, "chat.completion");
    assert.equal(completion.model, "openclaw");
    assert.deepEqual(completion.choices[0], {
      index: 0,
      message: { role: "assistant", content: "ECHO: hello door" },
      finish_reason: "stop",
    });
    assert.ok(completion.usage.total_tokens > 0);
    const run = await sessionOf(completion.id);
    assert.match(run.sessionKey, /^agent:main:openai:[0-9a-f-]{36}$/);
    assert.equal(run.status, "ok");
    const history = await api("GET", `/sessions/${encodeURIComponent(run.sessionKey)}/history`);
    assert.deepEqual(
      history.json.messages.map((m) => [m.role, typeof m.content === "string" ? m.content : m.content[0].text]),
      [
        ["user", "hello door"],
        ["assistant", "ECHO: hello door"],
      ],
    );
  });

  test("chat, streaming through the openai runner: role chunk, deltas, finish, usage", {
    timeout: TEST_MS,
  }, async () => {
    const openai = client();
    const stream = await openai.chat.completions.create({
      model: "openclaw/slow",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "stream SLOW300 me" }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.deepEqual(chunks[0].choices[0].delta, { role: "assistant" });
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("");
    assert.equal(text, "MOCK: stream SLOW300 me");
    assert.ok(chunks.filter((c) => c.choices[0]?.delta?.content).length >= 2, "the provider's halves stream apart");
    assert.equal(chunks.at(-2).choices[0].finish_reason, "stop");
    assert.deepEqual(chunks.at(-1).choices, []);
    assert.deepEqual(chunks.at(-1).usage, { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    assert.ok(chunks.every((c) => c.id === chunks[0].id && c.model === "openclaw/slow"));
    // The runner got the system prompt and the session's context.
    assert.equal(providerRequests.at(-1).model, "mock-model");
  });

  test("user continuity: the same user is one session; the header beats user", { timeout: TEST_MS }, async () => {
    const openai = client();
    const ask = (content, extra = {}, options) =>
      openai.chat.completions.create({ model: "openclaw", messages: [{ role: "user", content }], ...extra }, options);
    const a = await ask("first", { user: "Alice" });
    const b = await ask("second", { user: "ALICE" });
    const [ra, rb] = [await sessionOf(a.id), await sessionOf(b.id)];
    assert.equal(ra.sessionKey, "agent:main:openai-user:alice");
    assert.equal(rb.sessionKey, ra.sessionKey);
    const history = await api("GET", `/sessions/${encodeURIComponent(ra.sessionKey)}/history`);
    assert.equal(history.json.messages.length, 4);
    const c = await ask("third", { user: "alice" }, { headers: { "x-openclaw-session-key": "My-App:Thread-1" } });
    assert.equal((await sessionOf(c.id)).sessionKey, "agent:main:my-app:thread-1");
  });

  test("reserved session namespaces are refused with OpenClaw's text", { timeout: TEST_MS }, async () => {
    const openai = client();
    for (const key of ["subagent:x", "cron:nightly", "agent:main:acp:s1"]) {
      await assert.rejects(
        openai.chat.completions.create(
          { model: "openclaw", messages: [{ role: "user", content: "x" }] },
          { headers: { "x-openclaw-session-key": key } },
        ),
        (e) =>
          e instanceof OpenAI.BadRequestError &&
          e.error.message === "`x-openclaw-session-key` cannot use reserved internal session namespaces." &&
          e.error.type === "invalid_request_error",
      );
    }
  });

  test("responses: instructions, previous_response_id continues the session, streaming events", {
    timeout: TEST_MS,
  }, async () => {
    const openai = client();
    const first = await openai.responses.create({ model: "openclaw", instructions: "Be brief.", input: "first turn" });
    assert.match(first.id, /^resp_/);
    assert.equal(first.status, "completed");
    assert.equal(first.output_text, "ECHO: first turn");
    const second = await openai.responses.create({
      model: "openclaw",
      input: [{ type: "message", role: "user", content: "second turn" }],
      previous_response_id: first.id,
    });
    const [r1, r2] = [await sessionOf(first.id), await sessionOf(second.id)];
    assert.match(r1.sessionKey, /^agent:main:openresponses:/);
    assert.equal(r2.sessionKey, r1.sessionKey);
    const unknown = await openai.responses.create({ model: "openclaw", input: "x", previous_response_id: "resp_nope" });
    assert.notEqual((await sessionOf(unknown.id)).sessionKey, r1.sessionKey);

    const stream = openai.responses.stream({ model: "openclaw/slow", input: "streamed SLOW200 answer" });
    const types = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    assert.equal(final.output_text, "MOCK: streamed SLOW200 answer");
    assert.deepEqual(types.slice(0, 4), [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
    ]);
    assert.ok(types.filter((t) => t === "response.output_text.delta").length >= 2);
    assert.deepEqual(types.slice(-4), [
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
  });

  test("a client that disconnects mid-stream aborts the run", { timeout: TEST_MS }, async () => {
    const controller = new AbortController();
    const res = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "openclaw/slow",
        stream: true,
        messages: [{ role: "user", content: "SLOW30000 bye" }],
      }),
      signal: controller.signal,
    });
    const reader = res.body.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const id = JSON.parse(first.split("\n")[0].slice(6)).id;
    await sleep(500);
    controller.abort();
    let run;
    // The run is aborted well before the provider's 30 s pause ends.
    for (let i = 0; i < 75; i++) {
      run = (await api("GET", `/v1/runs/${id}`)).json.run;
      if (run?.done) break;
      await sleep(200);
    }
    assert.equal(run.status, "aborted", `${JSON.stringify(run)}\n${server.logTail?.()}`);
  });

  test("errors, each in the OpenAI shape", { timeout: TEST_MS }, async () => {
    const noAuth = await api("POST", "/v1/chat/completions", { messages: [] }, null);
    assert.equal(noAuth.status, 401);
    assert.deepEqual(noAuth.json, { error: { message: "Unauthorized", type: "unauthorized" } });
    await assert.rejects(client("wrong-token").models.list(), (e) => e instanceof OpenAI.AuthenticationError);
    const get = await api("GET", "/v1/chat/completions");
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("allow"), "POST");
    const badJson = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}` },
      body: '{"model": "openclaw",',
    });
    assert.equal(badJson.status, 400);
    assert.deepEqual(await badJson.json(), {
      error: {
        message: "Expected double-quoted property name in JSON at position 21 (line 1 column 22)",
        type: "invalid_request_error",
      },
    });
    const big = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "x".repeat(21 * 1024 * 1024) }] }),
    });
    assert.equal(big.status, 413);
    assert.deepEqual(await big.json(), { error: { message: "Payload too large", type: "invalid_request_error" } });
    const openai = client();
    const cases = [
      [
        { model: "gpt-4o", messages: [{ role: "user", content: "x" }] },
        "Invalid `model`. Use `openclaw` or `openclaw/<agentId>`.",
      ],
      [{ model: "openclaw/nope", messages: [{ role: "user", content: "x" }] }, "Unknown agent 'nope'."],
      [{ model: "openclaw", messages: [] }, "Missing user message in `messages`."],
      [
        { model: "openclaw", messages: [{ role: "user", content: "x" }], temperature: 3 },
        "`temperature` must be between 0 and 2.",
      ],
      [
        { model: "openclaw", messages: [{ role: "user", content: "x" }], max_tokens: 0 },
        "max_tokens: Too small: expected number to be >0",
      ],
      [
        { model: "openclaw", messages: [{ role: "user", content: "x" }], tool_choice: "required" },
        "Invalid tools/tool_choice: tool_choice=required but no tools were provided",
      ],
    ];
    for (const [body, message] of cases) {
      await assert.rejects(openai.chat.completions.create(body), (e) => {
        assert.ok(e instanceof OpenAI.BadRequestError, String(e));
        assert.equal(e.error.message, message);
        return true;
      });
    }
    await assert.rejects(openai.responses.create({ model: "openclaw", input: "x", foo: 1 }), (e) => {
      assert.equal(e.status, 400);
      assert.equal(e.error.message, ': Unrecognized key: "foo"');
      return true;
    });
    await assert.rejects(openai.embeddings.create({ model: "openclaw", input: "x" }), (e) => {
      assert.equal(e.status, 400);
      assert.match(e.error.message, /^Embeddings are not available/);
      return true;
    });
    // A required tool choice the run cannot meet (the echo runner calls no tools): OpenClaw's 502.
    await assert.rejects(
      openai.chat.completions.create({
        model: "openclaw",
        messages: [{ role: "user", content: "x" }],
        tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object" } } }],
        tool_choice: "required",
      }),
      (e) => e.status === 502 && e.error.message === "tool_choice=required was not satisfied by the agent response",
    );
  });

  test("client tools: the model's call comes back as tool_calls, the tool result as a new turn", {
    timeout: TEST_MS,
  }, async () => {
    const id = `tools-${crypto.randomUUID().slice(0, 8)}`;
    assert.equal((await admin("POST", "/v1/admin/tenants", { id })).status, 201);
    const issued = await admin("POST", `/v1/admin/tenants/${id}/tokens`, {
      scopes: ["operator.write", "operator.admin"],
    });
    const { token } = issued.json;
    const runner = { type: "openai", baseUrl: toolModel.url, model: "mock" };
    const config = await api(
      "PUT",
      `/t/${id}/v1/config`,
      { agents: { list: [{ id: "main", default: true, runner }] } },
      token,
    );
    assert.equal(config.status, 200, config.text);
    const openai = client(token, `/t/${id}`);
    const tools = [
      {
        type: "function",
        function: {
          name: "get_weather",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ];
    const first = await openai.chat.completions.create({
      model: "openclaw",
      user: "weather",
      messages: [{ role: "user", content: 'CALL get_weather {"city":"Paris"}' }],
      tools,
    });
    const choice = first.choices[0];
    assert.equal(choice.finish_reason, "tool_calls");
    assert.equal(choice.message.content, "");
    assert.equal(choice.message.tool_calls.length, 1);
    const [call] = choice.message.tool_calls;
    assert.match(call.id, /^[0-9a-f]{9}$/);
    assert.deepEqual(call.function, { name: "get_weather", arguments: '{"city":"Paris"}' });
    // The model saw the client's tool beside the session tools.
    const offered = toolModel.requests.at(-1).body.tools.map((tool) => tool.function.name);
    assert.ok(offered.includes("get_weather") && offered.includes("sessions_list"), offered.join(","));

    const second = await openai.chat.completions.create({
      model: "openclaw",
      user: "weather",
      messages: [
        { role: "user", content: "What is the weather in Paris?" },
        choice.message,
        { role: "tool", tool_call_id: call.id, content: "Sunny, 21C" },
      ],
      tools,
    });
    assert.equal(second.choices[0].finish_reason, "stop");
    assert.notEqual(second.id, first.id);
    const turn = await sessionOf(second.id, token, `/t/${id}`);
    assert.equal(turn.sessionKey, "agent:main:openai-user:weather");
    assert.match(turn.message, new RegExp(`\\[Current message - respond to this\\]\\nTool:${call.id}: Sunny, 21C$`));

    // Streaming: the calls after the run, then finish_reason tool_calls.
    const stream = await openai.chat.completions.create({
      model: "openclaw",
      stream: true,
      messages: [{ role: "user", content: 'CALL get_weather {"city":"Oslo"}' }],
      tools,
    });
    const deltas = [];
    let finish;
    for await (const chunk of stream) {
      const choice0 = chunk.choices[0];
      if (choice0?.delta?.tool_calls) deltas.push(...choice0.delta.tool_calls);
      if (choice0?.finish_reason) finish = choice0.finish_reason;
    }
    assert.equal(finish, "tool_calls");
    assert.equal(deltas[0].function.name, "get_weather");
    assert.equal(deltas.map((d) => d.function.arguments).join(""), '{"city":"Oslo"}');

    // Responses: function_call items, continued with previous_response_id + function_call_output.
    const response = await openai.responses.create({
      model: "openclaw",
      input: 'CALL get_weather {"city":"Rome"}',
      tools: [{ type: "function", name: "get_weather", parameters: tools[0].function.parameters, strict: false }],
    });
    assert.equal(response.output[0].type, "function_call");
    assert.equal(response.output[0].arguments, '{"city":"Rome"}');
    const continued = await openai.responses.create({
      model: "openclaw",
      previous_response_id: response.id,
      input: [{ type: "function_call_output", call_id: response.output[0].call_id, output: "Cloudy" }],
    });
    assert.equal(continued.status, "completed");
    const stored = await sessionOf(continued.id, token, `/t/${id}`);
    assert.equal(stored.message, `Tool:${response.output[0].call_id}: Cloudy`);
  });

  test("two tenants are isolated; a read-only token lists models but may not run", { timeout: TEST_MS }, async () => {
    const ids = [`oa-${Date.now().toString(36)}`, `ob-${Date.now().toString(36)}`];
    const tokens = [];
    for (const id of ids) {
      assert.equal((await admin("POST", "/v1/admin/tenants", { id })).status, 201);
      tokens.push((await admin("POST", `/v1/admin/tenants/${id}/tokens`, { scopes: ["operator.write"] })).json.token);
    }
    const [a, b] = ids.map((id, i) => client(tokens[i], `/t/${id}`));
    const ra = await a.responses.create({ model: "openclaw", input: "in A", user: "same" });
    const rb = await b.responses.create({
      model: "openclaw",
      input: "in B",
      user: "same",
      previous_response_id: ra.id,
    });
    const runA = await sessionOf(ra.id, tokens[0], `/t/${ids[0]}`);
    const runB = await sessionOf(rb.id, tokens[1], `/t/${ids[1]}`);
    assert.equal(runA.sessionKey, "agent:main:openresponses-user:same");
    assert.equal(runB.sessionKey, "agent:main:openresponses-user:same");
    const historyB = await api(
      "GET",
      `/t/${ids[1]}/sessions/${encodeURIComponent(runB.sessionKey)}/history`,
      undefined,
      tokens[1],
    );
    assert.deepEqual(
      historyB.json.messages.map((m) => m.role),
      ["user", "assistant"],
      "B's session holds only B's turn",
    );
    // A's token is unknown on B; A's run is not found on B.
    await assert.rejects(
      client(tokens[0], `/t/${ids[1]}`).models.list(),
      (e) => e instanceof OpenAI.AuthenticationError,
    );
    assert.equal((await api("GET", `/t/${ids[1]}/v1/runs/${ra.id}`, undefined, tokens[1])).status, 404);

    const reader = (await admin("POST", `/v1/admin/tenants/${ids[0]}/tokens`, { scopes: ["operator.read"] })).json
      .token;
    const readOnly = client(reader, `/t/${ids[0]}`);
    assert.equal((await readOnly.models.list()).data.length, 3);
    await assert.rejects(
      readOnly.chat.completions.create({ model: "openclaw", messages: [{ role: "user", content: "x" }] }),
      (e) =>
        e instanceof OpenAI.PermissionDeniedError &&
        e.error.message === "missing scope: operator.write" &&
        e.error.type === "forbidden",
    );
    await assert.rejects(readOnly.responses.create({ model: "openclaw", input: "x" }), (e) => e.status === 403);
  });

  test("a switched-off endpoint is 404; models stay while one switch is on", { timeout: TEST_MS }, async () => {
    const id = `oc-${Date.now().toString(36)}`;
    assert.equal((await admin("POST", "/v1/admin/tenants", { id })).status, 201);
    const token = (await admin("POST", `/v1/admin/tenants/${id}/tokens`, { scopes: ["operator.admin"] })).json.token;
    const put = await api(
      "PUT",
      `/t/${id}/v1/config`,
      { gateway: { http: { endpoints: { chatCompletions: { enabled: false } } } } },
      token,
    );
    assert.equal(put.status, 200, put.text);
    const openai = client(token, `/t/${id}`);
    await assert.rejects(
      openai.chat.completions.create({ model: "openclaw", messages: [{ role: "user", content: "x" }] }),
      (e) => e instanceof OpenAI.NotFoundError,
    );
    assert.equal(
      (await openai.responses.create({ model: "openclaw", input: "still on" })).output_text,
      "ECHO: still on",
    );
    assert.equal((await openai.models.list()).data.length, 3);
  });
});

/** The Python client, when a Python with `openai` is at hand (OPENAI_PYTHON, a venv, or python3). */
function findPython() {
  const candidates = [process.env.OPENAI_PYTHON, "/tmp/openai-venv/bin/python", "python3"].filter(Boolean);
  return candidates.find((python) => python === "python3" || existsSync(python));
}

function runPython(python, script, env) {
  return new Promise((resolveRun) => {
    execFile(python, ["-c", script], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolveRun({ error, stdout, stderr }),
    );
  });
}

const PYTHON_PROBE = String.raw`
import json, os, openai
from openai import OpenAI
c = OpenAI(api_key=os.environ["TOKEN"], base_url=os.environ["BASE"], max_retries=0)
out = {}
out["models"] = [m.id for m in c.models.list().data]
r = c.chat.completions.create(model="openclaw", messages=[{"role": "user", "content": "from python"}], user="py")
out["chat"] = [r.id, r.choices[0].message.content, r.choices[0].finish_reason]
out["stream"] = "".join((ch.choices[0].delta.content or "") for ch in c.chat.completions.create(model="openclaw", stream=True, messages=[{"role": "user", "content": "py stream"}]) if ch.choices)
resp = c.responses.create(model="openclaw", input="py responses")
out["responses"] = resp.output_text
with c.responses.stream(model="openclaw", input="py responses stream") as s:
    out["responses_stream"] = s.get_final_response().output_text
try:
    c.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "x"}])
except openai.BadRequestError as e:
    out["error"] = e.body["message"] if isinstance(e.body, dict) and "message" in e.body else str(e.body)
print(json.dumps(out))
`;

describe("the official Python openai client", () => {
  test("models, chat, streaming, responses and an error", { timeout: TEST_MS * 2 }, async (t) => {
    const python = findPython();
    const probe = python && (await runPython(python, "import openai", {}));
    if (!python || probe.error) {
      t.skip(
        `no Python with the openai package (set OPENAI_PYTHON): ${probe?.stderr?.trim().split("\n").at(-1) ?? "no python"}`,
      );
      return;
    }
    const { error, stdout, stderr } = await runPython(python, PYTHON_PROBE, { TOKEN, BASE: `${server.baseUrl}/v1` });
    assert.equal(error, null, stderr);
    const out = JSON.parse(stdout);
    assert.deepEqual(out.models, ["openclaw", "openclaw/default", "openclaw/main", "openclaw/slow"]);
    assert.match(out.chat[0], /^chatcmpl_/);
    assert.deepEqual(out.chat.slice(1), ["ECHO: from python", "stop"]);
    assert.equal(out.stream, "ECHO: py stream");
    assert.equal(out.responses, "ECHO: py responses");
    assert.equal(out.responses_stream, "ECHO: py responses stream");
    assert.equal(out.error, "Invalid `model`. Use `openclaw` or `openclaw/<agentId>`.");
  });
});
