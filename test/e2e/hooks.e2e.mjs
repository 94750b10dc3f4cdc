// OpenClaw's hooks against a real `wrangler dev --persist-to <dir>`: a `/hooks/agent` call with an
// Idempotency-Key whose run waits on a slow webhook runner, the whole server process group
// SIGKILLed while the run is in flight (and once more right after a second call was answered),
// restarted on the same state; the same call repeated after each restart. Afterwards:
//   - every answer named the same runId (idempotency is durable, not in memory),
//   - there is one hook session, with one user message and one reply,
//   - the reply's channel delivery (`channel` + `to`) reached the delivery receiver under one
//     idempotency key, `<runId>:deliver`, and the outbox holds one row for it.
// Run with `node --test test/e2e/hooks.e2e.mjs`.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { killAllServersNow, killAndRestart, startServer } from "../../bench/lib/server.mjs";
import { CRASH_TEST_VARS, createTenantToken, httpJson, listenLoopback, waitFor } from "./http-json.mjs";

const RUNNER_DELAY_MS = 2_000;
const HOOK_TOKEN = "e2e-hook-token-0123456789abcdef";
const QUIET_DEADLINE_MS = 60_000;

process.once("exit", killAllServersNow);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The webhook runner (slow, so a kill lands mid-run) and the delivery receiver. */
function startPeers() {
  const received = new Map(); // idempotency key → attempts seen
  let runnerCalls = 0;
  const server = createServer(async (req, res) => {
    for await (const _chunk of req); // drain the body
    if (req.url === "/run") {
      runnerCalls++;
      await sleep(RUNNER_DELAY_MS);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ reply: "deploy noted" }));
      return;
    }
    if (req.url === "/deliver") {
      const key = req.headers["idempotency-key"];
      received.set(key, (received.get(key) ?? 0) + 1);
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      return;
    }
    res.writeHead(404).end();
  });
  return listenLoopback(server, { received, runnerCalls: () => runnerCalls });
}

let server;
let peers;
const tenant = { id: `hooks-${crypto.randomUUID().slice(0, 8)}`, token: "" };
const inTenant = (path) => `/t/${tenant.id}${path}`;

const http = (method, path, { authorization = `Bearer ${tenant.token}`, body } = {}) =>
  httpJson(server.baseUrl, method, path, { authorization, body, timeoutMs: 20_000 });

/** The hook call as an outside sender makes it (hook token, Idempotency-Key header). */
async function callHook() {
  const res = await fetch(`${server.baseUrl}${inTenant("/hooks/agent")}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${HOOK_TOKEN}`,
      "content-type": "application/json",
      "idempotency-key": "deploy-42",
    },
    body: JSON.stringify({ message: "Deploy 42 finished", name: "Deploy", channel: "telegram", to: "555100" }),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, json: await res.json().catch(() => undefined) };
}

async function crashAndRestart() {
  server = await killAndRestart(server, { vars: CRASH_TEST_VARS });
}

before(async () => {
  peers = await startPeers();
  server = await startServer({ vars: CRASH_TEST_VARS });
  tenant.token = await createTenantToken(server.baseUrl, tenant.id);
  const config = await http("PUT", inTenant("/v1/config"), {
    body: {
      agents: { list: [{ id: "main", default: true, runner: { type: "webhook", url: `${peers.url}/run` } }] },
      delivery: { webhookUrl: `${peers.url}/deliver` },
      hooks: { enabled: true, token: HOOK_TOKEN },
    },
  });
  assert.equal(config.status, 200, config.text);
});

after(async () => {
  await server?.stop();
  await peers?.close();
});

test("a hook's idempotency key survives a SIGKILL mid-run: one run, one reply, one delivery", async () => {
  const first = await callHook();
  assert.equal(first.status, 200, JSON.stringify(first.json));
  const runId = first.json.runId;
  assert.match(runId, /^[0-9a-f-]{36}$/);
  await waitFor("the runner to be called", async () => ({ done: peers.runnerCalls() > 0 }), 20_000);
  await crashAndRestart();

  const afterCrash = await callHook();
  assert.deepEqual(afterCrash.json, { ok: true, runId }, "the same key and body name the same run after a restart");
  await crashAndRestart();
  const afterSecondCrash = await callHook();
  assert.deepEqual(afterSecondCrash.json, { ok: true, runId });

  const settled = await waitFor(
    "the hook session's reply and its delivery",
    async () => {
      const list = await http("GET", inTenant("/v1/sessions"));
      const keys = (list.json?.sessions ?? []).map((s) => s.key).filter((key) => key.includes(":hook:"));
      if (keys.length !== 1) return { done: false, why: `hook sessions: ${JSON.stringify(keys)}` };
      const key = encodeURIComponent(keys[0]);
      const history = await http("GET", inTenant(`/sessions/${key}/history`));
      const deliveries = await http("GET", inTenant(`/v1/sessions/${key}/deliveries`));
      const rows = deliveries.json?.deliveries ?? [];
      const done = rows.length > 0 && rows.every((row) => row.status === "delivered");
      return { done, key: keys[0], messages: history.json?.messages ?? [], rows };
    },
    QUIET_DEADLINE_MS,
  );
  assert.deepEqual(
    settled.messages.map((m) => m.role),
    ["user", "assistant"],
    "one user message and one reply, however often the call came",
  );
  assert.equal(settled.rows.length, 1);
  assert.equal(settled.rows[0].idempotencyKey, `${runId}:deliver`);
  assert.deepEqual(settled.rows[0].target, { channel: "telegram", to: "555100" });
  assert.deepEqual([...peers.received.keys()], [`${runId}:deliver`], "the receiver saw one delivery key");
});
