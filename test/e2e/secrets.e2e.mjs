// The tenant secret store against a real `wrangler dev`: a tenant stores its model key with
// `secrets.store.set`, its `openai` runner references it (`apiKey: { source: "store", … }`), and
// a local mock model accepts a request only with exactly that key in `Authorization`. The key
// never appears in any read path, another tenant cannot use the reference, and a run after the
// entry is deleted fails with an error naming the reference. Run with `node --test test/e2e/`.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { connectGateway } from "./gateway-rpc.mjs";
import { createTenantToken, httpJson } from "./http-json.mjs";

const SECRET = `sk-e2e-${crypto.randomUUID()}`;
const REF = { source: "store", provider: "default", id: "OPENAI_API_KEY" };

process.once("exit", killAllServersNow);

/** An OpenAI-compatible model that answers only the right key (and never echoes what it got). */
function startMockModel() {
  const seen = [];
  const server = createServer(async (req, res) => {
    for await (const _ of req);
    seen.push(req.headers.authorization ?? null);
    if (req.headers.authorization !== `Bearer ${SECRET}`) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":{"message":"invalid api key"}}');
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify({ choices: [{ delta: { content: "authorized reply" } }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: "stop" }] })}\n\n`);
    res.end("data: [DONE]\n\n");
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}/v1`, seen, close: () => server.close() }),
    ),
  );
}

let server;
let model;
const tenants = {};

async function makeTenant(label) {
  const id = `${label}-${crypto.randomUUID().slice(0, 8)}`;
  const tenant = { id, token: await createTenantToken(server.baseUrl, id) };
  tenant.http = (method, path, body) =>
    http(method, `/t/${id}${path}`, { token: `Bearer ${tenant.token}`, ...(body !== undefined ? { body } : {}) });
  tenant.gateway = await connectGateway(`${server.baseUrl.replace(/^http/, "ws")}/t/${id}`, tenant.token);
  const config = await tenant.http("PUT", "/v1/config", {
    agents: { defaults: { runner: { type: "openai", baseUrl: model.url, model: "mock", apiKey: REF } } },
  });
  assert.equal(config.status, 200, config.text);
  return tenant;
}

function http(method, path, { token, body } = {}) {
  return httpJson(server.baseUrl, method, path, { authorization: token, body, timeoutMs: 20_000 });
}

/** One agent turn over the gateway; answers agent.wait's payload. */
async function run(tenant, runId) {
  const started = await tenant.gateway.call("agent", { message: "hello", idempotencyKey: runId, sessionKey: "main" });
  assert.equal(started.ok, true, JSON.stringify(started));
  const waited = await tenant.gateway.call("agent.wait", { runId, timeoutMs: 15_000 });
  return waited.payload;
}

before(async () => {
  model = await startMockModel();
  server = await startServer();
  tenants.a = await makeTenant("sec-a");
  tenants.b = await makeTenant("sec-b");
});

after(async () => {
  for (const tenant of Object.values(tenants)) tenant.gateway.close();
  await server?.stop();
  model?.close();
});

test("a key stored with secrets.store.set authorizes the tenant's runs and nothing else", {
  timeout: 120_000,
}, async () => {
  const { a, b } = tenants;
  const set = await a.gateway.call("secrets.store.set", { name: "OPENAI_API_KEY", value: SECRET, kind: "secret" });
  assert.deepEqual(set.payload, { ok: true, reloaded: true });

  const ok = await run(a, "sec-run-a1");
  assert.equal(ok.status, "ok", JSON.stringify(ok));
  assert.ok(model.seen.includes(`Bearer ${SECRET}`), "the model saw the stored key");

  // Another tenant's identical reference resolves in its own store: nothing there, nothing sent.
  const sentBefore = model.seen.length;
  const other = await run(b, "sec-run-b1");
  assert.equal(other.status, "error");
  assert.match(other.error, /apiKey secret reference store:default:OPENAI_API_KEY is not set/);
  assert.equal(model.seen.length, sentBefore, "tenant b's run never called the model");

  // Every read path a tenant (or the public) has: none shows the value.
  const reads = [
    await a.http("GET", "/v1/config"),
    await a.http("GET", "/v1/secrets"),
    await a.http("GET", "/v1/sessions"),
    await a.http("GET", `/sessions/${encodeURIComponent("agent:main:main")}/history?includeTools=1`),
    await a.http("GET", `/v1/sessions/${encodeURIComponent("agent:main:main")}/runs`),
    await a.http("GET", "/v1/runs/sec-run-a1"),
    await a.http("GET", "/v1/export"),
    await a.http("GET", "/v1/automations"),
    await http("GET", "/openapi.json"),
    await b.http("GET", "/v1/secrets"),
  ];
  for (const read of reads) assert.ok(read.status < 500, read.text);
  const gatewayReads = [
    await a.gateway.call("secrets.store.list", {}),
    await a.gateway.call("config.get", {}),
    await a.gateway.call("sessions.list", {}),
    await a.gateway.call("chat.history", { sessionKey: "main" }),
    await a.gateway.call("agent.wait", { runId: "sec-run-a1", timeoutMs: 0 }),
  ];
  const everything = [...reads.map((r) => r.text), ...gatewayReads.map((f) => JSON.stringify(f)), server.logTail()];
  for (const text of everything) assert.ok(!text.includes(SECRET), `the value leaked into: ${text.slice(0, 300)}`);
  const listed = gatewayReads[0].payload.entries;
  assert.deepEqual(
    listed.map((e) => [e.name, e.kind, "value" in e]),
    [["OPENAI_API_KEY", "secret", false]],
  );

  // Deleted: the next run fails, naming the reference (not the value).
  assert.equal((await a.gateway.call("secrets.store.delete", { name: "OPENAI_API_KEY" })).ok, true);
  const failed = await run(a, "sec-run-a2");
  assert.equal(failed.status, "error");
  assert.match(failed.error, /store:default:OPENAI_API_KEY is not set/);
  assert.ok(!failed.error.includes(SECRET));
  assert.ok(!server.logTail().includes(SECRET), "the value is not in the server's logs");
});
