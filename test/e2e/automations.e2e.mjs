// Automations against a real `wrangler dev --persist-to <dir>` (the scheduler object's alarm,
// not the vitest pool, which never fires alarms on its own): an `every` job runs into its
// `cron:<jobId>` session on its cadence; the whole server is SIGKILLed between two due times and
// restarted on the same state, and no due time is lost or run twice; disabling stops it; an `at`
// job runs once and deletes itself. Run with `node --test test/e2e/`.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { killAllServersNow, killAndRestart, startServer } from "../../bench/lib/server.mjs";
import { connectGateway } from "./gateway-rpc.mjs";
import { createTenantToken, httpJson, waitFor } from "./http-json.mjs";

/** Long enough that a restart of wrangler dev (a few seconds here) fits between two due times. */
const EVERY_MS = 10_000;

process.once("exit", killAllServersNow);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let server;
const tenant = { id: `cron-${crypto.randomUUID().slice(0, 8)}`, token: "" };

function http(method, path, { token = `Bearer ${tenant.token}`, body } = {}) {
  return httpJson(server.baseUrl, method, path, { authorization: token, body, timeoutMs: 20_000 });
}
const inTenant = (path) => `/t/${tenant.id}${path}`;

async function gateway() {
  return connectGateway(`${server.baseUrl.replace(/^http/, "ws")}/t/${tenant.id}`, tenant.token);
}

async function runsOf(jobId) {
  const res = await http("GET", inTenant(`/v1/automations/${jobId}/runs?limit=200`));
  assert.equal(res.status, 200, res.text);
  return res.json.entries.toReversed();
}

/** The user turns in a session's transcript (one per run). */
async function turns(key) {
  const res = await http("GET", inTenant(`/sessions/${encodeURIComponent(key)}/history?limit=1000`));
  if (res.status === 404) return [];
  assert.equal(res.status, 200, res.text);
  return res.json.messages.filter((m) => m.role === "user");
}

const dueOf = (runId) => Number(runId.split(":").at(-1));

before(async () => {
  server = await startServer();
  tenant.token = await createTenantToken(server.baseUrl, tenant.id);
});

after(async () => {
  await server?.stop();
});

test("an every job runs on its cadence across a SIGKILL, stops when disabled; an at job runs once", {
  timeout: 240_000,
}, async () => {
  let client = await gateway();
  const added = await client.call("cron.add", {
    name: "heartbeat",
    agentId: "main",
    enabled: true,
    sessionTarget: "isolated",
    wakeMode: "now",
    delivery: { mode: "none" },
    schedule: { kind: "every", everyMs: EVERY_MS },
    payload: { kind: "agentTurn", message: "tick" },
  });
  assert.equal(added.ok, true, JSON.stringify(added));
  const job = added.payload;
  const session = `agent:main:cron:${job.id}`;
  const status = await client.call("cron.status", {});
  assert.equal(status.payload.enabled, true);
  assert.equal(status.payload.nextWakeAtMs, job.state.nextRunAtMs);
  client.close();

  // Two runs on the live server.
  await waitFor(
    "two scheduled runs",
    async () => ({ done: (await runsOf(job.id)).length >= 2 }),
    3 * EVERY_MS + 15_000,
  );
  const beforeKill = await runsOf(job.id);
  // Right after a run: the next due time is ~EVERY_MS away. Kill everything, restart on the same state.
  const killedAt = Date.now();
  server = await killAndRestart(server);
  const downMs = Date.now() - killedAt;
  console.log(`server down for ${downMs} ms (interval ${EVERY_MS} ms)`);

  const target = beforeKill.length + 2;
  await waitFor(
    "two more runs after the restart",
    async () => ({ done: (await runsOf(job.id)).length >= target }),
    3 * EVERY_MS + 15_000,
  );

  // Disable: no run after the one that may be in progress.
  client = await gateway();
  const paused = await client.call("cron.update", { id: job.id, patch: { enabled: false } });
  assert.equal(paused.payload.enabled, false);
  const atPause = (await runsOf(job.id)).length;
  await sleep(EVERY_MS + 3_000);
  const runs = await runsOf(job.id);
  assert.ok(runs.length <= atPause + 1, `runs after disabling: ${runs.length - atPause}`);
  const settled = runs.length;
  await sleep(EVERY_MS);
  assert.equal((await runsOf(job.id)).length, settled, "a disabled job does not run");

  // Every run: once per due time, on the cadence (no due time lost, none twice), each one turn in the session.
  const dues = runs.map((run) => dueOf(run.runId));
  assert.equal(new Set(dues).size, dues.length, `a due time ran twice: ${dues}`);
  assert.ok(
    runs.every((run) => run.status === "ok"),
    JSON.stringify(runs),
  );
  const gaps = dues.slice(1).map((due, i) => due - dues[i]);
  console.log(`due-time gaps: ${gaps.join(", ")} ms; ${runs.length} runs`);
  for (const gap of gaps) assert.equal(gap % EVERY_MS, 0, `due times stay on the cadence: ${gaps}`);
  if (downMs < EVERY_MS - 1_000) {
    assert.ok(
      gaps.every((gap) => gap === EVERY_MS),
      `no due time lost across the restart: ${gaps}`,
    );
  }
  const userTurns = await turns(session);
  assert.equal(userTurns.length, runs.length, "one turn in the cron session per run");
  assert.ok(userTurns.every((m) => m.content === "tick" || m.content?.[0]?.text === "tick"));

  // A one-shot: runs once, then deletes itself.
  const at = await client.call("cron.add", {
    name: "once",
    sessionTarget: "isolated",
    wakeMode: "now",
    schedule: { kind: "at", at: new Date(Date.now() + 3_000).toISOString() },
    payload: { kind: "agentTurn", message: "once" },
  });
  assert.equal(at.ok, true, JSON.stringify(at));
  assert.equal(at.payload.deleteAfterRun, true);
  await waitFor(
    "the at job ran and was deleted",
    async () => {
      const got = await client.call("cron.get", { id: at.payload.id });
      return { done: !got.ok, why: JSON.stringify(got.payload?.state) };
    },
    30_000,
  );
  await sleep(2_000);
  const onceTurns = await turns(`agent:main:cron:${at.payload.id}`);
  assert.equal(onceTurns.length, 1);
  assert.ok(!server.logTail().includes("cron: watching"), server.logTail());
  client.close();
});
