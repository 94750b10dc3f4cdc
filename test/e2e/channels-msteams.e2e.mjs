// Microsoft Teams over its messaging endpoint against a real `wrangler dev`, with the fake Bot
// Connector (test/peers/fake-msteams.mjs, its own process on a free port: it signs each activity
// with its own key, served as OpenID metadata, and issues the bot's tokens) and a webhook runner
// here that answers `ECHO: <message>`. No recording of Teams exists (docs/channels.md says what
// is read from OpenClaw's plugin). Every reply must reach the fake exactly once: across
// duplicates, concurrency, a 500 from the Bot Connector and a SIGKILL between ingress and reply.
// Run with `node --test test/e2e/channels-msteams.e2e.mjs`.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startFakeApi } from "../../bench/lib/channel-peers.mjs";
import { killAllServersNow, killAndRestart, startServer } from "../../bench/lib/server.mjs";
import { CRASH_TEST_VARS, createTenantToken, httpJson, listenLoopback, waitFor, waitForCount } from "./http-json.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const APP_ID = "00000000-0000-4000-8000-00000000a11d";
const APP_PASSWORD = "fake-msteams-app-password";
const ALLOWED = "aad-allowed-user";
const TEAM = "19:team-root@thread.tacv2";
const CHANNEL = "19:general@thread.tacv2";
const GROUP_CHAT = "19:meeting-room@thread.v2";
const SLOW_RUNNER_MS = 2500;
const HOOK_TOKEN = "hook-token-0123456789";

process.once("exit", killAllServersNow);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let server;
let fake;
let runner;
const tenant = { id: `teams-${crypto.randomUUID().slice(0, 8)}`, token: "" };
const inTenant = (path) => `/t/${tenant.id}${path}`;
const endpoint = () => `${server.baseUrl}${inTenant("/api/messages")}`;

function http(method, path, body) {
  return httpJson(server.baseUrl, method, path, { authorization: `Bearer ${tenant.token}`, body, timeoutMs: 20_000 });
}

/** The model's stand-in: `ECHO: <message>`, a 9,000-character reply for LONG, Markdown for MARKDOWN, slow for "slow". */
function startRunner() {
  const seen = [];
  const long = Array.from({ length: 150 }, (_, i) => `row ${String(i).padStart(4, "0")} ${"y".repeat(50)}`).join("\n");
  const answerTo = (message) => {
    if (message.includes("LONG")) return long;
    if (message.includes("MARKDOWN")) return "# Done\n**bold** and `code`\n- one";
    return `ECHO: ${message}`;
  };
  const srv = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const message = String(JSON.parse(raw).input?.message ?? "");
    seen.push(message);
    if (message.includes("slow")) await sleep(SLOW_RUNNER_MS);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ reply: answerTo(message) }));
  });
  return listenLoopback(srv, { seen, long });
}

let nextId = 1;
/** A personal-chat message activity from `aad` (the Bot Connector's shape; the fake fills serviceUrl). */
function dm(text, { aad = ALLOWED, id = `17000${nextId++}` } = {}) {
  return {
    type: "message",
    id,
    channelId: "msteams",
    conversation: { id: `a:dm-${aad}`, conversationType: "personal", tenantId: "azure-tenant" },
    from: { id: `29:${aad}`, aadObjectId: aad, name: "Ana" },
    recipient: { id: `28:${APP_ID}`, name: "OpenClaw" },
    text,
  };
}

/** A top-level channel post in CHANNEL, `<at>`-mentioning the bot when `mention`. */
function channelPost(text, { mention }) {
  const id = `18000${nextId++}`;
  return {
    ...dm("", { id }),
    conversation: { id: `${CHANNEL};messageid=${id}`, conversationType: "channel", tenantId: "azure-tenant" },
    channelData: { team: { id: TEAM }, channel: { id: CHANNEL }, tenant: { id: "azure-tenant" } },
    text: mention ? `<at>OpenClaw</at> ${text}` : text,
    entities: mention
      ? [{ type: "mention", text: "<at>OpenClaw</at>", mentioned: { id: `28:${APP_ID}`, name: "OpenClaw" } }]
      : [],
  };
}

/** A message in the group chat GROUP_CHAT (no team: admitted by its sender in groupAllowFrom). */
function groupMessage(text, { mention }) {
  const post = channelPost(text, { mention });
  return { ...post, conversation: { id: GROUP_CHAT, conversationType: "groupChat" }, channelData: {} };
}

/** The activity posted by the fake with its signed token (`claims` override the token's, `wrongKey` signs with another key). */
async function post(activity, { claims, wrongKey } = {}) {
  const res = await fetch(`${fake.url}/__send`, {
    method: "POST",
    body: JSON.stringify({ url: endpoint(), activity, claims, wrongKey }),
  });
  return res.json();
}

/** The bot's message activities the fake accepted whose text is / matches `match`. */
async function replies(match) {
  const calls = (await fake.calls()).filter((c) => c.kind === "activity" && c.body.type === "message");
  return calls.filter(
    (c) => c.status === 201 && (typeof match === "function" ? match(c.body.text) : c.body.text === match),
  );
}

const waitForReplies = (what, match, count, deadlineMs) => waitForCount(what, () => replies(match), count, deadlineMs);

/** Each reply in `texts` arrives, and after a quiet spell it is still there exactly once. */
async function expectExactlyOnce(texts, deadlineMs = 30_000) {
  for (const text of texts) await waitForReplies(`the reply ${JSON.stringify(text)}`, text, 1, deadlineMs);
  await sleep(2000);
  for (const text of texts) assert.equal((await replies(text)).length, 1, `${text}: one reply`);
}

/** Updates the tenant's channel inbox holds for Teams (pending + handled), as channels.status counts them. */
async function storedUpdates() {
  const [account] = (await http("GET", inTenant("/v1/channels/status"))).json.channelAccounts.msteams;
  return account.pendingUpdates + account.handledUpdates;
}

async function crashAndRestart() {
  server = await killAndRestart(server, { vars: CRASH_TEST_VARS });
}

const teamsBlock = (fakeUrl, overrides = {}) => ({
  enabled: true,
  appId: APP_ID,
  appPassword: APP_PASSWORD,
  apiRoot: `${fakeUrl}/`,
  tokenUrl: `${fakeUrl}/botframework.com/oauth2/v2.0/token`,
  openIdMetadataUrl: `${fakeUrl}/v1/.well-known/openidconfiguration`,
  dmPolicy: "pairing",
  allowFrom: [ALLOWED],
  groupAllowFrom: [ALLOWED],
  teams: { [TEAM]: { channels: { [CHANNEL]: { requireMention: true } } } },
  ...overrides,
});

before(async () => {
  fake = await startFakeApi(join(HERE, "../peers/fake-msteams.mjs"), { label: "fake Bot Connector" });
  runner = await startRunner();
  server = await startServer({ vars: CRASH_TEST_VARS });
  tenant.token = await createTenantToken(server.baseUrl, tenant.id);
  const config = await http("PUT", inTenant("/v1/config"), {
    session: { dmScope: "main" },
    agents: { list: [{ id: "main", default: true, runner: { type: "webhook", url: `${runner.url}/run` } }] },
    hooks: { enabled: true, token: HOOK_TOKEN },
    delivery: { maxAttempts: 4 },
    channels: { msteams: teamsBlock(fake.url) },
  });
  assert.equal(config.status, 200, config.text);
});

after(async () => {
  await server?.stop();
  await runner?.close();
  await fake?.stop();
});

test("config: the app password goes to the secret store; the token and metadata URLs are outbound URLs", async () => {
  const read = await http("GET", inTenant("/v1/config"));
  assert.equal(read.status, 200);
  assert.ok(!read.text.includes(APP_PASSWORD), read.text);
  assert.deepEqual(read.json.config.channels.msteams.appPassword, {
    source: "store",
    provider: "default",
    id: "MSTEAMS_APP_PASSWORD",
  });
  const status = await http("GET", inTenant("/v1/channels/status"));
  assert.equal(status.status, 200, status.text);
  assert.deepEqual(status.json.channels.msteams, { configured: true, running: true, mode: "webhook" });
  for (const key of ["apiRoot", "tokenUrl", "openIdMetadataUrl"]) {
    const refused = await http("PATCH", inTenant("/v1/config"), {
      channels: { msteams: { [key]: "http://169.254.169.254/keys" } },
    });
    assert.equal(refused.status, 400, `${key}: ${refused.text}`);
    assert.match(refused.text, new RegExp(`channels\\.msteams\\.${key}`));
  }
});

test("the endpoint's answers: no, forged or expired token 401; a conversationUpdate 200 unstored; keys unreachable 503", async () => {
  const storedBefore = await storedUpdates();
  const unsigned = await fetch(endpoint(), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(dm("unsigned")),
  });
  assert.equal(unsigned.status, 401);
  assert.equal((await post(dm("forged"), { wrongKey: true })).status, 401);
  const hourAgo = Math.floor(Date.now() / 1000) - 3600;
  assert.equal((await post(dm("expired"), { claims: { exp: hourAgo } })).status, 401);
  assert.equal((await post(dm("for another bot"), { claims: { aud: "another-app" } })).status, 401);
  assert.equal((await post({ ...dm(""), type: "conversationUpdate", membersAdded: [{ id: "29:x" }] })).status, 200);
  // The metadata URL moved to a closed port: the Bot Connector is told to retry (503), nothing stored.
  const moved = await http("PATCH", inTenant("/v1/config"), {
    channels: { msteams: { openIdMetadataUrl: "http://127.0.0.1:9/v1/.well-known/openidconfiguration" } },
  });
  assert.equal(moved.status, 200, moved.text);
  assert.equal((await post(dm("keys down"))).status, 503);
  const back = await http("PATCH", inTenant("/v1/config"), {
    channels: { msteams: { openIdMetadataUrl: `${fake.url}/v1/.well-known/openidconfiguration` } },
  });
  assert.equal(back.status, 200, back.text);
  await sleep(1500);
  assert.equal((await replies(() => true)).length, 0, "nothing was sent for any of these");
  assert.equal(await storedUpdates(), storedBefore, "nothing was stored");
  assert.ok(!runner.seen.some((m) => /unsigned|forged|expired|another bot|keys down/.test(m)), "no turn ran");
});

test("pairing: one code, silence until approved, then a DM is a turn with typing and a reply", async () => {
  const stranger = "aad-stranger";
  assert.equal((await post(dm("hello", { aad: stranger }))).status, 200);
  const [pairing] = await waitForReplies("pairing code", (text) => /access not configured/.test(text));
  assert.equal(pairing.conversationId, `a:dm-${stranger}`);
  const code = /Pairing code:\n\n```\n([A-Z0-9]{8})\n```/.exec(pairing.body.text)?.[1];
  assert.ok(code, pairing.body.text);
  assert.equal((await post(dm("hello again", { aad: stranger }))).status, 200);
  await sleep(1500);
  assert.equal((await replies((t) => /access not configured/.test(t))).length, 1, "no second code");
  const approved = await http("POST", inTenant("/v1/channels/msteams/pairing/approve"), { code });
  assert.equal(approved.status, 200, approved.text);
  assert.equal((await post(dm("after approval", { aad: stranger }))).status, 200);
  const [reply] = await waitForReplies("the reply", "ECHO: after approval");
  assert.equal(reply.conversationId, `a:dm-${stranger}`);
  assert.equal(reply.body.textFormat, "markdown");
  const typing = (await fake.calls()).filter((c) => c.kind === "activity" && c.body.type === "typing");
  assert.ok(
    typing.some((c) => c.conversationId === `a:dm-${stranger}`),
    "typing before the reply",
  );
});

test("a channel and a group chat: without a mention nothing; with one, a reply (in a channel, in the post's thread)", async () => {
  assert.equal((await post(channelPost("nobody asked me", { mention: false }))).status, 200);
  assert.equal((await post(groupMessage("group chatter", { mention: false }))).status, 200);
  const asked = channelPost("channel question", { mention: true });
  assert.equal((await post(asked)).status, 200);
  assert.equal((await post(groupMessage("group question", { mention: true }))).status, 200);
  const [reply] = await waitForReplies("the thread reply", "ECHO: channel question");
  assert.equal(reply.conversationId, `${CHANNEL};messageid=${asked.id}`);
  assert.equal(reply.body.replyToId, asked.id);
  const [groupReply] = await waitForReplies("the group reply", "ECHO: group question");
  assert.equal(groupReply.conversationId, GROUP_CHAT);
  assert.equal(groupReply.body.replyToId, undefined);
  await sleep(1000);
  for (const unasked of ["nobody asked me", "group chatter"])
    assert.ok(!runner.seen.includes(unasked), `${unasked}: an unmentioned message is no turn`);
  const keys = (await http("GET", inTenant("/v1/sessions?limit=200"))).json.sessions.map((s) => s.key);
  for (const key of [`channel:${CHANNEL.toLowerCase()}`, `group:${GROUP_CHAT.toLowerCase()}`])
    assert.ok(keys.includes(`agent:main:msteams:${key}`), JSON.stringify(keys));
});

test("duplicates: the same activity again, and five concurrent posts of one activity, give one reply", async () => {
  const once = dm("dup sequential");
  const burst = dm("dup concurrent");
  const statuses = [(await post(once)).status, (await post(once)).status];
  statuses.push(...(await Promise.all([1, 2, 3, 4, 5].map(() => post(burst)))).map((answer) => answer.status));
  assert.ok(
    statuses.every((status) => status === 200),
    `every delivery answered 200: ${statuses}`,
  );
  await expectExactlyOnce(["ECHO: dup sequential", "ECHO: dup concurrent"]);
});

test("replies: Markdown as is (textFormat markdown), a long reply in parts of at most 4,000 characters", async () => {
  await post(dm("MARKDOWN please"));
  await waitForReplies("markdown", "# Done\n**bold** and `code`\n- one");
  await post(dm("LONG please"));
  const parts = await waitForReplies("long parts", (t) => t.startsWith("row "), 3);
  assert.ok(parts.every((p) => p.body.text.length <= 4000));
  const rows = parts.flatMap((p) => p.body.text.split("\n")).filter((row) => row !== "");
  assert.deepEqual(rows, runner.long.split("\n"), "every row, each once, in order");
});

test("a 500 from the Bot Connector is retried, and the reply arrives once", async () => {
  // Two failures: the typing activity may take the first; the reply meets at least one.
  await fake.fail({ path: "activities", count: 2, status: 500 });
  await post(dm("after a 500"));
  await expectExactlyOnce(["ECHO: after a 500"], 60_000);
  const failed = (await fake.calls()).filter((c) => c.body?.text === "ECHO: after a 500" && c.status === 500);
  assert.ok(failed.length >= 1, "the first attempt met the 500");
});

test("a hook delivery to a Teams conversation reaches it", async () => {
  const res = await fetch(`${server.baseUrl}${inTenant("/hooks/agent")}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${HOOK_TOKEN}` },
    body: JSON.stringify({
      message: "hook says hi",
      name: "ci",
      channel: "msteams",
      to: `conversation:a:dm-${ALLOWED}`,
    }),
  });
  assert.equal(res.status, 200, await res.text());
  const [reply] = await waitForReplies("the hook's reply", (text) => /hook says hi/.test(text));
  assert.equal(reply.conversationId, `a:dm-${ALLOWED}`);
});

test("SIGKILL mid-run and right after a 200: one reply each, never two, never none", { timeout: 240_000 }, async () => {
  // One crash covers both (one restart keeps the file short): a slow turn in its run, and a
  // second message of the same session accepted (200) behind it, not yet run.
  assert.equal((await post(dm("slow and killed mid-run"))).status, 200);
  const inRun = async () => ({ done: runner.seen.includes("slow and killed mid-run") });
  await waitFor("the runner has the turn", inRun, 30_000);
  assert.equal((await post(dm("killed after ingress"))).status, 200);
  await crashAndRestart();
  await expectExactlyOnce(["ECHO: slow and killed mid-run", "ECHO: killed after ingress"], 120_000);
});
