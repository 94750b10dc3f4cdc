// Inbound debounce against a real `wrangler dev` (issue 46, 5): a SIGKILL of the whole server
// inside a burst's window gives ONE turn with both texts and ONE reply at the fake Bot API
// (test/peers/fake-telegram.mjs). The window is a timer row behind the inbox's alarm, so it must
// survive the restart; docs/channels.md "Bursts". (A SIGKILL mid-run: channels-telegram.e2e.mjs.)
// Run with `node --test test/e2e/channels-debounce.e2e.mjs`.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startFakeApi } from "../../bench/lib/channel-peers.mjs";
import { killAllServersNow, killAndRestart, startServer } from "../../bench/lib/server.mjs";
import { createTenantToken, httpJson, listenLoopback, waitFor } from "./http-json.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const BOT_TOKEN = "123456789:TEST-fake-telegram-debounce";
const SECRET = "tg-webhook-secret-debounce-e2e";
const WINDOW_MS = 2000;

process.once("exit", killAllServersNow);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let server;
let fake;
let runner;
const tenant = { id: `tgdb-${crypto.randomUUID().slice(0, 8)}`, token: "" };
let nextUpdateId = 800_000;

/** A webhook runner: `ECHO: <message>`. */
function startRunner() {
  const seen = [];
  const srv = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const message = String(JSON.parse(body).input?.message ?? "");
    seen.push(message);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ reply: `ECHO: ${message}` }));
  });
  return listenLoopback(srv, { seen });
}

function dm(from, text) {
  const id = nextUpdateId++;
  return {
    update_id: id,
    message: {
      message_id: id,
      from: { id: from, is_bot: false, first_name: `User${from}`, username: `user${from}` },
      chat: { id: from, type: "private" },
      date: Math.floor(Date.now() / 1000),
      text,
    },
  };
}

async function post(update) {
  const res = await fetch(`${server.baseUrl}/t/${tenant.id}/telegram-webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
    body: JSON.stringify(update),
  });
  assert.equal(res.status, 200, await res.text());
  assert.equal(res.headers.get("x-openclaw-delivery-accepted"), "durable");
}

async function sendsTo(chatId) {
  const calls = (await fake.calls()).filter((c) => c.method === "sendMessage" && c.status === 200);
  return calls.filter((c) => String(c.body.chat_id) === String(chatId)).map((c) => c.body.text);
}

async function crashAndRestart() {
  server = await killAndRestart(server);
}

before(async () => {
  fake = await startFakeApi(join(HERE, "../peers/fake-telegram.mjs"), {
    env: { TG_TOKEN: BOT_TOKEN },
    label: "fake Telegram",
  });
  runner = await startRunner();
  server = await startServer();
  tenant.token = await createTenantToken(server.baseUrl, tenant.id);
  const config = await httpJson(server.baseUrl, "PUT", `/t/${tenant.id}/v1/config`, {
    authorization: `Bearer ${tenant.token}`,
    timeoutMs: 20_000,
    body: {
      messages: { inbound: { debounceMs: WINDOW_MS } },
      session: { dmScope: "per-channel-peer" },
      agents: { list: [{ id: "main", default: true, runner: { type: "webhook", url: `${runner.url}/run` } }] },
      channels: {
        telegram: { enabled: true, botToken: BOT_TOKEN, apiRoot: fake.url, webhookSecret: SECRET, dmPolicy: "open" },
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

test("SIGKILL inside the debounce window: one turn with both texts, one reply", { timeout: 120_000 }, async () => {
  // Killed inside the window: both updates are only held in the inbox.
  const started = Date.now();
  await post(dm(601, "burst one"));
  await sleep(50);
  await post(dm(601, "burst two"));
  await crashAndRestart();
  const text = "ECHO: burst one\nburst two";
  await waitFor("the burst's reply", async () => ({ done: (await sendsTo(601)).includes(text) }), 60_000);
  const replyMs = Date.now() - started;
  await sleep(3000); // room for a second reply, were there one
  assert.deepEqual(await sendsTo(601), [text]);
  assert.deepEqual(runner.seen, ["burst one\nburst two"]);
  console.log(`burst → reply across a SIGKILL inside a ${WINDOW_MS} ms window: ${replyMs} ms`);
});
