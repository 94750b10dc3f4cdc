// Fault injection against a real `wrangler dev --persist-to <dir>`: sessions_send and
// sessions_spawn flows run through a slow webhook runner (500 ms) and post to a delivery
// webhook, both started here on 127.0.0.1, while plain appends go on. The whole server process
// group (npx, wrangler, workerd) is SIGKILLed at several points — while runs wait on the
// runner, while a delivery attempt is in flight, right after attempts were answered — and
// restarted on the same state. Once everything is quiet:
//   - every acknowledged append is in its transcript exactly once,
//   - every run ended,
//   - every announce is in its transcript exactly once,
//   - every delivery row is `delivered` and the receiver saw its idempotency key (attempts may
//     repeat after a crash — at least once — but each key is one delivery).
// And a kill right after chat.inject answers (its index rows still in the tenant's memory).
// Run with `node --test test/e2e/`.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { killAllServersNow, killAndRestart, startServer } from "../../bench/lib/server.mjs";
import { connectGateway } from "./gateway-rpc.mjs";
import { CRASH_TEST_VARS, createTenantToken, httpJson, listenLoopback, waitFor } from "./http-json.mjs";

const RUNNER_DELAY_MS = 500;
/** The receiver holds each delivery this long before answering, so a kill can land mid-attempt. */
const DELIVERY_HOLD_MS = 300;
const WAVES = 3;
const SENDS_PER_WAVE = 4;
const SPAWNS_PER_WAVE = 4;
const APPENDS_PER_WAVE = 30;
const QUIET_DEADLINE_MS = 60_000;
const ANNOUNCE_STEP = "Agent-to-agent announce step.";
const SUBAGENT_EVENT = "[Internal task completion event]";

process.once("exit", killAllServersNow);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The webhook runner and the delivery receiver, one HTTP server. */
function startPeers() {
  const received = new Map(); // idempotency key → attempts seen
  let runs = 0;
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    if (req.url === "/run") {
      runs++;
      const run = JSON.parse(body);
      await sleep(RUNNER_DELAY_MS);
      const message = String(run.input?.message ?? "");
      const reply = message === ANNOUNCE_STEP ? `announce from ${run.sessionKey}` : `done: ${message.slice(0, 40)}`;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ reply }));
      return;
    }
    if (req.url === "/deliver") {
      const key = req.headers["idempotency-key"];
      received.set(key, (received.get(key) ?? 0) + 1);
      await sleep(DELIVERY_HOLD_MS);
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      return;
    }
    res.writeHead(404).end();
  });
  return listenLoopback(server, { received, runs: () => runs });
}

let server;
let peers;
const tenant = { id: `crash-${crypto.randomUUID().slice(0, 8)}`, token: "" };

function http(method, path, { token = `Bearer ${tenant.token}`, body } = {}) {
  return httpJson(server.baseUrl, method, path, { authorization: token, body, timeoutMs: 20_000 });
}

const inTenant = (path) => `/t/${tenant.id}${path}`;
const enc = encodeURIComponent;

/** SIGKILL the whole server group, then start it again on the same port and state. */
async function crashAndRestart() {
  server = await killAndRestart(server, { vars: CRASH_TEST_VARS });
}

before(async () => {
  peers = await startPeers();
  server = await startServer({ vars: CRASH_TEST_VARS });
  tenant.token = await createTenantToken(server.baseUrl, tenant.id);
  const config = await http("PUT", inTenant("/v1/config"), {
    body: {
      gateway: { tools: { allow: ["sessions_send", "sessions_spawn"] } },
      tools: { sessions: { visibility: "agent" } },
      agents: { list: [{ id: "main", default: true, runner: { type: "webhook", url: `${peers.url}/run` } }] },
      session: { agentToAgent: { maxPingPongTurns: 0 } },
      delivery: { webhookUrl: `${peers.url}/deliver` },
    },
  });
  assert.equal(config.status, 200, config.text);
});

after(async () => {
  await server?.stop();
  await peers?.close();
});

/** A session with a channel route, so announces posted there become deliveries. */
async function seed(key, channelTo) {
  const res = await http("POST", inTenant(`/v1/sessions/${enc(key)}/messages`), {
    body: { role: "user", content: `seed ${key}`, deliveryContext: { channel: "slack", to: channelTo } },
  });
  assert.equal(res.status, 201, res.text);
}

const tool = (sessionKey, name, args) =>
  http("POST", inTenant("/tools/invoke"), { body: { tool: name, args, sessionKey } });

/** Starts one wave of flows and appends; answers what was acknowledged. Failures are expected while killing. */
function startWave(wave, acked, flows) {
  const sends = Array.from({ length: SENDS_PER_WAVE }, async (_, i) => {
    const requester = `agent:main:w${wave}-req-${i}`;
    const target = `agent:main:w${wave}-tgt-${i}`;
    const result = await tool(requester, "sessions_send", {
      sessionKey: target,
      message: `ping ${wave}.${i}`,
      timeoutSeconds: 0,
    });
    if (result.json?.result?.details?.status === "accepted") flows.sends.push({ requester, target });
  });
  const spawns = Array.from({ length: SPAWNS_PER_WAVE }, async (_, i) => {
    const requester = `agent:main:w${wave}-parent-${i}`;
    const result = await tool(requester, "sessions_spawn", { task: `task ${wave}.${i}` });
    const details = result.json?.result?.details;
    if (details?.status === "accepted") flows.spawns.push({ requester, child: details.childSessionKey });
  });
  const appends = (async () => {
    const key = `agent:main:w${wave}-appends`;
    for (let i = 0; i < APPENDS_PER_WAVE; i++) {
      const content = `append ${wave}.${i}`;
      try {
        const res = await http("POST", inTenant(`/v1/sessions/${enc(key)}/messages`), {
          body: { role: "user", content },
        });
        if (res.status === 201) acked.push({ key, content });
      } catch {
        return; // the server is down: this wave's appends stop here
      }
    }
  })();
  return Promise.allSettled([...sends, ...spawns, appends]);
}

/** The sessions a wave seeds with a channel route, with the route's recipient. */
function seededRoutes(wave) {
  const routes = [];
  for (let i = 0; i < SENDS_PER_WAVE; i++) {
    routes.push([`agent:main:w${wave}-req-${i}`, `REQ${wave}${i}`], [`agent:main:w${wave}-tgt-${i}`, `TGT${wave}${i}`]);
  }
  for (let i = 0; i < SPAWNS_PER_WAVE; i++) routes.push([`agent:main:w${wave}-parent-${i}`, `PAR${wave}${i}`]);
  return routes;
}

const seededKeys = (wave) => seededRoutes(wave).map(([key]) => key);

async function seedWave(wave) {
  for (const [key, to] of seededRoutes(wave)) await seed(key, to);
}

async function history(key) {
  const res = await http("GET", inTenant(`/sessions/${enc(key)}/history?includeTools=1`));
  assert.equal(res.status, 200, `${key}: ${res.text}`);
  return res.json.messages;
}

const textOf = (message) =>
  typeof message.content === "string"
    ? message.content
    : (message.content ?? []).map((block) => block.text ?? "").join("");

test("crashes mid-flow lose nothing and do nothing twice", { timeout: 180_000 }, async () => {
  const acked = [];
  const flows = { sends: [], spawns: [] };
  const kills = [];

  for (let wave = 1; wave <= WAVES; wave++) await seedWave(wave);

  // Wave 1: killed while its runs wait on the 500 ms runner (before any delivery).
  const wave1 = startWave(1, acked, flows);
  await waitFor("wave 1 runs reach the runner", async () => ({ done: peers.runs() > 0 }), 20_000);
  await sleep(150);
  kills.push({ at: "runs waiting on the runner", deliveriesSeen: peers.received.size });
  await crashAndRestart();
  await wave1;

  // Wave 2: killed while a delivery attempt is in flight (the receiver holds it 300 ms).
  const seenBefore2 = peers.received.size;
  const wave2 = startWave(2, acked, flows);
  await waitFor("a delivery attempt arrives", async () => ({ done: peers.received.size > seenBefore2 }), 30_000);
  kills.push({ at: "delivery attempt in flight", deliveriesSeen: peers.received.size });
  await crashAndRestart();
  await wave2;

  // Wave 3: killed right after attempts were answered (results just recorded, or not yet).
  const seenBefore3 = peers.received.size;
  const wave3 = startWave(3, acked, flows);
  await waitFor("deliveries answered", async () => ({ done: peers.received.size >= seenBefore3 + 2 }), 30_000);
  await sleep(DELIVERY_HOLD_MS + 20);
  kills.push({ at: "just after delivery attempts were answered", deliveriesSeen: peers.received.size });
  await crashAndRestart();
  await wave3;

  // Quiescence: every run of every flow session ended, every delivery row delivered. Every
  // seeded session is read, not only those of acknowledged flows: a tool call the server took
  // just before a kill loses its answer, yet its flow goes on and announces (into a seeded,
  // routed session); only such a flow's child, which has no route and so no deliveries, is unknown.
  const keys = new Set([
    ...Array.from({ length: WAVES }, (_, w) => seededKeys(w + 1)).flat(),
    ...flows.sends.flatMap((f) => [f.requester, f.target]),
    ...flows.spawns.flatMap((f) => [f.requester, f.child]),
  ]);
  let rows = [];
  await waitFor(
    "every run ended and every delivery delivered",
    async () => {
      rows = [];
      for (const key of keys) {
        const runs = await http("GET", inTenant(`/v1/sessions/${enc(key)}/runs?limit=100`));
        if (runs.status !== 200) return { done: false, why: `${key} runs ${runs.status}` };
        const open = runs.json.runs.filter((run) => !run.done);
        if (open.length > 0) return { done: false, why: `${key} has ${open.length} open runs` };
        const deliveries = await http("GET", inTenant(`/v1/sessions/${enc(key)}/deliveries`));
        if (deliveries.status !== 200) return { done: false, why: `${key} deliveries ${deliveries.status}` };
        rows.push(...deliveries.json.deliveries.map((d) => ({ ...d, session: key })));
      }
      const pending = rows.filter((d) => d.status !== "delivered");
      if (pending.length > 0) return { done: false, why: `${pending.length} deliveries ${pending[0].status}` };
      const expected = flows.sends.length + flows.spawns.length;
      if (rows.length < expected) return { done: false, why: `${rows.length} of ${expected} deliveries exist` };
      // A flow between two steps has no open run: its announce may still be on its way. Every
      // delivery received must be listed (its row is written before it is sent), so wait for it;
      // a row that never shows up fails here, naming its key.
      for (const { target } of flows.sends) {
        const announced = (await history(target)).some((m) => textOf(m) === `announce from ${target}`);
        if (!announced) return { done: false, why: `${target}: its flow has not announced yet` };
      }
      const listed = new Set(rows.map((d) => d.idempotencyKey));
      const unlisted = [...peers.received.keys()].filter((key) => !listed.has(key));
      if (unlisted.length > 0) return { done: false, why: `received ${unlisted[0]} has no delivery row (yet)` };
      return { done: true };
    },
    QUIET_DEADLINE_MS,
  );

  // Appends: each acknowledged one exactly once.
  const appendKeys = [...new Set(acked.map((a) => a.key))];
  for (const key of appendKeys) {
    const contents = (await history(key)).map(textOf);
    for (const { content } of acked.filter((a) => a.key === key)) {
      assert.equal(contents.filter((c) => c === content).length, 1, `${key}: "${content}" present once`);
    }
  }

  // Announces: once per send target (the announce step's message and its reply), once per spawn requester.
  for (const { target } of flows.sends) {
    const messages = await history(target);
    assert.equal(messages.filter((m) => textOf(m) === ANNOUNCE_STEP).length, 1, `${target}: one announce step`);
    assert.equal(
      messages.filter((m) => textOf(m) === `announce from ${target}`).length,
      1,
      `${target}: one announce reply`,
    );
  }
  for (const { requester } of flows.spawns) {
    const announces = (await history(requester)).filter((m) => textOf(m).includes(SUBAGENT_EVENT));
    assert.equal(announces.length, 1, `${requester}: one sub-agent announce`);
  }

  // Deliveries: one row per idempotency key, each received, none received that has no row.
  const byKey = new Map(rows.map((d) => [d.idempotencyKey, d]));
  assert.equal(byKey.size, rows.length, "one delivery row per idempotency key");
  for (const { target } of flows.sends) {
    assert.equal(
      rows.filter((d) => d.session === target && d.kind === "a2a-announce").length,
      1,
      `${target}: one a2a delivery`,
    );
  }
  for (const d of rows)
    assert.ok(peers.received.has(d.idempotencyKey), `delivery ${d.idempotencyKey} reached the webhook`);
  for (const key of peers.received.keys()) assert.ok(byKey.has(key), `received ${key} belongs to a delivery row`);

  const repeated = [...peers.received.values()].filter((n) => n > 1).length;
  const attempts = [...peers.received.values()].reduce((sum, n) => sum + n, 0);
  console.log(
    [
      `crash e2e: ${kills.length} kills (${kills.map((k) => k.at).join("; ")})`,
      `flows: ${flows.sends.length} sessions_send + ${flows.spawns.length} sessions_spawn accepted; runner calls ${peers.runs()}`,
      `appends: ${acked.length} acknowledged, each present once`,
      `deliveries: ${rows.length} expected, ${rows.length} delivered, ${byKey.size} distinct keys received; ${attempts} attempts (${repeated} keys attempted more than once after a crash, one delivery each)`,
    ].join("\n"),
  );
});

// chat.inject answers before the tenant object writes the session's index row (it holds the
// rows of a burst in memory for up to 100 ms and writes the newest of each). Killed right
// after the answers (if the kill lands within those 100 ms), the held rows are gone with the
// whole process; each session object, started again by the retry alarm it wrote with the
// message, sends its row again, so the index is whole after the restart. (A tenant object
// that restarts alone is the pool test's case: test/workerd/tenant/inject-handoff.test.ts.)
test("a kill right after chat.inject answers loses no index row (every session object sends its row again)", {
  timeout: 60_000,
}, async () => {
  const keys = ["agent:main:held-a", "agent:main:held-b", "agent:main:held-c"];
  const gateway = await connectGateway(`${server.baseUrl.replace(/^http/, "ws")}/t/${tenant.id}`, tenant.token);
  // Each session's first message creates it: that row is written before the answer.
  for (const key of keys) assert.ok((await gateway.call("chat.inject", { sessionKey: key, message: "created" })).ok);
  for (const key of keys) {
    const answer = await gateway.call("chat.inject", { sessionKey: key, message: `held ${key}` });
    assert.ok(answer.ok, JSON.stringify(answer.error));
  }
  gateway.close();
  await crashAndRestart();
  const rows = new Map();
  await waitFor(
    "the index has every injected message",
    async () => {
      const list = await http("GET", inTenant("/v1/sessions?limit=100&includeLastMessage=true"));
      if (list.status !== 200) return { done: false, why: `list ${list.status}` };
      for (const row of list.json.sessions) rows.set(row.key, row);
      const behind = keys.filter((key) => rows.get(key)?.messageCount !== 2);
      return behind.length ? { done: false, why: `${behind.join(", ")} behind` } : { done: true };
    },
    20_000,
  );
  for (const key of keys) assert.equal(rows.get(key).lastMessagePreview, `held ${key}`);
});

// A session nobody follows holds its index updates for a window (src/session/publish-window.ts,
// 1 s) before sending them to the tenant object. Killed inside that window, the pending update
// is gone with the process; the retry alarm each append wrote starts the session object again,
// which sends everything the tenant has not acknowledged, in order.
test("a kill inside a quiet session's index window loses no index update (the retry alarm sends it)", {
  timeout: 60_000,
}, async () => {
  const keys = ["agent:main:quiet-a", "agent:main:quiet-b"];
  // Created first (a create is sent at once), then a burst nobody follows.
  for (const key of keys) {
    const res = await http("POST", inTenant(`/v1/sessions/${enc(key)}/messages`), {
      body: { role: "user", content: "created" },
    });
    assert.equal(res.status, 201, res.text);
  }
  await sleep(300);
  for (const key of keys) {
    for (let i = 1; i <= 5; i++) {
      const res = await http("POST", inTenant(`/v1/sessions/${enc(key)}/messages`), {
        body: { role: "user", content: `quiet ${key} ${i}` },
      });
      assert.equal(res.status, 201, res.text);
    }
  }
  // Inside the last session's window (its 5 appends and this read take well under 1 s): its
  // burst has not reached the index yet, so the kill below lands on a pending update.
  const early = await http("GET", inTenant("/v1/sessions?limit=100"));
  const last = early.json.sessions.find((row) => row.key === keys.at(-1));
  assert.equal(last?.messageCount, 1, "the burst reached the index before its window");
  await crashAndRestart();
  const rows = new Map();
  await waitFor(
    "the index has every appended message",
    async () => {
      const list = await http("GET", inTenant("/v1/sessions?limit=100&includeLastMessage=true"));
      if (list.status !== 200) return { done: false, why: `list ${list.status}` };
      for (const row of list.json.sessions) rows.set(row.key, row);
      const behind = keys.filter((key) => rows.get(key)?.messageCount !== 6);
      return behind.length ? { done: false, why: `${behind.join(", ")} behind` } : { done: true };
    },
    20_000,
  );
  for (const key of keys) assert.equal(rows.get(key).lastMessagePreview, `quiet ${key} 5`);
});
