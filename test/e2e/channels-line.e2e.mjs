// LINE over its webhook against a real `wrangler dev`, with the fake Messaging API
// (test/peers/fake-line.mjs, in this process on a free port) and a webhook runner here that answers
// `ECHO: <message>` (slowly for messages containing "slow"). The answers and sends are compared
// with the real gateway's recordings (../shared/peer/channels-2/SPEC.md §3; docs/channels.md).
// Every reply must reach the fake exactly once — by the event's reply token while it is fresh,
// else by push — across duplicates, concurrency, a 500 from LINE and a SIGKILL of the whole
// server after the 200 and mid-run. Run with `node --test test/e2e/channels-line.e2e.mjs`.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { killAllServersNow, killAndRestart, startServer } from "../../bench/lib/server.mjs";
import { FAKE_LINE_BOT, FAKE_LINE_TOKEN, startFakeLine } from "../peers/fake-line.mjs";
import { CRASH_TEST_VARS, createTenantToken, httpJson, listenLoopback, waitFor, waitForCount } from "./http-json.mjs";

const CHANNEL_SECRET = "line-channel-secret-0123456789ab";
const USER = "U1111111111111111111111111111aaaa";
const MEMBER = "U2222222222222222222222222222bbbb";
const GROUP = "C3333333333333333333333333333cccc";
/** A group only the name-cache test writes in: its summary is not cached by another test. */
const NAMELESS_GROUP = "C4444444444444444444444444444dddd";
const SLOW_RUNNER_MS = 2500;
const HOOK_TOKEN = "hook-token-0123456789";
/** Older than LINE's reply token lifetime (about a minute): the reply must be pushed. */
const STALE_EVENT_AGE_MS = 120_000;

process.once("exit", killAllServersNow);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let server;
let fake;
let runner;
const tenant = { id: `line-${crypto.randomUUID().slice(0, 8)}`, token: "" };
const inTenant = (path) => `/t/${tenant.id}${path}`;
const fakeUrl = () => `http://127.0.0.1:${fake.port}`;

function http(method, path, body) {
  return httpJson(server.baseUrl, method, path, { authorization: `Bearer ${tenant.token}`, body, timeoutMs: 20_000 });
}

/** A webhook runner: `ECHO: <message>`; "slow" takes SLOW_RUNNER_MS; "LONG" answers 12,000 characters; "MARKDOWN" Markdown. */
function startRunner() {
  const seen = [];
  const srv = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const message = String(JSON.parse(body).input?.message ?? "");
    seen.push(message);
    if (message.includes("slow")) await sleep(SLOW_RUNNER_MS);
    const reply = message.includes("LONG")
      ? Array.from({ length: 200 }, (_, i) => `line ${String(i).padStart(4, "0")} ${"x".repeat(49)}`).join("\n")
      : message.includes("MARKDOWN")
        ? "**bold** and `code` and [link](https://example.com)\n\n- item 1\n- item 2"
        : `ECHO: ${message}`;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ reply }));
  });
  return listenLoopback(srv, { seen });
}

let nextId = 1;
/** One text message event as LINE sends it (a fresh reply token, timestamped now unless `ageMs`). */
function textEvent(text, { from = USER, group, id = `5${Date.now()}${nextId++}`, ageMs = 0, mention = false } = {}) {
  return {
    type: "message",
    mode: "active",
    timestamp: Date.now() - ageMs,
    webhookEventId: `01EV${id}`,
    deliveryContext: { isRedelivery: false },
    source: group ? { type: "group", groupId: group, userId: from } : { type: "user", userId: from },
    replyToken: `rt-${id}`,
    message: {
      id,
      type: "text",
      quoteToken: `q-${id}`,
      text,
      ...(mention
        ? {
            mention: {
              mentionees: [{ index: 0, length: 4, type: "user", userId: FAKE_LINE_BOT.userId, isSelf: true }],
            },
          }
        : {}),
    },
  };
}

async function post(events, { secret = CHANNEL_SECRET, raw, headers = {} } = {}) {
  const body = raw ?? JSON.stringify({ destination: FAKE_LINE_BOT.userId, events });
  const signature = createHmac("sha256", secret).update(body).digest("base64");
  const res = await fetch(`${server.baseUrl}${inTenant("/line/webhook")}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(secret ? { "x-line-signature": signature } : {}), ...headers },
    body,
  });
  return { status: res.status, text: await res.text(), durable: res.headers.get("x-openclaw-delivery-accepted") };
}

async function calls() {
  const res = await fetch(`${fakeUrl()}/__calls`);
  return (await res.json()).calls;
}

/** Messages LINE accepted (reply or push answered 200), each with its call, whose text is / matches `match`. */
async function sends(match) {
  const accepted = (await calls()).filter((c) => /\/message\/(reply|push)$/.test(c.path) && c.status === 200);
  return accepted.flatMap((call) =>
    call.body.messages
      .filter((m) => (typeof match === "function" ? match(m.text) : m.text === match))
      .map((m) => ({ text: m.text, call })),
  );
}

const waitForSends = (what, match, count, deadlineMs) => waitForCount(what, () => sends(match), count, deadlineMs);

async function fail(failure) {
  await fetch(`${fakeUrl()}/__fail`, { method: "POST", body: JSON.stringify(failure) });
}

async function crashAndRestart() {
  server = await killAndRestart(server, { vars: CRASH_TEST_VARS });
}

before(async () => {
  fake = await startFakeLine(0);
  runner = await startRunner();
  server = await startServer({ vars: CRASH_TEST_VARS });
  tenant.token = await createTenantToken(server.baseUrl, tenant.id);
  const config = await http("PUT", inTenant("/v1/config"), {
    session: { dmScope: "main" },
    agents: { list: [{ id: "main", default: true, runner: { type: "webhook", url: `${runner.url}/run` } }] },
    hooks: { enabled: true, token: HOOK_TOKEN },
    delivery: { maxAttempts: 3 },
    channels: {
      line: {
        enabled: true,
        channelAccessToken: FAKE_LINE_TOKEN,
        channelSecret: CHANNEL_SECRET,
        apiRoot: fakeUrl(),
        dmPolicy: "pairing",
        groupPolicy: "allowlist",
        groupAllowFrom: [MEMBER],
      },
    },
  });
  assert.equal(config.status, 200, config.text);
});

after(async () => {
  await server?.stop();
  await runner?.close();
  await fake?.close();
});

test("config: the channel access token and secret go to the secret store; apiRoot is an outbound URL", async () => {
  const read = await http("GET", inTenant("/v1/config"));
  assert.equal(read.status, 200);
  for (const secret of [FAKE_LINE_TOKEN, CHANNEL_SECRET]) assert.ok(!read.text.includes(secret), read.text);
  assert.deepEqual(read.json.config.channels.line.channelSecret, {
    source: "store",
    provider: "default",
    id: "LINE_CHANNEL_SECRET",
  });
  const status = await http("GET", inTenant("/v1/channels/status"));
  assert.equal(status.status, 200, status.text);
  assert.deepEqual(status.json.channels.line, { configured: true, running: true, mode: "webhook" });
  const refused = await http("PATCH", inTenant("/v1/config"), {
    channels: { line: { apiRoot: "http://169.254.169.254/" } },
  });
  assert.equal(refused.status, 400);
  assert.match(refused.text, /channels\.line\.apiRoot/);
  const unknownCredential = await http("PATCH", inTenant("/v1/config"), { channels: { line: { loginSecret: "x" } } });
  assert.equal(unknownCredential.status, 400);
});

test("the webhook's answers are the recorded ones, and none of these stores or sends anything", async () => {
  const unsigned = await post([textEvent("unsigned")], { secret: "" });
  assert.deepEqual([unsigned.status, JSON.parse(unsigned.text)], [400, { error: "Missing X-Line-Signature header" }]);
  const forged = await post([textEvent("forged")], { secret: "not-the-channel-secret" });
  assert.deepEqual([forged.status, JSON.parse(forged.text)], [401, { error: "Invalid signature" }]);
  const notJson = await post(null, { raw: "{not json" });
  assert.deepEqual([notJson.status, JSON.parse(notJson.text)], [400, { error: "Invalid webhook payload" }]);
  // A webhook door cancels a body announced too large (src/util/bounded-body.ts: unauthenticated,
  // so nothing more is read) and answers at once: the client gets the recorded 413, or, when the
  // connection closes before that answer is read, a closed socket (as test/e2e/ingress-body-limits
  // allows); the 413's exact shape is also held in Node (test/unit/channels/channels-line-served.test.ts).
  const large = await post(null, { raw: JSON.stringify({ events: [], pad: "x".repeat(80 * 1024) }) }).catch((error) => {
    const code = error?.cause?.code ?? error?.code;
    if (["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"].includes(code)) return { status: "closed" };
    throw error;
  });
  if (large.status !== "closed")
    assert.deepEqual([large.status, JSON.parse(large.text)], [413, { error: "Payload too large" }]);
  const verify = await post([]);
  assert.deepEqual([verify.status, JSON.parse(verify.text), verify.durable], [200, { status: "ok" }, null]);
  const standby = await post([{ ...textEvent("standby"), mode: "standby" }]);
  assert.deepEqual([standby.status, standby.durable], [200, null]);
  const get = await fetch(`${server.baseUrl}${inTenant("/line/webhook")}`);
  assert.deepEqual([get.status, await get.text()], [200, "OK"]);
  await sleep(1000);
  assert.equal((await sends(() => true)).length, 0, "nothing was sent for any of these");
});

test("pairing: the code by the event's reply token, silence until approved, then loading and a reply; the route keeps no token", async () => {
  const first = textEvent("hello");
  const accepted = await post([first]);
  assert.deepEqual([accepted.status, JSON.parse(accepted.text), accepted.durable], [200, { status: "ok" }, "durable"]);
  const [pairing] = await waitForSends("pairing code", (text) => /access not configured/.test(text));
  assert.equal(pairing.call.path, "/v2/bot/message/reply", "the code is a reply (recorded)");
  assert.equal(pairing.call.body.replyToken, first.replyToken);
  const code = /Pairing code:\n```\n([A-Z0-9]{8})\n```/.exec(pairing.text)?.[1];
  assert.ok(code, pairing.text);
  assert.equal((await post([textEvent("hello again")])).status, 200);
  await sleep(1500);
  assert.equal((await sends((t) => /access not configured/.test(t))).length, 1, "no second code");
  const approved = await http("POST", inTenant("/v1/channels/line/pairing/approve"), { code });
  assert.equal(approved.status, 200, approved.text);

  const paired = textEvent("now I am paired");
  await post([paired]);
  const [reply] = await waitForSends("the reply", "ECHO: now I am paired");
  assert.equal(reply.call.path, "/v2/bot/message/reply");
  assert.equal(reply.call.body.replyToken, paired.replyToken);
  const loading = (await calls()).find((c) => c.path === "/v2/bot/chat/loading/start" && c.body.chatId === USER);
  assert.ok(loading && loading.seq < reply.call.seq, "the loading animation before the reply");
  assert.equal((await sends((t) => t === "ECHO: now I am paired")).length, 1, "no push beside the reply");
  const rows = await http("GET", inTenant("/v1/sessions?limit=200"));
  const row = rows.json.sessions.find((s) => s.key === "agent:main:main");
  assert.equal(row.lastTo, `line:${USER}`);
  assert.deepEqual(row.deliveryContext, { channel: "line", to: `line:${USER}`, accountId: "default" });
  assert.ok(!JSON.stringify(row).includes(paired.replyToken), "the reply token is not the session's route");
  const listed = await http("GET", inTenant(`/v1/sessions/${encodeURIComponent("agent:main:main")}/deliveries`));
  assert.equal(listed.status, 200, listed.text);
  assert.ok(
    listed.json.deliveries.length > 0 && !listed.text.includes(paired.replyToken),
    "nor listed with its delivery",
  );
});

test("a stale reply token is not tried (push with a retry key); a refused one falls back to push at once", async () => {
  await post([textEvent("stale token", { ageMs: STALE_EVENT_AGE_MS })]);
  const [stale] = await waitForSends("the pushed reply", "ECHO: stale token");
  assert.equal(stale.call.path, "/v2/bot/message/push");
  assert.equal(stale.call.body.to, USER);
  assert.match(stale.call.retryKey, /^[0-9a-f-]{36}$/);
  const refused = textEvent("refused token");
  await fetch(`${fakeUrl()}/__expire`, { method: "POST", body: JSON.stringify({ replyToken: refused.replyToken }) });
  await post([refused]);
  const [pushed] = await waitForSends("the fallback push", "ECHO: refused token");
  assert.equal(pushed.call.path, "/v2/bot/message/push");
  const tried = (await calls()).filter((c) => c.body.replyToken === refused.replyToken);
  assert.deepEqual(
    tried.map((c) => c.status),
    [400],
    "the token was tried once, then pushed",
  );
});

test("groups: a sender in groupAllowFrom is answered when mentioned, silence without a mention or from others", async () => {
  await post([textEvent("group no mention", { from: MEMBER, group: GROUP })]);
  await post([textEvent("group stranger", { from: USER, group: GROUP, mention: true })]);
  await post([textEvent("group mention", { from: MEMBER, group: GROUP, mention: true })]);
  const [reply] = await waitForSends("the group reply", "ECHO: group mention");
  assert.equal(reply.call.path, "/v2/bot/message/reply");
  const rows = await http("GET", inTenant("/v1/sessions?limit=200"));
  const group = rows.json.sessions.find((s) => s.key === `agent:main:line:group:${GROUP.toLowerCase()}`);
  assert.ok(group, JSON.stringify(rows.json.sessions.map((s) => s.key)));
  assert.equal(group.lastTo, `line:group:${GROUP}`);
  assert.ok(!runner.seen.some((m) => /group no mention|group stranger/.test(m)), "no run for the others");
  assert.ok(
    !(await calls()).some((c) => c.path === "/v2/bot/chat/loading/start" && c.body.chatId === GROUP),
    "no loading animation in groups",
  );
});

test("a failed name lookup is not asked again by the next turn (the name cache's miss window)", async () => {
  const summary = `/v2/bot/group/${NAMELESS_GROUP}/summary`;
  await fail({ path: summary, count: 1, status: 500 });
  await post([textEvent("nameless one", { from: MEMBER, group: NAMELESS_GROUP, mention: true })]);
  await waitForSends("the first turn's reply", "ECHO: nameless one");
  await post([textEvent("nameless two", { from: MEMBER, group: NAMELESS_GROUP, mention: true })]);
  await waitForSends("the second turn's reply", "ECHO: nameless two");
  // Within NAME_MISS_TTL_MS (30 s) the refused summary is remembered: one call, not one per turn.
  const asked = (await calls()).filter((c) => c.path === summary);
  assert.deepEqual(
    asked.map((c) => c.status),
    [500],
  );
});

test("a quote of the bot's own message answers in a group that requires a mention; a quote of another does not", async () => {
  await post([textEvent("quote first", { from: MEMBER, group: GROUP, mention: true })]);
  const [reply] = await waitForSends("the reply to quote", "ECHO: quote first");
  // LINE's id of that reply (the fake's sentMessages[].id); it is remembered before the delivery is marked delivered.
  const botMessageId = `${reply.call.seq}${reply.call.body.messages.findIndex((m) => m.text === reply.text)}`;
  const key = `agent:main:line:group:${GROUP.toLowerCase()}`;
  await waitFor(
    "the reply delivered",
    async () => {
      const rows = await http("GET", inTenant(`/v1/sessions/${encodeURIComponent(key)}/deliveries`));
      const sent = (rows.json.deliveries ?? []).filter(
        (d) => d.status === "delivered" && /quote first/.test(d.message),
      );
      return { done: sent.length > 0 };
    },
    30_000,
  );
  const quoting = (text, quotedMessageId) => {
    const event = textEvent(text, { from: MEMBER, group: GROUP });
    return { ...event, message: { ...event.message, quotedMessageId } };
  };
  const memberMessage = textEvent("a member's line", { from: MEMBER, group: GROUP });
  await post([memberMessage]);
  await post([quoting("quoting the member", memberMessage.message.id)]);
  await post([quoting("quoting the bot", botMessageId)]);
  await waitForSends("the answer to the quote", "ECHO: quoting the bot");
  assert.ok(!runner.seen.some((m) => /quoting the member|a member's line/.test(m)), "no run for the others");
});

test("replies: Markdown flattened as recorded, 12,000 characters in one reply of three messages", async () => {
  await post([textEvent("MARKDOWN please")]);
  await waitForSends("markdown", "bold and code and link (https://example.com)\n\n• item 1\n• item 2");
  await post([textEvent("LONG please")]);
  const parts = await waitForSends("long parts", (t) => t.startsWith("line 0000"));
  const call = parts[0].call;
  assert.equal(call.path, "/v2/bot/message/reply");
  assert.equal(call.body.messages.length, 3);
  assert.ok(call.body.messages.every((m) => m.text.length <= 5000));
  assert.equal(call.body.messages.map((m) => m.text).join("\n").length, 200 * 60 - 1, "every line, each once");
});

test("duplicates: the same body again, the same message under a new webhookEventId, five concurrent POSTs: one reply each", async () => {
  const once = textEvent("dup sequential");
  assert.equal((await post([once])).status, 200);
  assert.equal((await post([once])).status, 200);
  assert.equal((await post([{ ...once, webhookEventId: "01EVredelivered", replyToken: "rt-other" }])).status, 200);
  const burst = textEvent("dup concurrent");
  const answers = await Promise.all(Array.from({ length: 5 }, () => post([burst])));
  assert.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200, 200, 200],
  );
  const batch = [textEvent("batch one"), textEvent("batch two")];
  assert.equal((await post(batch)).status, 200);
  await waitForSends("sequential reply", "ECHO: dup sequential");
  await waitForSends("concurrent reply", "ECHO: dup concurrent");
  const [one] = await waitForSends("batch one", "ECHO: batch one");
  const [two] = await waitForSends("batch two", "ECHO: batch two");
  assert.deepEqual([one.call.body.replyToken, two.call.body.replyToken], [batch[0].replyToken, batch[1].replyToken]);
  await sleep(2000);
  assert.equal((await sends("ECHO: dup sequential")).length, 1);
  assert.equal((await sends("ECHO: dup concurrent")).length, 1);
});

test("a 500 from LINE: a failed reply falls back to push; a failed push is retried; one message each", async () => {
  await fail({ path: "/v2/bot/message/reply", count: 1, status: 500 });
  await post([textEvent("reply 500")]);
  const [fallback] = await waitForSends("the fallback push", "ECHO: reply 500");
  assert.equal(fallback.call.path, "/v2/bot/message/push");
  await fail({ path: "/v2/bot/message/push", count: 1, status: 500 });
  await post([textEvent("push 500", { ageMs: STALE_EVENT_AGE_MS })]);
  await waitForSends("the retried push", "ECHO: push 500", 1, 60_000);
  await sleep(2000);
  assert.equal((await sends("ECHO: reply 500")).length, 1);
  assert.equal((await sends("ECHO: push 500")).length, 1);
});

test("a hook delivery with channel line is pushed to the named user", async () => {
  const res = await fetch(`${server.baseUrl}${inTenant("/hooks/agent")}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${HOOK_TOKEN}` },
    body: JSON.stringify({ message: "hook says hi", name: "ping", channel: "line", to: `line:${USER}` }),
  });
  assert.equal(res.status, 200, await res.text());
  const [push] = await waitForSends("the hook's push", (t) => t.includes("hook says hi"));
  assert.equal(push.call.path, "/v2/bot/message/push");
  assert.equal(push.call.body.to, USER);
});

test("SIGKILL mid-run and after the 200: one reply each, never two, never none", { timeout: 180_000 }, async () => {
  // One restart for both crash points: a run in flight, and an update committed (200) but not yet answered.
  assert.equal((await post([textEvent("slow and killed mid-run")])).status, 200);
  await waitFor(
    "the runner has the turn",
    async () => ({ done: runner.seen.includes("slow and killed mid-run") }),
    30_000,
  );
  assert.equal((await post([textEvent("killed after ingress")])).status, 200);
  await crashAndRestart();
  await waitForSends("reply 1", "ECHO: killed after ingress", 1, 120_000);
  await waitForSends("reply 2", "ECHO: slow and killed mid-run", 1, 120_000);
  await sleep(3000);
  assert.equal((await sends("ECHO: killed after ingress")).length, 1);
  assert.equal((await sends("ECHO: slow and killed mid-run")).length, 1);
});
