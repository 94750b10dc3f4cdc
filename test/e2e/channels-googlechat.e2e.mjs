// Google Chat over its HTTP endpoint against a real `wrangler dev`, with the fake Google
// (test/peers/fake-googlechat.mjs, its own process on a free port: Chat's signing certificates,
// the service-account token endpoint, the Chat API) and a webhook runner here that answers
// `ECHO: <message>` (slowly for messages containing "slow"). Events are signed and posted by the
// fake as Google posts them. Every reply must read exactly once in the fake's spaces: across
// duplicates, concurrency, a 500 from the Chat API and a SIGKILL of the whole server between
// ingress and reply. Run with `node --test test/e2e/channels-googlechat.e2e.mjs`.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startFakeApi } from "../../bench/lib/channel-peers.mjs";
import { killAllServersNow, killAndRestart, startServer } from "../../bench/lib/server.mjs";
import { startEchoRunner } from "./echo-runner.mjs";
import { CRASH_TEST_VARS, createTenantToken, httpJson, waitFor, waitForCount } from "./http-json.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const AUDIENCE = "123456789012";
const BOT_USER = "users/999000999";
const ALICE = { name: "users/111000111", displayName: "Alice", email: "alice@example.com", type: "HUMAN" };
const SLOW_RUNNER_MS = 2500;
const TYPING = "_OpenClaw is typing..._";

process.once("exit", killAllServersNow);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let server;
let fake;
let runner;
let serviceAccount;
const tenant = { id: `gc-${crypto.randomUUID().slice(0, 8)}`, token: "" };
const inTenant = (path) => `/t/${tenant.id}${path}`;

function http(method, path, body) {
  return httpJson(server.baseUrl, method, path, { authorization: `Bearer ${tenant.token}`, body, timeoutMs: 20_000 });
}

let nextMessage = 1;
/** A MESSAGE event as Google sends it (recorded shape): a DM of Alice's, or a message in a space. */
function messageEvent(text, { space = "spaces/DMalice", dm = true, user = ALICE, mention = false, name } = {}) {
  const spaceField = dm
    ? { name: space, type: "DM", spaceType: "DIRECT_MESSAGE", singleUserBotDm: true }
    : { name: space, type: "ROOM", spaceType: "SPACE", displayName: `Team ${space.slice(-4)}` };
  const id = `m${Date.now()}x${nextMessage++}`;
  const message = {
    name: name ?? `${space}/messages/${id}.${id}`,
    sender: user,
    createTime: new Date().toISOString(),
    text,
    argumentText: text,
    thread: { name: `${space}/threads/t${id}` },
    space: spaceField,
  };
  if (mention) {
    message.annotations = [
      {
        type: "USER_MENTION",
        startIndex: 0,
        length: 8,
        userMention: { user: { name: BOT_USER, displayName: "FakeBot", type: "BOT" }, type: "MENTION" },
      },
    ];
    message.argumentText = text.replace(/^@\S+\s*/, "");
  }
  return { type: "MESSAGE", eventTime: new Date().toISOString(), space: spaceField, message, user };
}

/** The event posted by the fake with a Google-signed Bearer token (`options`: claims, wrongKey, noToken, raw, contentType). */
async function post(event, options = {}) {
  const res = await fetch(`${fake.url}/__send`, {
    method: "POST",
    body: JSON.stringify({ url: `${server.baseUrl}${inTenant("/googlechat")}`, event, ...options }),
  });
  return res.json();
}

/** Messages in the fake's spaces whose text is / matches `match` (placeholders as edited). */
async function messagesWith(match) {
  const { messages } = await (await fetch(`${fake.url}/__messages`)).json();
  return messages.filter((m) => (typeof match === "function" ? match(m.text) : m.text === match));
}

const waitForMessages = (what, match, count, deadlineMs) =>
  waitForCount(what, () => messagesWith(match), count, deadlineMs);

async function crashAndRestart() {
  server = await killAndRestart(server, { vars: CRASH_TEST_VARS });
}

before(async () => {
  fake = await startFakeApi(join(HERE, "../peers/fake-googlechat.mjs"), {
    env: { GC_AUDIENCE: AUDIENCE },
    label: "fake Google Chat",
  });
  serviceAccount = await (await fetch(`${fake.url}/__service-account`)).json();
  runner = await startEchoRunner({
    slowMs: SLOW_RUNNER_MS,
    markdown: "**bold** and `code` and [link](https://example.com)\n\n- item 1\n- item 2",
  });
  server = await startServer({ vars: CRASH_TEST_VARS });
  tenant.token = await createTenantToken(server.baseUrl, tenant.id);
  const config = await http("PUT", inTenant("/v1/config"), {
    session: { dmScope: "main" },
    agents: { list: [{ id: "main", default: true, runner: { type: "webhook", url: `${runner.url}/run` } }] },
    hooks: { enabled: true, token: "hook-token-0123456789" },
    delivery: { maxAttempts: 3 },
    channels: {
      googlechat: {
        enabled: true,
        serviceAccount,
        audienceType: "project-number",
        audience: AUDIENCE,
        botUser: BOT_USER,
        dmPolicy: "pairing",
        allowFrom: [],
        groupPolicy: "allowlist",
        groupAllowFrom: [ALICE.name],
        groups: { "spaces/AAAAopen": { requireMention: false }, "spaces/AAAAment": { requireMention: true } },
        apiRoot: fake.url,
        tokenUrl: `${fake.url}/token`,
        certsUrl: `${fake.url}/service_accounts/v1/metadata/x509/chat@system.gserviceaccount.com`,
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

test("config: the service account goes to the secret store, never returned; the Google URLs are outbound URLs", async () => {
  const read = await http("GET", inTenant("/v1/config"));
  assert.equal(read.status, 200);
  assert.ok(!read.text.includes("PRIVATE KEY"), "no private key in a config read");
  assert.deepEqual(read.json.config.channels.googlechat.serviceAccount, {
    source: "store",
    provider: "default",
    id: "GOOGLECHAT_SERVICE_ACCOUNT",
  });
  const status = await http("GET", inTenant("/v1/channels/status"));
  assert.equal(status.status, 200, status.text);
  assert.deepEqual(status.json.channels.googlechat, { configured: true, running: true, mode: "webhook" });
  for (const key of ["apiRoot", "tokenUrl", "certsUrl"]) {
    const refused = await http("PATCH", inTenant("/v1/config"), {
      channels: { googlechat: { [key]: "http://169.254.169.254/x" } },
    });
    assert.equal(refused.status, 400, `${key}: ${refused.text}`);
    assert.match(refused.text, new RegExp(`channels\\.googlechat\\.${key}`));
  }
  const file = await http("PATCH", inTenant("/v1/config"), {
    channels: { googlechat: { serviceAccountFile: "/x.json" } },
  });
  assert.equal(file.status, 400);
  assert.match(file.text, /paste the JSON key as serviceAccount/);
});

test("the endpoint's answers (recorded): 401 before the body, 405, 415, 400, and ADDED_TO_SPACE 200 unstored", async () => {
  const event = messageEvent("forged");
  for (const options of [
    { noToken: true },
    { wrongKey: true },
    { claims: { aud: "999" } },
    { claims: { iss: "evil@example.com" } },
  ]) {
    const answer = await post(event, options);
    assert.deepEqual([answer.status, answer.body], [401, "unauthorized"], JSON.stringify(options));
  }
  const expired = Math.floor(Date.now() / 1000) - 600;
  assert.equal((await post(event, { claims: { iat: expired - 3600, exp: expired } })).status, 401);
  assert.equal((await fetch(`${server.baseUrl}${inTenant("/googlechat")}`)).status, 405);
  const plain = await post(null, { raw: JSON.stringify(event), contentType: "text/plain" });
  assert.deepEqual([plain.status, plain.body], [415, "Unsupported Media Type"]);
  assert.deepEqual([(await post(null, { raw: "nope" })).status, (await post({})).body], [400, "invalid payload"]);
  const added = await post({ type: "ADDED_TO_SPACE", space: { name: "spaces/AAAAopen", type: "ROOM" }, user: ALICE });
  assert.equal(added.status, 200);
  assert.equal(added.body, "{}");
  assert.equal(added.headers["x-openclaw-delivery-accepted"], undefined);
  await sleep(1000);
  assert.equal((await messagesWith(() => true)).length, 0, "nothing was sent for any of these");
  assert.equal(runner.seen.length, 0, "no turn");
  const [account] = (await http("GET", inTenant("/v1/channels/status"))).json.channelAccounts.googlechat;
  assert.deepEqual([account.pendingUpdates, account.handledUpdates], [0, 0], "nothing stored in the inbox");
});

test("pairing: one code, silence until approved, then a DM is a typing placeholder edited into the reply", async () => {
  const first = await post(messageEvent("hello from alice"));
  assert.equal(first.status, 200);
  assert.equal(first.headers["x-openclaw-delivery-accepted"], "durable");
  const [pairing] = await waitForMessages("pairing code", (text) => /access not configured/.test(text));
  assert.match(pairing.name, /^spaces\/DMalice\/messages\//);
  const code = /Pairing code:\n```\n([A-Z0-9]{8})\n```/.exec(pairing.text)?.[1];
  assert.ok(code, pairing.text);
  assert.match(pairing.text, /Your Google Chat user id: users\/111000111/);
  assert.equal((await post(messageEvent("hello again"))).status, 200);
  await sleep(1500);
  assert.equal((await messagesWith((t) => /access not configured/.test(t))).length, 1, "no second code");
  const approved = await http("POST", inTenant("/v1/channels/googlechat/pairing/approve"), { code });
  assert.equal(approved.status, 200, approved.text);
  assert.equal((await post(messageEvent("now I am paired"))).status, 200);
  const [reply] = await waitForMessages("the reply", "ECHO: now I am paired");
  const calls = (await fake.calls()).filter((c) => c.path.startsWith(`/v1/${reply.name}`) || c.body?.text === TYPING);
  assert.deepEqual(
    calls.filter((c) => c.status === 200).map((c) => `${c.kind} ${c.body.text}`),
    [`create ${TYPING}`, "update ECHO: now I am paired"],
    "the placeholder first, then the reply PATCHed into it",
  );
  assert.equal((await messagesWith(TYPING)).length, 0, "no placeholder left typing");
});

test("spaces: a listed space with an allowed sender is answered; a mention where required; unlisted dropped", async () => {
  await post(messageEvent("hi space", { space: "spaces/AAAAopen", dm: false }));
  await post(messageEvent("no mention", { space: "spaces/AAAAment", dm: false }));
  await post(messageEvent("@FakeBot please answer", { space: "spaces/AAAAment", dm: false, mention: true }));
  await post(messageEvent("@FakeBot hi", { space: "spaces/ZZZZother", dm: false, mention: true }));
  const [open] = await waitForMessages("open space", "ECHO: hi space");
  assert.match(open.name, /^spaces\/AAAAopen\//);
  const [mentioned] = await waitForMessages("mentioned", "ECHO: @FakeBot please answer");
  assert.match(mentioned.name, /^spaces\/AAAAment\//);
  await sleep(1500);
  assert.equal((await messagesWith("ECHO: no mention")).length, 0);
  assert.equal((await messagesWith("ECHO: @FakeBot hi")).length, 0);
  const sessions = await http("GET", inTenant("/v1/sessions?limit=200"));
  assert.ok(sessions.json.sessions.some((s) => s.key === "agent:main:googlechat:group:spaces/aaaaopen"));
});

test("duplicates: the same message again, and five concurrent POSTs of one message, give one reply", async () => {
  const once = messageEvent("dup sequential");
  assert.equal((await post(once)).status, 200);
  assert.equal((await post(once)).status, 200);
  const burst = messageEvent("dup concurrent");
  const answers = await Promise.all(Array.from({ length: 5 }, () => post(burst)));
  assert.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200, 200, 200],
  );
  await waitForMessages("sequential reply", "ECHO: dup sequential");
  await waitForMessages("concurrent reply", "ECHO: dup concurrent");
  await sleep(2000);
  assert.equal((await messagesWith("ECHO: dup sequential")).length, 1);
  assert.equal((await messagesWith("ECHO: dup concurrent")).length, 1);
});

test("replies: Markdown unchanged; a long reply in 4,000-character parts, the first in the placeholder", async () => {
  await post(messageEvent("MARKDOWN please"));
  await waitForMessages("markdown", "**bold** and `code` and [link](https://example.com)\n\n- item 1\n- item 2");
  await post(messageEvent("LONG please"));
  const parts = await waitForMessages("long parts", (t) => t.startsWith("line "), 3);
  assert.ok(parts.every((p) => p.text.length <= 4000));
  assert.equal(parts.map((p) => p.text).join("").length, 150 * 61 - 1, "every line, each once");
});

test("a 500 from the Chat API is retried, and the reply reads once", async () => {
  await fake.fail({ kind: "update", count: 1, status: 500 });
  await post(messageEvent("after a 500"));
  await waitForMessages("the retried reply", "ECHO: after a 500", 1, 60_000);
  await sleep(2000);
  assert.equal((await messagesWith("ECHO: after a 500")).length, 1);
  const failedThenOk = (await fake.calls()).filter((c) => c.kind === "update" && c.body.text === "ECHO: after a 500");
  assert.deepEqual(
    failedThenOk.map((c) => c.status),
    [500, 200],
  );
});

test("a hook delivery to channel googlechat reaches the space", async () => {
  const res = await fetch(`${server.baseUrl}${inTenant("/hooks/agent")}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer hook-token-0123456789" },
    body: JSON.stringify({ message: "from a hook", name: "hook", channel: "googlechat", to: "spaces/AAAAopen" }),
  });
  assert.equal(res.status, 200, await res.text());
  const [delivered] = await waitForMessages("hook delivery", (text) => /from a hook/.test(text));
  assert.match(delivered.name, /^spaces\/AAAAopen\/messages\/client-/);
});

test("SIGKILL between ingress and reply: one reply, never two, never none", { timeout: 180_000 }, async () => {
  assert.equal((await post(messageEvent("killed after ingress"))).status, 200);
  await crashAndRestart();
  assert.equal((await post(messageEvent("slow and killed mid-run"))).status, 200);
  await waitFor(
    "the runner has the turn",
    async () => ({ done: runner.seen.includes("slow and killed mid-run") }),
    30_000,
  );
  await crashAndRestart();
  await waitForMessages("reply 1", "ECHO: killed after ingress", 1, 90_000);
  await waitForMessages("reply 2", "ECHO: slow and killed mid-run", 1, 120_000);
  await sleep(3000);
  assert.equal((await messagesWith("ECHO: killed after ingress")).length, 1);
  assert.equal((await messagesWith("ECHO: slow and killed mid-run")).length, 1);
  assert.equal((await messagesWith(TYPING)).length, 0, "every placeholder became its reply");
});
