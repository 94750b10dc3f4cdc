// Telegram over webhooks against a real `wrangler dev`, with the fake Bot API of
// ../shared/peer/channels (test/peers/fake-telegram.mjs, its own process on a free port) and a
// webhook runner here that answers `ECHO: <message>` (slowly for messages containing "slow").
// What the real gateway does is in that folder's SPEC.md; docs/channels.md has the comparison.
// Every reply must reach the fake exactly once: across duplicates, concurrency, a 500 from
// sendMessage and a SIGKILL of the whole server between ingress and reply.
// Run with `node --test test/e2e/channels-telegram.e2e.mjs`.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startFakeApi } from "../../bench/lib/channel-peers.mjs";
import { killAllServersNow, killAndRestart, startServer } from "../../bench/lib/server.mjs";
import { connectGateway } from "./gateway-rpc.mjs";
import { CRASH_TEST_VARS, createTenantToken, httpJson, listenLoopback, waitFor, waitForCount } from "./http-json.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const BOT_TOKEN = "123456789:TEST-fake-telegram-token";
const SECRET = "tg-webhook-secret-0123456789";
const DM_USER = 555100;
const MENTION_GROUP = -1001111111111;
const OPEN_GROUP = -1002222222222;
const FORUM_GROUP = -1003333333333;
const SLOW_RUNNER_MS = 2500;
/** A "lingering" turn's run: long enough for two typing repeats (every 5 s) before its reply. */
const LINGERING_RUNNER_MS = 12_000;
const HOOK_TOKEN = "hook-token-0123456789";

process.once("exit", killAllServersNow);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let server;
let fake;
let runner;
const tenant = { id: `tg-${crypto.randomUUID().slice(0, 8)}`, token: "" };
const inTenant = (path) => `/t/${tenant.id}${path}`;

function http(method, path, body) {
  return httpJson(server.baseUrl, method, path, { authorization: `Bearer ${tenant.token}`, body, timeoutMs: 20_000 });
}

/** The fake Bot API in its own process (as the recordings ran it). */
async function startFakeTelegram() {
  const api = await startFakeApi(join(HERE, "../peers/fake-telegram.mjs"), {
    env: { TG_TOKEN: BOT_TOKEN },
    label: "fake Telegram",
  });
  return {
    url: api.url,
    calls: async (method) => (await api.calls()).filter((c) => !method || c.method === method),
    fail: (method, count, error_code, description, parameters) =>
      api.fail({ method, count, error_code, description, ...(parameters ? { parameters } : {}) }),
    stop: api.stop,
  };
}

/** A webhook runner: `ECHO: <message>`; messages with "slow" take SLOW_RUNNER_MS, "lingering" LINGERING_RUNNER_MS. */
function startRunner() {
  const seen = [];
  const srv = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const run = JSON.parse(body);
    const message = String(run.input?.message ?? "");
    seen.push(message);
    if (message.includes("slow")) await sleep(SLOW_RUNNER_MS);
    if (message.includes("lingering")) await sleep(LINGERING_RUNNER_MS);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ reply: `ECHO: ${message}` }));
  });
  return listenLoopback(srv, { seen });
}

let nextUpdateId = 700_000;
let nextMessageId = 100;

function dm(text, { from = DM_USER } = {}) {
  return {
    update_id: nextUpdateId++,
    message: {
      message_id: nextMessageId++,
      from: { id: from, is_bot: false, first_name: `User${from}`, username: `user${from}` },
      chat: { id: from, type: "private", first_name: `User${from}` },
      date: Math.floor(Date.now() / 1000),
      text,
    },
  };
}

function groupMessage(chatId, text, extra = {}) {
  const mention = text.indexOf("@chan_test_bot");
  return {
    update_id: nextUpdateId++,
    message: {
      message_id: nextMessageId++,
      from: { id: 777001, is_bot: false, first_name: "Member", username: "member" },
      chat: { id: chatId, type: "supergroup", title: `Group ${chatId}` },
      date: Math.floor(Date.now() / 1000),
      text,
      ...(mention >= 0 ? { entities: [{ type: "mention", offset: mention, length: 14 }] } : {}),
      ...extra,
    },
  };
}

async function post(update, { secret = SECRET, raw } = {}) {
  const res = await fetch(`${server.baseUrl}${inTenant("/telegram-webhook")}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(secret ? { "x-telegram-bot-api-secret-token": secret } : {}) },
    body: raw ?? JSON.stringify(update),
  });
  return { status: res.status, text: await res.text(), durable: res.headers.get("x-openclaw-delivery-accepted") };
}

/** sendMessage calls whose text is exactly / contains `text`. */
async function sends(match) {
  const calls = await fake.calls("sendMessage");
  return calls.filter((c) => c.status === 200 && (typeof match === "function" ? match(c.body) : c.body.text === match));
}

const waitForSends = (what, match, count, deadlineMs) => waitForCount(what, () => sends(match), count, deadlineMs);

async function sessionRow(key) {
  const res = await http("GET", inTenant(`/v1/sessions?limit=200`));
  assert.equal(res.status, 200, res.text);
  return res.json.sessions.find((s) => s.key === key);
}

async function crashAndRestart() {
  server = await killAndRestart(server, { vars: CRASH_TEST_VARS });
}

before(async () => {
  fake = await startFakeTelegram();
  runner = await startRunner();
  server = await startServer({ vars: CRASH_TEST_VARS });
  tenant.token = await createTenantToken(server.baseUrl, tenant.id);
  const config = await http("PUT", inTenant("/v1/config"), {
    gateway: { tools: { allow: ["sessions_send", "sessions_spawn"] } },
    tools: { sessions: { visibility: "agent" } },
    session: { dmScope: "main", agentToAgent: { maxPingPongTurns: 0 } },
    agents: { list: [{ id: "main", default: true, runner: { type: "webhook", url: `${runner.url}/run` } }] },
    hooks: { enabled: true, token: HOOK_TOKEN },
    channels: {
      telegram: {
        enabled: true,
        botToken: BOT_TOKEN,
        apiRoot: fake.url,
        webhookSecret: SECRET,
        webhookPath: "/telegram-webhook",
        // Keys of a pasted openclaw.json that only steer the real gateway's own listener.
        webhookHost: "127.0.0.1",
        webhookPort: 18692,
        dmPolicy: "pairing",
        allowFrom: [],
        groupPolicy: "open",
        groups: {
          [MENTION_GROUP]: { requireMention: true },
          [OPEN_GROUP]: { requireMention: false },
          [FORUM_GROUP]: { requireMention: false },
        },
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

test("config: tokens are moved to the secret store and no read returns them; apiRoot is an outbound URL", async () => {
  const read = await http("GET", inTenant("/v1/config"));
  assert.equal(read.status, 200);
  assert.ok(!read.text.includes(BOT_TOKEN) && !read.text.includes(SECRET), read.text);
  assert.deepEqual(read.json.config.channels.telegram.botToken, {
    source: "store",
    provider: "default",
    id: "TELEGRAM_BOT_TOKEN",
  });
  const refused = await http("PUT", inTenant("/v1/config"), {
    channels: { telegram: { enabled: true, apiRoot: "http://169.254.169.254" } },
  });
  assert.equal(refused.status, 400);
  assert.match(refused.text, /channels\.telegram\.apiRoot: 169\.254\.169\.254 is a link-local address/);
});

test("setWebhook registers the tenant's URL and secret", async () => {
  const res = await http("POST", inTenant("/v1/channels/telegram/webhook"));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.ok, true);
  const [call] = await fake.calls("setWebhook");
  assert.equal(call.body.url, `${server.baseUrl}/t/${tenant.id}/telegram-webhook`);
  assert.equal(call.body.secret_token, SECRET);
});

test("the webhook's answers: wrong or missing secret, empty, invalid JSON, no update_id", async () => {
  for (const secret of ["wrong", null]) {
    const res = await post(dm("hi"), { secret });
    assert.deepEqual([res.status, res.text, res.durable], [401, "unauthorized", null]);
  }
  assert.deepEqual((await post(null, { raw: "" })).text, "empty payload");
  const bad = await post(null, { raw: "{x" });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /JSON/);
  const array = await post(null, { raw: "[1]" });
  assert.deepEqual([array.status, array.text, array.durable], [500, "", null]);
  assert.equal((await fake.calls("sendMessage")).length, 0, "nothing reached Telegram");
});

test("pairing: one code, silence until approved, then the DM is a turn in agent:main:main", async () => {
  const first = await post(dm("hello"));
  assert.deepEqual([first.status, first.text, first.durable], [200, "", "durable"]);
  const [pairing] = await waitForSends("pairing code", (b) => /access not configured/.test(b.text));
  assert.equal(pairing.body.chat_id, DM_USER, "chat_id is a number here (recorded)");
  assert.equal(pairing.body.parse_mode, "HTML");
  const code = /<pre><code>([A-Z0-9]{8})\n<\/code><\/pre>/.exec(pairing.body.text)?.[1];
  assert.ok(code, pairing.body.text);
  assert.equal(
    pairing.body.text,
    `OpenClaw: access not configured.\n\nYour Telegram user id: ${DM_USER}\nPairing code:\n\n<pre><code>${code}\n</code></pre>\nAsk the bot owner to approve it on the Control UI's Channels page, or with:\n\n<pre><code>POST /v1/channels/telegram/pairing/approve {"code":"${code}"}\n</code></pre>`,
  );
  await post(dm("hello again"));
  await sleep(1500);
  assert.equal((await sends((b) => /access not configured/.test(b.text))).length, 1, "no second code");
  assert.equal(runner.seen.length, 0, "no turn before approval");

  const list = await http("GET", inTenant("/v1/channels/telegram/pairing"));
  assert.equal(list.json.requests.length, 1);
  assert.equal(list.json.requests[0].id, String(DM_USER));
  assert.equal(list.json.requests[0].code, code);
  const approved = await http("POST", inTenant("/v1/channels/telegram/pairing/approve"), { code });
  assert.equal(approved.status, 200, approved.text);
  assert.equal(
    (await http("POST", inTenant("/v1/channels/telegram/pairing/approve"), { code: "NOPE1234" })).status,
    404,
  );

  await post(dm("now I am paired"));
  const [reply] = await waitForSends("the reply", "ECHO: now I am paired");
  assert.equal(reply.body.chat_id, String(DM_USER), "chat_id is a string in replies (recorded)");
  assert.equal(reply.body.parse_mode, "HTML");
  const typing = (await fake.calls("sendChatAction")).find((c) => c.body.chat_id === DM_USER);
  assert.ok(typing && typing.seq < reply.seq, "typing before the reply");
  const row = await sessionRow("agent:main:main");
  assert.equal(row.lastChannel, "telegram");
  assert.equal(row.lastTo, `telegram:${DM_USER}`);
  assert.deepEqual(row.deliveryContext, { channel: "telegram", to: `telegram:${DM_USER}`, accountId: "default" });
});

test("duplicates: the same update_id again, and five concurrent POSTs of one update, give one turn and one reply", async () => {
  const update = dm("once only");
  assert.equal((await post(update)).durable, "durable");
  await waitForSends("the first reply", "ECHO: once only");
  const again = await post({ ...update, message: { ...update.message, text: "other text" } });
  assert.deepEqual([again.status, again.durable], [200, "durable"]);

  const concurrent = dm("concurrent once");
  const answers = await Promise.all(Array.from({ length: 5 }, () => post(concurrent)));
  assert.ok(answers.every((a) => a.status === 200 && a.durable === "durable"));
  await waitForSends("the concurrent reply", "ECHO: concurrent once");
  await sleep(2000);
  assert.equal((await sends("ECHO: once only")).length, 1);
  assert.equal((await sends("ECHO: other text")).length, 0);
  assert.equal((await sends("ECHO: concurrent once")).length, 1);
  assert.equal(runner.seen.filter((m) => m === "concurrent once").length, 1, "one turn");
});

test("groups: no mention is ignored, a mention gets typing + 👀 + reply, requireMention:false answers, unlisted groups are ignored", async () => {
  await post(groupMessage(MENTION_GROUP, "no mention here"));
  await post(groupMessage(-1009999999999, "@chan_test_bot unlisted"));
  const mentioned = groupMessage(MENTION_GROUP, "@chan_test_bot please answer");
  await post(mentioned);
  const [reply] = await waitForSends("the mention's reply", "ECHO: @chan_test_bot please answer");
  assert.equal(reply.body.chat_id, String(MENTION_GROUP));
  const reaction = (await fake.calls("setMessageReaction")).find((c) => c.body.chat_id === MENTION_GROUP);
  assert.deepEqual(reaction?.body, {
    chat_id: MENTION_GROUP,
    message_id: mentioned.message.message_id,
    reaction: [{ type: "emoji", emoji: "👀" }],
  });
  // A reply to the bot's message counts as a mention.
  await post(
    groupMessage(MENTION_GROUP, "answering you", {
      reply_to_message: { message_id: 1, from: { id: 123456789, is_bot: true } },
    }),
  );
  await waitForSends("the reply-to-bot's reply", "ECHO: answering you");

  await post(groupMessage(OPEN_GROUP, "open group talk"));
  await waitForSends("the open group's reply", "ECHO: open group talk");
  assert.ok(!(await fake.calls("setMessageReaction")).some((c) => c.body.chat_id === OPEN_GROUP), "no reaction");
  await sleep(1000);
  assert.equal((await sends("ECHO: no mention here")).length, 0);
  assert.equal((await sends((b) => /unlisted/.test(b.text))).length, 0);
  const group = await sessionRow(`agent:main:telegram:group:${MENTION_GROUP}`);
  assert.equal(group.kind, "group");
  assert.equal(group.lastTo, `telegram:${MENTION_GROUP}`);
  assert.equal(await sessionRow(`agent:main:telegram:group:-1009999999999`), undefined);
});

test("forum topic: its own session, replies carry message_thread_id", async () => {
  await post(
    groupMessage(FORUM_GROUP, "in a topic", {
      message_thread_id: 42,
      is_topic_message: true,
      chat: { id: FORUM_GROUP, type: "supergroup", is_forum: true },
    }),
  );
  const [reply] = await waitForSends("the topic reply", "ECHO: in a topic");
  assert.equal(reply.body.message_thread_id, 42);
  const row = await sessionRow(`agent:main:telegram:group:${FORUM_GROUP}:topic:42`);
  assert.ok(row, "topic session");
  assert.equal(row.lastThreadId, 42);
  assert.equal(row.deliveryContext.threadId, 42);
});

test("typing is kept alive while a long run works (every ~5 s, in its topic) and stops with the reply", async (t) => {
  const inTopic = (c) => c.body.chat_id === FORUM_GROUP && c.body.message_thread_id === 43;
  await post(
    groupMessage(FORUM_GROUP, "lingering question", {
      message_thread_id: 43,
      is_topic_message: true,
      chat: { id: FORUM_GROUP, type: "supergroup", is_forum: true },
    }),
  );
  const [reply] = await waitForSends("the lingering reply", "ECHO: lingering question", 1, 60_000);
  // Anything sent after the reply would arrive within one more interval: wait past it.
  await sleep(7_000);
  const typing = (await fake.calls("sendChatAction")).filter(inTopic);
  assert.ok(
    typing.every((c) => c.body.action === "typing"),
    JSON.stringify(typing),
  );
  const before = typing.filter((c) => c.t <= reply.t);
  // The turn's acknowledgement, then a repeat at ~5 s and ~10 s of a 12 s run (OpenClaw: every ~4–5 s).
  assert.ok(before.length >= 3, `typing before the reply: ${before.length}`);
  const gaps = before.slice(1).map((c, i) => c.t - before[i].t);
  t.diagnostic(`typing before the reply: ${before.length}, gaps ${gaps.join(", ")} ms`);
  // Paced, not a flood; generous for a loaded machine (the interval is 5 s).
  assert.ok(
    gaps.every((gap) => gap >= 3_000 && gap <= 9_000),
    `gaps between repeats: ${gaps.join(", ")} ms`,
  );
  assert.deepEqual(
    typing.filter((c) => c.t > reply.t),
    [],
    "no typing after the reply",
  );
});

test("replies: Markdown as Telegram HTML, 4000-character parts, plain text after a parse error", async () => {
  await post(dm("**bold** and `code` and [link](https://example.com)\n\n- item 1\n- item 2"));
  await waitForSends(
    "the HTML reply",
    'ECHO: <b>bold</b> and <code>code</code> and <a href="https://example.com">link</a>\n\n• item 1\n• item 2',
  );

  const long = Array.from({ length: 90 }, (_, i) => `${String(i).padStart(3, "0")} ${"x".repeat(95)}`).join("\n");
  await post(dm(long));
  const parts = await waitForSends("three parts", (b) => b.text.includes("x".repeat(95)), 3);
  assert.equal(parts.length, 3);
  assert.ok(parts.every((p) => p.body.text.length <= 4000));
  assert.equal(parts.map((p) => p.body.text).join(""), `ECHO: ${long}`, "split on line boundaries, nothing lost");

  await fake.fail("sendMessage", 1, 400, "Bad Request: can't parse entities: Unsupported start tag");
  await post(dm("see [docs](https://example.com/d)"));
  const [plain] = await waitForSends("the plain retry", "ECHO: see docs (https://example.com/d)");
  assert.equal(plain.body.parse_mode, undefined);
});

test("a 500 from sendMessage is retried, and the reply arrives once", async () => {
  await fake.fail("sendMessage", 1, 500, "Internal Server Error");
  await post(dm("after a failure"));
  await waitForSends("the retried reply", "ECHO: after a failure", 1, 30_000);
  const failed = (await fake.calls("sendMessage")).filter((c) => c.status === 500);
  assert.equal(failed.length, 1);
  await sleep(2500);
  assert.equal((await sends("ECHO: after a failure")).length, 1);
});

test("a 429 with retry_after: the reply is sent again no sooner than Telegram asked, once", async () => {
  const RETRY_AFTER_S = 3;
  await fake.fail("sendMessage", 1, 429, `Too Many Requests: retry after ${RETRY_AFTER_S}`, {
    retry_after: RETRY_AFTER_S,
  });
  await post(dm("after a 429"));
  const [reply] = await waitForSends("the reply after retry_after", "ECHO: after a 429", 1, 30_000);
  const refused = (await fake.calls("sendMessage")).filter((c) => c.status === 429);
  assert.equal(refused.length, 1);
  // Both times are the fake's own clock; the backoff alone would retry after 1 s.
  assert.ok(reply.t - refused[0].t >= RETRY_AFTER_S * 1_000, `retried after ${reply.t - refused[0].t} ms`);
  await sleep(1500);
  assert.equal((await sends("ECHO: after a 429")).length, 1);
});

test("a hook run with channel telegram and to posts its reply to that chat through the outbox, once", async () => {
  const res = await fetch(`${server.baseUrl}${inTenant("/hooks/agent")}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${HOOK_TOKEN}` },
    body: JSON.stringify({ message: "hook says deploy done", channel: "telegram", to: `telegram:${OPEN_GROUP}` }),
  });
  assert.equal(res.status, 200, await res.text());
  const match = (body) => String(body.chat_id) === String(OPEN_GROUP) && body.text.includes("hook says deploy done");
  await waitForSends("the hook's reply in the group", match, 1, 30_000);
  await sleep(2000);
  assert.equal((await sends(match)).length, 1);
});

test("SIGKILL between ingress and reply: one reply, never two, never none", { timeout: 180_000 }, async () => {
  // Killed right after the 200 (the update is only in the inbox).
  assert.equal((await post(dm("killed after ingress"))).durable, "durable");
  await crashAndRestart();
  // Killed while the run waits on the slow runner (turn started, no reply yet).
  assert.equal((await post(dm("slow and killed mid-run"))).durable, "durable");
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

test("/commands pages: page 1 with its keyboard; a Next press edits the message once across a 500, a SIGKILL and a redelivery, with no turn", {
  timeout: 180_000,
}, async () => {
  const isPage1 = (body) => String(body.chat_id) === String(OPEN_GROUP) && body.text.startsWith("ℹ️ Commands (1/2)");
  await post(groupMessage(OPEN_GROUP, "/commands"));
  const [page1] = await waitForSends("page 1", isPage1, 1, 30_000);
  assert.deepEqual(page1.body.reply_markup, {
    inline_keyboard: [
      [
        { text: "1/2", callback_data: "commands_page_noop:main" },
        { text: "Next ▶", callback_data: "commands_page_2:main" },
      ],
    ],
  });
  const messageId = page1.reply.result.message_id;
  const queryId = `cbq-pages-${nextUpdateId}`;
  const press = {
    update_id: nextUpdateId++,
    callback_query: {
      id: queryId,
      from: { id: 777001, is_bot: false, first_name: "Member", username: "member" },
      chat_instance: "ci-pages",
      data: "commands_page_2:main",
      message: {
        message_id: messageId,
        chat: { id: OPEN_GROUP, type: "supergroup" },
        date: 0,
        text: "ℹ️ Commands (1/2)",
      },
    },
  };
  const runnerCalls = runner.seen.length;
  await fake.fail("editMessageText", 1, 500, "Internal Server Error");
  // Killed right after the 200: the press is only in the inbox.
  assert.equal((await post(press)).durable, "durable");
  await crashAndRestart();
  const edited = (c) => c.status === 200 && c.body.message_id === messageId;
  await waitForCount("the page-2 edit", async () => (await fake.calls("editMessageText")).filter(edited), 1, 90_000);
  assert.equal((await post(press)).durable, "durable"); // redelivered
  await sleep(3000);
  const edits = (await fake.calls("editMessageText")).filter(edited);
  assert.equal(edits.length, 1, "one edit");
  const refused = (await fake.calls("editMessageText")).filter(
    (c) => c.status === 500 && c.body.message_id === messageId,
  );
  assert.equal(refused.length, 1, "the 500 was met and retried");
  assert.equal(edits[0].body.chat_id, OPEN_GROUP);
  assert.match(edits[0].body.text, /^ℹ️ Commands \(2\/2\)\n\nStatus\n {2}\/status - /);
  assert.equal(edits[0].body.parse_mode, undefined);
  assert.deepEqual(
    edits[0].body.reply_markup.inline_keyboard[0].map((b) => b.text),
    ["◀ Prev", "2/2"],
  );
  // Recorded before it is sent: never twice (a kill between record and send may lose it).
  const answers = (await fake.calls("answerCallbackQuery")).filter((c) => c.body.callback_query_id === queryId);
  assert.ok(answers.length <= 1, `${answers.length} answers`);
  assert.equal(runner.seen.length, runnerCalls, "no turn");
});

test("announce: sessions_send into a Telegram group session posts the announce step to the chat", async () => {
  const res = await http("POST", inTenant("/tools/invoke"), {
    tool: "sessions_send",
    sessionKey: "agent:main:ops",
    args: {
      sessionKey: `agent:main:telegram:group:${OPEN_GROUP}`,
      message: "status update from ops",
      timeoutSeconds: 0,
    },
  });
  assert.equal(res.status, 200, res.text);
  const [announce] = await waitForSends("the announce", "ECHO: Agent-to-agent announce step.", 1, 60_000);
  assert.equal(announce.body.chat_id, String(OPEN_GROUP));
  assert.equal((await sends("ECHO: status update from ops")).length, 0, "the first reply is not posted (recorded)");
});

test("sub-agent announce: a child spawned from a Telegram group session reports into that chat, once", async () => {
  const res = await http("POST", inTenant("/tools/invoke"), {
    tool: "sessions_spawn",
    sessionKey: `agent:main:telegram:group:${OPEN_GROUP}`,
    args: { task: "spawned task for the group" },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.result.details.status, "accepted", res.text);
  const match = (b) =>
    b.chat_id === String(OPEN_GROUP) && b.text.includes('A background task "spawned task for the group" just');
  const [announce] = await waitForSends("the sub-agent's announce in the group", match, 1, 60_000).catch(
    async (error) => {
      const deliveries = await http(
        "GET",
        inTenant(`/v1/sessions/${encodeURIComponent(`agent:main:telegram:group:${OPEN_GROUP}`)}/deliveries`),
      );
      throw new Error(`${error.message}; deliveries: ${deliveries.text.slice(0, 1500)}`);
    },
  );
  assert.equal(announce.body.parse_mode, "HTML");
  assert.match(announce.body.text, /Findings:/);
  await sleep(2000);
  assert.equal((await sends(match)).length, 1);
});

test("the Control UI's Channels page: channels.status, and a pairing approved with channels.pairing.*", async () => {
  const res = await http("GET", inTenant("/v1/channels/status"));
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.channelAccounts.telegram[0].configured, true);
  const gateway = await connectGateway(`${server.baseUrl.replace(/^http/, "ws")}/t/${tenant.id}`, tenant.token);
  try {
    const status = await gateway.call("channels.status", {});
    assert.ok(status.ok, JSON.stringify(status.error));
    assert.deepEqual(status.payload.channelOrder, ["telegram"]);
    assert.equal(status.payload.channels.telegram.running, true);

    const stranger = 555200;
    await post(dm("let me in", { from: stranger }));
    await waitForSends("the stranger's code", (b) => b.chat_id === stranger && /Pairing code/.test(b.text));
    const list = await gateway.call("channels.pairing.list", {});
    assert.ok(list.ok, JSON.stringify(list.error));
    assert.deepEqual(list.payload.accounts, [
      { channel: "telegram", channelLabel: "Telegram", accountId: "default", notifySupported: false },
    ]);
    const request = list.payload.requests.find((r) => r.senderId === String(stranger));
    assert.ok(request?.requestId, JSON.stringify(list.payload));
    assert.equal(request.senderLabel, "telegramUserId");
    assert.ok(!JSON.stringify(list.payload).match(/"code"/), "the Control UI never sees the code");
    const approved = await gateway.call("channels.pairing.approve", {
      channel: "telegram",
      accountId: "default",
      requestId: request.requestId,
    });
    assert.ok(approved.ok, JSON.stringify(approved.error));
    assert.equal(approved.payload.senderId, String(stranger));
    const again = await gateway.call("channels.pairing.approve", {
      channel: "telegram",
      accountId: "default",
      requestId: request.requestId,
    });
    assert.equal(again.error?.message, "pending DM access request no longer exists");
    await post(dm("thanks", { from: stranger }));
    const [reply] = await waitForSends("the approved stranger's reply", "ECHO: thanks");
    assert.equal(reply.body.chat_id, String(stranger));
  } finally {
    gateway.close();
  }
});

test("a wrong bot token: setWebhook answers 502 with Telegram's words, channels.status shows the refusal (auth first) until a send works", async () => {
  const other = { id: `tgw-${crypto.randomUUID().slice(0, 8)}`, token: "" };
  other.token = await createTenantToken(server.baseUrl, other.id);
  const call = (method, path, body) =>
    httpJson(server.baseUrl, method, `/t/${other.id}${path}`, {
      authorization: `Bearer ${other.token}`,
      body,
      timeoutMs: 20_000,
    });
  const WRONG_TOKEN = "123456789:WRONG-token-for-the-fake-0123";
  const configWith = (botToken) => ({
    channels: { telegram: { enabled: true, botToken, apiRoot: fake.url, webhookSecret: SECRET, dmPolicy: "pairing" } },
  });
  assert.equal((await call("PUT", "/v1/config", configWith(WRONG_TOKEN))).status, 200);

  const hook = await call("POST", "/v1/channels/telegram/webhook");
  assert.equal(hook.status, 502, hook.text);
  assert.equal(hook.json.ok, false);
  assert.deepEqual(hook.json.telegram, { status: 401, description: "Unauthorized" });
  assert.deepEqual(hook.json.error, { type: "upstream", message: "Telegram refused setWebhook (401): Unauthorized" });
  assert.ok(!hook.text.includes(WRONG_TOKEN));

  const dmTo = async (from, text) => {
    const res = await fetch(`${server.baseUrl}/t/${other.id}/telegram-webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
      body: JSON.stringify(dm(text, { from })),
    });
    assert.equal(res.status, 200);
  };
  await dmTo(555300, "anyone there?");
  const { status } = await waitFor(
    "the refused token in channels.status",
    async () => {
      const res = await call("GET", "/v1/channels/status");
      return { done: res.json?.statusIssues?.length > 0, status: res.json };
    },
    30_000,
  );
  const [account] = status.channelAccounts.telegram;
  assert.equal(account.lastError, "telegram answered 401: Unauthorized");
  assert.equal(status.statusIssues[0].kind, "auth");
  assert.equal(status.statusIssues[0].channel, "telegram");
  assert.equal(status.statusIssues[0].accountId, "default");
  assert.match(status.statusIssues[0].fix, /channels\.telegram\.botToken/);
  assert.ok(!JSON.stringify(status).includes(WRONG_TOKEN));
  const gateway = await connectGateway(`${server.baseUrl.replace(/^http/, "ws")}/t/${other.id}`, other.token);
  try {
    const viaGateway = await gateway.call("channels.status", {});
    assert.ok(viaGateway.ok, JSON.stringify(viaGateway.error));
    assert.equal(viaGateway.payload.channelAccounts.telegram[0].lastError, "telegram answered 401: Unauthorized");
    assert.deepEqual(viaGateway.payload.statusIssues, status.statusIssues);
  } finally {
    gateway.close();
  }

  // The right token: the next send (a pairing code) reaches Telegram and the status is clear again.
  assert.equal((await call("PUT", "/v1/config", configWith(BOT_TOKEN))).status, 200);
  await dmTo(555301, "and now?");
  await waitForSends(
    "the pairing code with the right token",
    (b) => b.chat_id === 555301 && /Pairing code/.test(b.text),
  );
  const cleared = await waitFor(
    "a clear channels.status",
    async () => {
      const res = await call("GET", "/v1/channels/status");
      return { done: res.json?.statusIssues?.length === 0, status: res.json };
    },
    30_000,
  );
  assert.equal(cleared.status.channelAccounts.telegram[0].lastError, null);
  assert.equal(typeof cleared.status.channelAccounts.telegram[0].lastOutboundAt, "number");
});

test("figures: webhook answer and inbound update → sendMessage, 20 DMs one after another", async (t) => {
  const answerMs = [];
  const replyMs = [];
  for (let i = 0; i < 20; i++) {
    const text = `latency probe ${i}`;
    const started = Date.now();
    const answer = await post(dm(text));
    answerMs.push(Date.now() - started);
    assert.equal(answer.durable, "durable");
    const [reply] = await waitForSends(`probe ${i}`, `ECHO: ${text}`, 1, 30_000);
    replyMs.push(reply.t - started);
  }
  const pct = (values, p) =>
    [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
  const line = `200 durable p50 ${pct(answerMs, 0.5)} ms p99 ${pct(answerMs, 0.99)} ms; update → sendMessage p50 ${pct(replyMs, 0.5)} ms p99 ${pct(replyMs, 0.99)} ms (webhook runner on loopback, wrangler dev)`;
  t.diagnostic(line);
  console.log(line);
});
