// Tenant limits against a real `wrangler dev` (docs/operations.md "Tenant limits"): the model
// slots are RPC targets the session objects hold across objects, given back when the call ends.
// 60 runs started at once in one tenant whose operator limit is 6 in flight: a local mock model
// counts the calls it has at once (never more than 6), every accepted run ends ok, and every slot
// is back afterwards. Run with `node --test test/e2e/limits.e2e.mjs`.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { startToolMockModel } from "../peers/tool-mock-model.mjs";
import { createTenantToken, httpJson, waitFor } from "./http-json.mjs";

process.once("exit", killAllServersNow);

const RUNS = 60;
const IN_FLIGHT = 6;
/** How long the mock model holds each call. */
const HOLD_MS = 200;

/** An OpenAI-compatible model that answers after HOLD_MS, counting the calls it has at once. */
function startGaugeModel() {
  const gauge = { now: 0, peak: 0, calls: 0 };
  const server = createServer(async (req, res) => {
    for await (const _ of req);
    gauge.now++;
    gauge.peak = Math.max(gauge.peak, gauge.now);
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: "held reply" } }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: "stop" }] })}\n\n`);
    res.end("data: [DONE]\n\n");
    gauge.now--;
    gauge.calls++;
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}/v1`, gauge, close: () => server.close() }),
    ),
  );
}

let server;
let model;
let toolModel;

before(async () => {
  model = await startGaugeModel();
  toolModel = await startToolMockModel();
  server = await startServer();
});

after(async () => {
  await server?.stop();
  model?.close();
  await toolModel?.close();
});

test("a burst of runs: at most the tenant's runsInFlight at the model, every run ok, every slot back", {
  timeout: 180_000,
}, async () => {
  const id = `limits-${crypto.randomUUID().slice(0, 8)}`;
  const token = `Bearer ${await createTenantToken(server.baseUrl, id)}`;
  const admin = "Bearer dev-admin-token";
  const http = (method, path, body, authorization = token) =>
    httpJson(server.baseUrl, method, path, { authorization, body, timeoutMs: 60_000 });
  const limits = await http("PUT", `/v1/admin/tenants/${id}/limits`, { runsInFlight: IN_FLIGHT }, admin);
  assert.equal(limits.status, 200, limits.text);
  const config = await http("PUT", `/t/${id}/v1/config`, {
    agents: { defaults: { runner: { type: "openai", baseUrl: model.url, model: "held" } } },
  });
  assert.equal(config.status, 200, config.text);

  const starts = await Promise.all(
    Array.from({ length: RUNS }, (_, i) =>
      http("POST", `/t/${id}/v1/sessions/burst-${i}/messages`, { role: "user", content: `run ${i}`, run: true }),
    ),
  );
  assert.deepEqual(
    starts.filter((s) => s.status !== 201).map((s) => s.text),
    [],
    "every start accepted",
  );
  const ended = await Promise.all(
    starts.map((s) => http("GET", `/t/${id}/v1/runs/${s.json.runId}?wait=60`).then((r) => r.json?.run?.status)),
  );
  assert.deepEqual(
    ended.filter((status) => status !== "ok"),
    [],
    "every accepted run ends ok",
  );
  assert.equal(model.gauge.calls, RUNS);
  assert.ok(model.gauge.peak <= IN_FLIGHT, `peak ${model.gauge.peak} at the model, limit ${IN_FLIGHT}`);
  assert.ok(model.gauge.peak > 1, `peak ${model.gauge.peak}: the runs overlapped`);
  await waitFor(
    "every slot given back",
    async () => {
      const view = await http("GET", `/t/${id}/v1/limits`);
      return { done: view.json?.limits?.runsInFlight?.used === 0, view: view.json?.limits?.runsInFlight };
    },
    10_000,
  );
});

test("a model answering every turn with sessions_send starts at most runStartsPerMinute runs (issue 44)", {
  timeout: 180_000,
}, async () => {
  const id = `chain-${crypto.randomUUID().slice(0, 8)}`;
  const token = `Bearer ${await createTenantToken(server.baseUrl, id)}`;
  const http = (method, path, body, authorization = token) =>
    httpJson(server.baseUrl, method, path, { authorization, body, timeoutMs: 60_000 });
  const limits = await http(
    "PUT",
    `/v1/admin/tenants/${id}/limits`,
    { runStartsPerMinute: 5 },
    "Bearer dev-admin-token",
  );
  assert.equal(limits.status, 200, limits.text);
  const config = await http("PUT", `/t/${id}/v1/config`, {
    agents: {
      list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: toolModel.url, model: "mock" } }],
    },
    tools: { sessions: { visibility: "all" } },
  });
  assert.equal(config.status, 200, config.text);
  const seed = await http("POST", `/t/${id}/v1/sessions/agent:main:b/messages`, { role: "user", content: "seed" });
  assert.equal(seed.status, 201, seed.text);
  // Every run's model calls sessions_send on each round; each target's message makes it do the same back.
  const back =
    'LOOP sessions_send {\\"sessionKey\\":\\"agent:main:main\\",\\"message\\":\\"ping\\",\\"timeoutSeconds\\":0}';
  const loop = `LOOP sessions_send {"sessionKey":"agent:main:b","message":"${back}","timeoutSeconds":0}`;
  const start = await http("POST", `/t/${id}/v1/sessions/main/messages`, { role: "user", content: loop, run: true });
  assert.equal(start.status, 201, start.text);
  await http("GET", `/t/${id}/v1/runs/${start.json.runId}?wait=60`);
  let quiet = 0;
  await waitFor(
    "no run in flight, twice in a row",
    async () => {
      const view = await http("GET", `/t/${id}/v1/limits`);
      quiet = view.json?.limits?.runsInFlight?.used === 0 ? quiet + 1 : 0;
      return { done: quiet >= 2, used: view.json?.limits?.runsInFlight };
    },
    60_000,
  );
  const messages = async (key) =>
    (await http("GET", `/t/${id}/sessions/${key}/history?limit=500&includeTools=1`)).json.messages;
  const all = [...(await messages("main")), ...(await messages("agent:main:b"))];
  const runs = all.filter((m) => m.role === "user" && m.content !== "seed").length;
  assert.ok(runs >= 2 && runs <= 5, `${runs} runs started; the limit is 5 a minute`);
  const refused = all.filter(
    (m) => m.role === "toolResult" && JSON.stringify(m.content).includes("Too many run starts"),
  );
  assert.ok(refused.length > 0, "the sends past the limit were the tool's error");
});
