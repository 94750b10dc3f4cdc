// The WhatsApp Cloud API over its webhook against a real `wrangler dev`, with the fake Graph API
// (test/peers/fake-whatsapp.mjs, its own process on a free port) and a webhook runner here that
// answers `ECHO: <message>` (slowly for messages containing "slow"). No OpenClaw gateway serves
// the Cloud API; docs/channels.md says what follows OpenClaw's WhatsApp channel and what is Meta's.
// Every reply must reach the fake exactly once: across duplicates, concurrency, a 500 from the
// Graph API and a SIGKILL of the whole server between ingress and reply.
// Run with `node --test test/e2e/channels-whatsapp.e2e.mjs`.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startFakeApi } from "../../bench/lib/channel-peers.mjs";
import { killAllServersNow, killAndRestart, startServer } from "../../bench/lib/server.mjs";
import { whatsappTextWebhook } from "../peers/whatsapp-webhook.mjs";
import { startEchoRunner } from "./echo-runner.mjs";
import { CRASH_TEST_VARS, createTenantToken, httpJson, waitFor, waitForCount } from "./http-json.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ACCESS_TOKEN = "EAAG-fake-whatsapp-access-token";
const APP_SECRET = "wa-app-secret-0123456789abcdef";
const VERIFY_TOKEN = "wa-verify-token-0123456789";
const PHONE_NUMBER_ID = "106540352242922";
const USER = "15551234567";
const SLOW_RUNNER_MS = 2500;
const HOOK_TOKEN = "hook-token-0123456789";

process.once("exit", killAllServersNow);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let server;
let fake;
let runner;
const tenant = { id: `wa-${crypto.randomUUID().slice(0, 8)}`, token: "" };
const inTenant = (path) => `/t/${tenant.id}${path}`;

function http(method, path, body) {
  return httpJson(server.baseUrl, method, path, { authorization: `Bearer ${tenant.token}`, body, timeoutMs: 20_000 });
}

let nextMessage = 1;
/** A webhook body of one text message from `from` (Meta's shape). */
function textMessage(text, { from = USER, id = `wamid.IN${nextMessage++}` } = {}) {
  return whatsappTextWebhook({ phoneNumberId: PHONE_NUMBER_ID, from, id, text });
}

async function post(payload, { secret = APP_SECRET, raw } = {}) {
  const body = raw ?? JSON.stringify(payload);
  const signature = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
  const res = await fetch(`${server.baseUrl}${inTenant("/whatsapp/webhook")}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(secret ? { "x-hub-signature-256": signature } : {}) },
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** Text messages the fake received whose body is exactly / matches `match`. */
async function sends(match) {
  const calls = (await fake.calls()).filter((c) => c.method === "text" && c.status === 200);
  return calls.filter((c) => (typeof match === "function" ? match(c.body.text.body) : c.body.text.body === match));
}

const waitForSends = (what, match, count, deadlineMs) => waitForCount(what, () => sends(match), count, deadlineMs);

async function crashAndRestart() {
  server = await killAndRestart(server, { vars: CRASH_TEST_VARS });
}

before(async () => {
  fake = await startFakeApi(join(HERE, "../peers/fake-whatsapp.mjs"), {
    env: { WA_TOKEN: ACCESS_TOKEN },
    label: "fake WhatsApp",
  });
  runner = await startEchoRunner({
    slowMs: SLOW_RUNNER_MS,
    markdown: "# Done\n**bold** and *soft*\n- one\n[docs](https://example.com)",
  });
  server = await startServer({ vars: CRASH_TEST_VARS });
  tenant.token = await createTenantToken(server.baseUrl, tenant.id);
  const config = await http("PUT", inTenant("/v1/config"), {
    session: { dmScope: "main" },
    agents: { list: [{ id: "main", default: true, runner: { type: "webhook", url: `${runner.url}/run` } }] },
    hooks: { enabled: true, token: HOOK_TOKEN },
    delivery: { maxAttempts: 3 },
    channels: {
      whatsapp: {
        enabled: true,
        mode: "cloud",
        phoneNumberId: PHONE_NUMBER_ID,
        accessToken: ACCESS_TOKEN,
        appSecret: APP_SECRET,
        verifyToken: VERIFY_TOKEN,
        apiRoot: `${fake.url}/v23.0`,
        dmPolicy: "pairing",
        allowFrom: [],
      },
    },
  });
  assert.equal(config.status, 200, config.text);
});

after(async () => {
  await server?.stop();
  await runner?.close();
  await fake?.stop();
});

test("config: the access token, app secret and verify token go to the secret store; apiRoot is an outbound URL", async () => {
  const read = await http("GET", inTenant("/v1/config"));
  assert.equal(read.status, 200);
  for (const secret of [ACCESS_TOKEN, APP_SECRET, VERIFY_TOKEN]) assert.ok(!read.text.includes(secret), read.text);
  assert.deepEqual(read.json.config.channels.whatsapp.accessToken, {
    source: "store",
    provider: "default",
    id: "WHATSAPP_ACCESS_TOKEN",
  });
  // The Control UI's Channels page: WhatsApp listed as configured and running.
  const status = await http("GET", inTenant("/v1/channels/status"));
  assert.equal(status.status, 200, status.text);
  assert.deepEqual(status.json.channels.whatsapp, { configured: true, running: true, mode: "webhook" });
  const refused = await http("PATCH", inTenant("/v1/config"), {
    channels: { whatsapp: { apiRoot: "http://169.254.169.254/v23.0" } },
  });
  assert.equal(refused.status, 400);
  assert.match(refused.text, /channels\.whatsapp\.apiRoot/);
});

test("Meta's subscription check: the challenge for the tenant's verify token, 403 otherwise", async () => {
  const url = (token, mode = "subscribe") =>
    `${server.baseUrl}${inTenant("/whatsapp/webhook")}?hub.mode=${mode}&hub.verify_token=${token}&hub.challenge=1158201444`;
  const ok = await fetch(url(VERIFY_TOKEN));
  assert.equal(ok.status, 200);
  assert.equal(await ok.text(), "1158201444");
  assert.equal((await fetch(url("wrong"))).status, 403);
  assert.equal((await fetch(url(VERIFY_TOKEN, "unsubscribe"))).status, 403);
});

test("the webhook's answers: bad or missing signature 401, a statuses-only body 200, not JSON 400", async () => {
  assert.equal((await post(textMessage("forged"), { secret: "not-the-app-secret" })).status, 401);
  assert.equal((await post(textMessage("unsigned"), { secret: "" })).status, 401);
  const statuses = {
    object: "whatsapp_business_account",
    entry: [{ id: "W", changes: [{ field: "messages", value: { statuses: [{ id: "wamid.OUT1", status: "read" }] } }] }],
  };
  assert.equal((await post(statuses)).status, 200);
  assert.equal((await post(null, { raw: "{not json" })).status, 400);
  await sleep(1000);
  assert.equal((await sends(() => true)).length, 0, "nothing was sent for any of these");
});

test("pairing: one code, silence until approved, then a DM is a turn with a read receipt and a reply", async () => {
  assert.equal((await post(textMessage("hello"))).status, 200);
  const [pairing] = await waitForSends("pairing code", (text) => /access not configured/.test(text));
  assert.equal(pairing.body.to, USER);
  const code = /Pairing code:\n\n([A-Z0-9]{8})\n/.exec(pairing.body.text.body)?.[1];
  assert.ok(code, pairing.body.text.body);
  assert.equal((await post(textMessage("hello again"))).status, 200);
  await sleep(1500);
  assert.equal((await sends((t) => /access not configured/.test(t))).length, 1, "no second code");
  const approved = await http("POST", inTenant("/v1/channels/whatsapp/pairing/approve"), { code });
  assert.equal(approved.status, 200, approved.text);
  const inbound = textMessage("after approval");
  assert.equal((await post(inbound)).status, 200);
  await waitForSends("the reply", "ECHO: after approval");
  const reads = (await fake.calls()).filter((c) => c.method === "read");
  assert.ok(
    reads.some((c) => c.body.message_id === inbound.entry[0].changes[0].value.messages[0].id),
    "a read receipt for the message",
  );
});

test("duplicates: the same message id again, and five concurrent POSTs of one message, give one reply", async () => {
  const once = textMessage("dup sequential");
  assert.equal((await post(once)).status, 200);
  assert.equal((await post(once)).status, 200);
  const burst = textMessage("dup concurrent");
  const answers = await Promise.all(Array.from({ length: 5 }, () => post(burst)));
  assert.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200, 200, 200],
  );
  await waitForSends("sequential reply", "ECHO: dup sequential");
  await waitForSends("concurrent reply", "ECHO: dup concurrent");
  await sleep(2000);
  assert.equal((await sends("ECHO: dup sequential")).length, 1);
  assert.equal((await sends("ECHO: dup concurrent")).length, 1);
});

test("replies: Markdown in WhatsApp's markup, long replies in parts under 4,096 characters", async () => {
  await post(textMessage("MARKDOWN please"));
  await waitForSends("markdown", "*Done*\n*bold* and _soft_\n• one\ndocs (https://example.com)");
  await post(textMessage("LONG please"));
  const parts = await waitForSends("long parts", (t) => t.startsWith("line "), 3);
  assert.ok(parts.every((p) => p.body.text.body.length <= 4096));
  assert.equal(parts.map((p) => p.body.text.body).join("").length, 150 * 61 - 1, "every line, each once");
});

test("a pair-rate refusal (#131056): the reply waits Meta's 6 s, then its parts go at least 1 s apart, each once", async () => {
  const since = Math.max(0, ...(await fake.calls()).map((c) => c.seq));
  await fake.fail({ method: "text", count: 1, status: 400, code: 131056, message: "pair rate limit hit" });
  await post(textMessage("LONG please"));
  const fresh = async () => (await fake.calls()).filter((c) => c.seq > since && c.method === "text");
  const ok = (calls) => calls.filter((c) => c.status === 200);
  const calls = await waitFor(
    "the refused part, then three parts",
    async () => {
      const all = await fresh();
      return { done: ok(all).length >= 3, all };
    },
    60_000,
  );
  const [refused] = calls.all;
  const parts = ok(calls.all);
  assert.equal(refused.status, 400);
  // By the fake's clock: no sooner than the pair rate allows, then OpenClaw's pace.
  assert.ok(parts[0].t - refused.t >= 6_000 - 10, `retried after ${parts[0].t - refused.t} ms`);
  for (let i = 1; i < parts.length; i++) assert.ok(parts[i].t - parts[i - 1].t >= 990, `part ${i + 1}`);
  await sleep(2000);
  const settled = ok(await fresh());
  assert.equal(settled.length, 3, "each part once");
  assert.equal(settled.map((p) => p.body.text.body).join("").length, 150 * 61 - 1);
});

test("a 500 from the Graph API is retried, and the reply arrives once", async () => {
  await fake.fail({ method: "text", count: 1, status: 500, code: 2, message: "Service temporarily unavailable" });
  await post(textMessage("after a 500"));
  await waitForSends("the retried reply", "ECHO: after a 500", 1, 60_000);
  await sleep(2000);
  assert.equal((await sends("ECHO: after a 500")).length, 1);
});

test("outside the 24-hour window: the delivery ends failed with Meta's reason, not retried, never silent", async () => {
  await fake.fail({ method: "text", count: 1, status: 400, code: 131047, message: "Re-engagement message" });
  const res = await fetch(`${server.baseUrl}${inTenant("/hooks/agent")}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${HOOK_TOKEN}` },
    body: JSON.stringify({ message: "window closed", name: "late", channel: "whatsapp", to: `+${USER}` }),
  });
  assert.equal(res.status, 200, await res.text());
  const dead = await waitFor(
    "a dead delivery",
    async () => {
      const list = await http("GET", inTenant("/v1/sessions?limit=200"));
      for (const row of list.json.sessions.filter((s) => s.key.includes(":hook:"))) {
        const read = await http("GET", inTenant(`/v1/sessions/${encodeURIComponent(row.key)}/deliveries`));
        const found = read.json.deliveries?.find((d) => d.target.channel === "whatsapp" && d.status === "dead");
        if (found) return { done: true, found };
      }
      return { done: false };
    },
    30_000,
  );
  assert.match(dead.found.lastError, /24-hour customer service window/);
  const attempts = (await fake.calls()).filter((c) => c.method === "text" && /window closed/.test(c.body.text.body));
  assert.equal(attempts.length, 1, "a closed window is final: one attempt, no retries");
});

test("SIGKILL between ingress and reply: one reply, never two, never none", { timeout: 180_000 }, async () => {
  assert.equal((await post(textMessage("killed after ingress"))).status, 200);
  await crashAndRestart();
  assert.equal((await post(textMessage("slow and killed mid-run"))).status, 200);
  await waitFor(
    "the runner has the turn",
    async () => ({ done: runner.seen.includes("slow and killed mid-run") }),
    30_000,
  );
  await crashAndRestart();
  await waitForSends("reply 1", "ECHO: killed after ingress", 1, 90_000);
  await waitForSends("reply 2", "ECHO: slow and killed mid-run", 1, 120_000);
  await sleep(3000);
  assert.equal((await sends("ECHO: killed after ingress")).length, 1);
  assert.equal((await sends("ECHO: slow and killed mid-run")).length, 1);
});
