// Slack in HTTP (Request URL) mode against a real `wrangler dev`, with the fake Slack Web API of
// ../shared/peer/channels (test/peers/fake-slack.mjs, its own process on a free port) and a
// webhook runner here that answers `ECHO: <message>` (slowly for messages containing "slow";
// `LONG(n)` and `MDSAMPLE` as the recordings' mock model). Events are signed as Slack signs them.
// What the real gateway does is in that folder's SPEC.md §4; docs/channels.md has the comparison.
// Every reply must reach the fake exactly once: across duplicates (the same event id, the
// message + app_mention pair), concurrency, a 500 from chat.postMessage and a SIGKILL of the
// whole server between ingress and reply.
// Run with `node --test test/e2e/channels-slack.e2e.mjs`.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startFakeApi } from "../../bench/lib/channel-peers.mjs";
import { killAllServersNow, killAndRestart, startServer } from "../../bench/lib/server.mjs";
import { connectGateway } from "./gateway-rpc.mjs";
import { CRASH_TEST_VARS, createTenantToken, httpJson, listenLoopback, waitFor, waitForCount } from "./http-json.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const BOT_TOKEN = "xoxb-test-0000-fake";
const SIGNING_SECRET = "slack-signing-secret-0123456789abcdef";
const TEAM = "T0TEST";
const BOT_USER = "U0BOT";
const SLOW_RUNNER_MS = 2500;
const MD_SAMPLE = "**bold** and `code` and [link](https://example.com)\n\n- item 1\n- item 2";

process.once("exit", killAllServersNow);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let server;
let fake;
let runner;
const tenant = { id: `sl-${crypto.randomUUID().slice(0, 8)}`, token: "" };
const inTenant = (path) => `/t/${tenant.id}${path}`;

function http(method, path, body) {
  return httpJson(server.baseUrl, method, path, { authorization: `Bearer ${tenant.token}`, body, timeoutMs: 20_000 });
}

/** The fake Slack Web API in its own process (as the recordings ran it). */
async function startFakeSlack() {
  const api = await startFakeApi(join(HERE, "../peers/fake-slack.mjs"), { label: "fake Slack" });
  return {
    apiRoot: `${api.url}/api/`,
    calls: async (method) => (await api.calls()).filter((c) => !method || c.method === method),
    fail: (method, count, error, status) => api.fail({ method, count, error, status }),
    stop: api.stop,
  };
}

/** The recordings' mock model: LONG(n) numbered filler lines, MDSAMPLE, else `ECHO: <message>`. */
function replyTo(message) {
  const long = /LONG\((\d+)\)/.exec(message);
  if (long) {
    let out = "";
    for (let i = 1; out.length < Number(long[1]); i++)
      out += `line ${String(i).padStart(4, "0")} lorem ipsum dolor sit amet consectetur.\n`;
    return out.slice(0, Number(long[1]));
  }
  if (/\bMDSAMPLE\b/.test(message)) return MD_SAMPLE;
  return `ECHO: ${message}`;
}

function startRunner() {
  const seen = [];
  const srv = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const run = JSON.parse(body);
    const message = String(run.input?.message ?? "");
    seen.push(message);
    if (message.includes("slow")) await sleep(SLOW_RUNNER_MS);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ reply: replyTo(message) }));
  });
  return listenLoopback(srv, { seen });
}

let nextEvent = Date.now() % 1_000_000_000;
let nextTs = 0;
const ts = () => `${Math.floor(Date.now() / 1000)}.${String(++nextTs).padStart(6, "0")}`;

/** An Events API envelope as drive-slack.mjs builds it. */
function envelope(event, extra = {}) {
  return {
    token: "legacy-verification-token",
    team_id: TEAM,
    api_app_id: "A0TEST",
    event,
    type: "event_callback",
    event_id: `Ev${String(++nextEvent).padStart(10, "0")}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ enterprise_id: null, team_id: TEAM, user_id: BOT_USER, is_bot: true }],
    ...extra,
  };
}

function message(channel, user, text, { threadTs, mention = false } = {}) {
  const t = ts();
  const body = mention ? `<@${BOT_USER}> ${text}` : text;
  return {
    type: "message",
    channel,
    user,
    text: body,
    ts: t,
    event_ts: t,
    channel_type: channel.startsWith("D") ? "im" : "channel",
    team: TEAM,
    ...(threadTs ? { thread_ts: threadTs } : {}),
  };
}
const dm = (text, opts) => envelope(message("D0ALICE", "U0ALICE", text, opts));
const inChannel = (channel, text, opts) => envelope(message(channel, "U0BOB", text, opts));

function sign(body, { secret = SIGNING_SECRET, at = Math.floor(Date.now() / 1000) } = {}) {
  const signature = `v0=${createHmac("sha256", secret).update(`v0:${at}:${body}`).digest("hex")}`;
  return { "x-slack-signature": signature, "x-slack-request-timestamp": String(at) };
}

async function post(payload, { raw, headers, signOpts, unsigned = false, contentType = "application/json" } = {}) {
  const body = raw ?? JSON.stringify(payload);
  const res = await fetch(`${server.baseUrl}${inTenant("/slack/events")}`, {
    method: "POST",
    headers: { "content-type": contentType, ...(unsigned ? {} : sign(body, signOpts)), ...headers },
    body,
  });
  return { status: res.status, text: await res.text(), type: res.headers.get("content-type") };
}

/** chat.postMessage calls that succeeded, whose text is exactly / matches `match`. */
async function posts(match) {
  const calls = await fake.calls("chat.postMessage");
  return calls.filter(
    (c) => c.status === 200 && c.reply.ok && (typeof match === "function" ? match(c.body) : c.body.text === match),
  );
}

const waitForPosts = (what, match, count, deadlineMs) => waitForCount(what, () => posts(match), count, deadlineMs);

async function sessionRow(key) {
  const res = await http("GET", inTenant(`/v1/sessions?limit=200`));
  assert.equal(res.status, 200, res.text);
  return res.json.sessions.find((s) => s.key === key);
}

async function crashAndRestart() {
  server = await killAndRestart(server, { vars: CRASH_TEST_VARS });
}

const SLACK_CONFIG = () => ({
  enabled: true,
  mode: "http",
  botToken: BOT_TOKEN,
  signingSecret: SIGNING_SECRET,
  webhookPath: "/slack/events",
  apiRoot: fake.apiRoot,
  dmPolicy: "pairing",
  allowFrom: [],
  groupPolicy: "open",
  channels: { C0OPEN: { requireMention: false }, C0MENTION: { requireMention: true } },
});

before(async () => {
  fake = await startFakeSlack();
  runner = await startRunner();
  server = await startServer({ vars: CRASH_TEST_VARS });
  tenant.token = await createTenantToken(server.baseUrl, tenant.id);
  const config = await http("PUT", inTenant("/v1/config"), {
    gateway: { tools: { allow: ["sessions_send"] } },
    tools: { sessions: { visibility: "agent" } },
    session: { dmScope: "main", agentToAgent: { maxPingPongTurns: 0 } },
    agents: { list: [{ id: "main", default: true, runner: { type: "webhook", url: `${runner.url}/run` } }] },
    channels: { slack: SLACK_CONFIG() },
  });
  assert.equal(config.status, 200, config.text);
});

after(async () => {
  await server?.stop();
  await runner?.close();
  await fake?.stop();
});

test("config: botToken and signingSecret go to the secret store, no read returns them; apiRoot is an outbound URL", async () => {
  const read = await http("GET", inTenant("/v1/config"));
  assert.equal(read.status, 200);
  assert.ok(!read.text.includes(BOT_TOKEN) && !read.text.includes(SIGNING_SECRET), read.text);
  assert.deepEqual(read.json.config.channels.slack.botToken, {
    source: "store",
    provider: "default",
    id: "SLACK_BOT_TOKEN",
  });
  assert.deepEqual(read.json.config.channels.slack.signingSecret, {
    source: "store",
    provider: "default",
    id: "SLACK_SIGNING_SECRET",
  });
  const refused = await http("PUT", inTenant("/v1/config"), {
    channels: { slack: { enabled: true, mode: "http", apiRoot: "http://169.254.169.254/api/" } },
  });
  assert.equal(refused.status, 400);
  assert.match(refused.text, /channels\.slack\.apiRoot: 169\.254\.169\.254 is a link-local address/);
});

test("the Request URL's answers: url_verification, 401 (unsigned, wrong secret, other body, stale AND future), 400, 404, 405", async () => {
  const challenge = JSON.stringify({ token: "x", challenge: "chal-123", type: "url_verification" });
  const verified = await post(null, { raw: challenge });
  assert.deepEqual([verified.status, JSON.parse(verified.text)], [200, { challenge: "chal-123" }]);
  assert.match(verified.type, /application\/json/);
  assert.deepEqual([(await post(null, { raw: challenge, unsigned: true })).status], [401]);

  const event = dm("auth probe");
  const body = JSON.stringify(event);
  const now = Math.floor(Date.now() / 1000);
  for (const [what, options] of [
    ["no signature", { unsigned: true }],
    ["wrong secret", { signOpts: { secret: "wrong" } }],
    ["10 minutes old", { signOpts: { at: now - 600 } }],
    ["10 minutes ahead (the real gateway processes it)", { signOpts: { at: now + 600 } }],
    ["6 minutes ahead", { signOpts: { at: now + 360 } }],
    ["another body's signature", { headers: sign(`${body} `) }],
  ]) {
    const res = await post(event, options);
    assert.deepEqual([res.status, res.text], [401, ""], what);
  }
  const badJson = await post(null, { raw: "{nope" });
  assert.deepEqual([badJson.status, badJson.text], [400, ""]);
  const form = `payload=${encodeURIComponent(JSON.stringify({ type: "block_actions", actions: [] }))}`;
  assert.equal((await post(null, { raw: form, contentType: "application/x-www-form-urlencoded" })).status, 404);
  const get = await fetch(`${server.baseUrl}${inTenant("/slack/events")}`);
  assert.deepEqual([get.status, await get.text()], [405, "Method Not Allowed"]);
  await sleep(1000);
  assert.equal((await fake.calls("chat.postMessage")).length, 0, "nothing reached Slack");
  assert.equal(runner.seen.length, 0, "no turn");
});

test("pairing: the recorded code message once, silence until approved, then the DM is a turn in agent:main:main", async () => {
  const first = await post(dm("hello from slack"));
  assert.deepEqual([first.status, first.text], [200, ""]);
  const [pairing] = await waitForPosts("pairing code", (b) => /access not configured/.test(b.text));
  const code = /Pairing code:\n\n```\n([A-Z0-9]{8})\n```/.exec(pairing.body.text)?.[1];
  assert.ok(code, pairing.body.text);
  assert.deepEqual(pairing.body, {
    channel: "D0ALICE",
    text: `OpenClaw: access not configured.\n\nYour Slack user id: U0ALICE\nPairing code:\n\n\`\`\`\n${code}\n\`\`\`\nAsk the bot owner to approve it on the Control UI's Channels page, or with:\n\n\`\`\`\nPOST /v1/channels/slack/pairing/approve {"code":"${code}"}\n\`\`\``,
    unfurl_links: "false",
  });
  assert.match(pairing.contentType, /application\/x-www-form-urlencoded/);
  assert.match(pairing.authorization, /^Bearer xoxb-/);
  await post(dm("hello again"));
  await sleep(1500);
  assert.equal((await posts((b) => /access not configured/.test(b.text))).length, 1, "no second code");
  assert.equal(runner.seen.length, 0, "no turn before approval");

  const list = await http("GET", inTenant("/v1/channels/slack/pairing"));
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(
    list.json.requests.map((r) => [r.id, r.code]),
    [["U0ALICE", code]],
  );
  const approved = await http("POST", inTenant("/v1/channels/slack/pairing/approve"), { code });
  assert.deepEqual(approved.json, {
    ok: true,
    channel: "slack",
    id: "U0ALICE",
    message: "Approved slack sender U0ALICE.",
  });

  await post(dm("paired now"));
  const [reply] = await waitForPosts("the reply", "ECHO: paired now");
  assert.deepEqual(reply.body, { channel: "D0ALICE", text: "ECHO: paired now", unfurl_links: "false" });
  assert.equal((await fake.calls("reactions.add")).length, 0, "no reaction in a DM (recorded)");
  const row = await sessionRow("agent:main:main");
  assert.equal(row.channel, "slack");
  assert.equal(row.chatType, "direct");
  assert.equal(row.lastTo, "user:U0ALICE");
  assert.deepEqual(row.deliveryContext, { channel: "slack", to: "user:U0ALICE", accountId: "default" });

  const root = ts();
  await post(dm("in a dm thread", { threadTs: root }));
  const [threaded] = await waitForPosts("the DM thread reply", "ECHO: in a dm thread");
  assert.equal(threaded.body.thread_ts, root);
  // The sessions list is the tenant's index, written behind the session's quiet window (1 s): the
  // row may trail the reply by that much, more on a loaded machine.
  await waitFor(
    "a DM thread stays in the DM's session",
    async () => {
      const threadRow = await sessionRow("agent:main:main");
      return { done: threadRow?.lastThreadId === root, lastThreadId: threadRow?.lastThreadId };
    },
    10_000,
  );
});

test("channels: top level, thread, requireMention with and without mention (👀), unlisted channel, bots ignored", async () => {
  await post(inChannel("C0OPEN", "hello open channel"));
  const [top] = await waitForPosts("the open channel's reply", "ECHO: hello open channel");
  assert.deepEqual(top.body, { channel: "C0OPEN", text: "ECHO: hello open channel", unfurl_links: "false" });
  const open = await sessionRow("agent:main:slack:channel:c0open");
  assert.equal(open.kind, "group");
  assert.equal(open.chatType, "channel");
  assert.equal(open.lastTo, "channel:C0OPEN");
  assert.deepEqual(open.deliveryContext, { channel: "slack", to: "channel:C0OPEN", accountId: "default" });

  const root = ts();
  await post(inChannel("C0OPEN", "thread reply", { threadTs: root }));
  const [threaded] = await waitForPosts("the thread reply", "ECHO: thread reply");
  assert.equal(threaded.body.thread_ts, root);
  const thread = await sessionRow(`agent:main:slack:channel:c0open:thread:${root}`);
  assert.equal(thread?.lastThreadId, root);
  assert.equal(thread.deliveryContext.threadId, root);

  await post(inChannel("C0MENTION", "no mention here"));
  const mentioned = inChannel("C0MENTION", "please help", { mention: true });
  await post(mentioned);
  await waitForPosts("the mention's reply", `ECHO: <@${BOT_USER}> please help`);
  const reactions = await fake.calls("reactions.add");
  assert.deepEqual(
    reactions.map((c) => c.body),
    [{ channel: "C0MENTION", timestamp: mentioned.event.ts, name: "eyes" }],
    "👀 on the mention only",
  );

  await post(inChannel("C0OTHER", "am I allowed", { mention: true }));
  await waitForPosts("the unlisted channel's reply (groupPolicy open)", `ECHO: <@${BOT_USER}> am I allowed`);

  const bot = inChannel("C0OPEN", "beep");
  Object.assign(bot.event, { subtype: "bot_message", bot_id: "B0OTHER", user: "U0OTHERBOT" });
  await post(bot);
  const own = inChannel("C0OPEN", "my own echo");
  Object.assign(own.event, { user: BOT_USER, bot_id: "B0BOT" });
  await post(own);
  await sleep(1500);
  for (const text of ["no mention here", "beep", "my own echo"])
    assert.equal(runner.seen.filter((m) => m.includes(text)).length, 0, text);
  assert.equal(await sessionRow("agent:main:slack:channel:c0mention").then((r) => r?.lastTo), "channel:C0MENTION");
  assert.equal((await fake.calls("auth.test")).length, 1, "auth.test once (cached), not on every event");
});

test("duplicates: the same event_id (also as a retry), five concurrent deliveries, message + app_mention: one turn, one reply each", async () => {
  const once = inChannel("C0OPEN", "dup probe one");
  assert.equal((await post(once)).status, 200);
  await waitForPosts("the first reply", "ECHO: dup probe one");
  assert.equal((await post(once)).status, 200);
  const retry = await post(once, { headers: { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" } });
  assert.equal(retry.status, 200);

  const concurrent = inChannel("C0OPEN", "concurrent once");
  const answers = await Promise.all(Array.from({ length: 5 }, () => post(concurrent)));
  assert.ok(answers.every((a) => a.status === 200));

  // One mention as Slack delivers it: a `message` and an `app_mention`, two event ids, one ts.
  const event = message("C0MENTION", "U0BOB", "double delivery", { mention: true });
  const asMessage = envelope(event);
  const asMention = envelope({ ...event, type: "app_mention", channel_type: undefined });
  await Promise.all([post(asMessage), post(asMention)]);
  // A new event first seen as a retry is processed normally. (Another member: U0BOB's messages
  // this close together would be one burst, docs/channels.md "Bursts".)
  await post(envelope(message("C0OPEN", "U0CAROL", "first seen as retry")), { headers: { "x-slack-retry-num": "2" } });

  await waitForPosts("the concurrent reply", "ECHO: concurrent once");
  await waitForPosts("the double delivery's reply", `ECHO: <@${BOT_USER}> double delivery`);
  await waitForPosts("the retry-first reply", "ECHO: first seen as retry");
  await sleep(2000);
  assert.equal((await posts("ECHO: dup probe one")).length, 1);
  assert.equal((await posts("ECHO: concurrent once")).length, 1);
  assert.equal((await posts(`ECHO: <@${BOT_USER}> double delivery`)).length, 1);
  for (const text of ["dup probe one", "concurrent once", "double delivery"])
    assert.equal(runner.seen.filter((m) => m.includes(text)).length, 1, `one turn: ${text}`);
});

test("replies: Markdown as the recorded mrkdwn, 9000 characters as 8000 + 999", async () => {
  await post(dm("MDSAMPLE"));
  await waitForPosts("the mrkdwn reply", "*bold* and `code` and <https://example.com|link>\n\n• item 1\n• item 2");
  await post(dm("LONG(9000)"));
  const parts = await waitForPosts("two parts", (b) => b.text.includes("lorem ipsum"), 2);
  assert.deepEqual(
    parts.map((p) => p.body.text.length),
    [8000, 999],
  );
  assert.ok(parts[1].body.text.startsWith("line 0161"), "split on a line boundary");
  assert.ok(parts.every((p) => p.body.channel === "D0ALICE" && p.body.unfurl_links === "false"));
});

test("session.dmScope: the recorded DM keys for all four values (ids lower-cased)", async () => {
  const setScope = async (dmScope) => {
    const current = await http("GET", inTenant("/v1/config"));
    const config = { ...current.json.config, session: { ...current.json.config.session, dmScope } };
    const res = await http("PUT", inTenant("/v1/config"), config);
    assert.equal(res.status, 200, res.text);
  };
  for (const [dmScope, key] of [
    ["per-channel-peer", "agent:main:slack:direct:u0alice"],
    ["per-account-channel-peer", "agent:main:slack:default:direct:u0alice"],
    ["per-peer", "agent:main:direct:u0alice"],
    ["main", "agent:main:main"],
  ]) {
    await setScope(dmScope);
    await post(dm(`scope ${dmScope}`));
    await waitForPosts(`the ${dmScope} reply`, `ECHO: scope ${dmScope}`);
    const row = await sessionRow(key);
    assert.ok(row, `${dmScope} → ${key}`);
    assert.equal(row.lastTo, "user:U0ALICE");
  }
});

test("a 500 from chat.postMessage is retried, and the reply arrives once", async () => {
  await fake.fail("chat.postMessage", 1, "internal_error", 500);
  await post(inChannel("C0OPEN", "after a failure"));
  await waitForPosts("the retried reply", "ECHO: after a failure", 1, 30_000);
  const failed = (await fake.calls("chat.postMessage")).filter((c) => c.status === 500);
  assert.equal(failed.length, 1);
  assert.equal(failed[0].body.text, "ECHO: after a failure");
  await sleep(2500);
  assert.equal((await posts("ECHO: after a failure")).length, 1);
});

test("SIGKILL between ingress and reply: one reply, never two, never none", { timeout: 180_000 }, async () => {
  // Killed right after the 200 (the event is only in the inbox).
  assert.equal((await post(inChannel("C0OPEN", "killed after ingress"))).status, 200);
  await crashAndRestart();
  // Killed while the run waits on the slow runner (turn started, no reply yet).
  assert.equal((await post(inChannel("C0OPEN", "slow and killed mid-run"))).status, 200);
  await waitFor(
    "the runner has the turn",
    async () => ({ done: runner.seen.includes("slow and killed mid-run") }),
    30_000,
  );
  await crashAndRestart();
  await waitForPosts("reply 1", "ECHO: killed after ingress", 1, 90_000);
  await waitForPosts("reply 2", "ECHO: slow and killed mid-run", 1, 120_000);
  await sleep(3000);
  assert.equal((await posts("ECHO: killed after ingress")).length, 1);
  assert.equal((await posts("ECHO: slow and killed mid-run")).length, 1);
});

test("announce: sessions_send into a Slack channel session posts the announce step to the channel", async () => {
  const res = await http("POST", inTenant("/tools/invoke"), {
    tool: "sessions_send",
    sessionKey: "agent:main:ops",
    args: { sessionKey: "agent:main:slack:channel:c0open", message: "status update from ops", timeoutSeconds: 0 },
  });
  assert.equal(res.status, 200, res.text);
  const [announce] = await waitForPosts("the announce", "ECHO: Agent-to-agent announce step.", 1, 60_000);
  assert.equal(announce.body.channel, "C0OPEN");
  assert.equal((await posts("ECHO: status update from ops")).length, 0, "the first reply is not posted (recorded)");
});

test("the Control UI's Channels page: channels.status lists Slack; a pairing approved with channels.pairing.*", async () => {
  const gateway = await connectGateway(`${server.baseUrl.replace(/^http/, "ws")}/t/${tenant.id}`, tenant.token);
  try {
    const status = await gateway.call("channels.status", {});
    assert.ok(status.ok, JSON.stringify(status.error));
    assert.ok(status.payload.channelOrder.includes("slack"));
    assert.deepEqual(status.payload.channels.slack, { configured: true, running: true, mode: "http" });

    await post(envelope(message("D0CAROL", "U0CAROL", "let me in")));
    await waitForPosts("carol's code", (b) => b.channel === "D0CAROL" && /Pairing code/.test(b.text));
    const list = await gateway.call("channels.pairing.list", { channel: "slack" });
    assert.ok(list.ok, JSON.stringify(list.error));
    const request = list.payload.requests.find((r) => r.senderId === "U0CAROL");
    assert.equal(request?.senderLabel, "slackUserId");
    const approved = await gateway.call("channels.pairing.approve", {
      channel: "slack",
      accountId: "default",
      requestId: request.requestId,
    });
    assert.ok(approved.ok, JSON.stringify(approved.error));
    await post(envelope(message("D0CAROL", "U0CAROL", "thanks")));
    const [reply] = await waitForPosts("carol's reply", "ECHO: thanks");
    // A reply to a `user:` route opens the DM (conversations.open) and posts there.
    assert.equal(reply.body.channel, "D0CAROL");
  } finally {
    gateway.close();
  }
});

test("figures: Request URL answer and inbound event → chat.postMessage, 20 channel messages one after another", async (t) => {
  const answerMs = [];
  const replyMs = [];
  for (let i = 0; i < 20; i++) {
    const text = `latency probe ${i}`;
    const started = Date.now();
    const answer = await post(inChannel("C0OPEN", text));
    answerMs.push(Date.now() - started);
    assert.equal(answer.status, 200);
    const [reply] = await waitForPosts(`probe ${i}`, `ECHO: ${text}`, 1, 30_000);
    replyMs.push(reply.t - started);
  }
  const pct = (values, p) =>
    [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
  const line = `200 p50 ${pct(answerMs, 0.5)} ms p99 ${pct(answerMs, 0.99)} ms; event → chat.postMessage p50 ${pct(replyMs, 0.5)} ms p99 ${pct(replyMs, 0.99)} ms (webhook runner on loopback, wrangler dev)`;
  t.diagnostic(line);
  console.log(line);
});
