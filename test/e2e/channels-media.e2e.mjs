// A Telegram photo DM whose download is in flight when the whole server is killed (SIGKILL)
// against a real `wrangler dev` (issue 46 item 2's proof): the fake Bot API
// (test/peers/fake-telegram.mjs) serves `slow-<ms>-…` files after ms, the e2e files' webhook
// runner (echo-runner.mjs) answers `ECHO: <message>`. After the restart the inbox repeats the download into the same R2
// key and starts the turn's one run: one turn, one reply, no download warning.
// Run with `node --test test/e2e/channels-media.e2e.mjs`.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startFakeApi } from "../../bench/lib/channel-peers.mjs";
import { killAllServersNow, killAndRestart, startServer } from "../../bench/lib/server.mjs";
import { startEchoRunner } from "./echo-runner.mjs";
import { CRASH_TEST_VARS, createTenantToken, httpJson, waitFor } from "./http-json.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const BOT_TOKEN = "123456789:TEST-fake-telegram-token";
const SECRET = "tg-webhook-secret-media-0123456";
const DM_USER = 555200;
/** How long the fake holds the file: long enough to kill the server while it waits. */
const SLOW_FILE_MS = 4_000;

process.once("exit", killAllServersNow);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let server;
let fake;
let runner;
const tenant = { id: `media-${crypto.randomUUID().slice(0, 8)}`, token: "" };
const inTenant = (path) => `/t/${tenant.id}${path}`;

before(async () => {
  fake = await startFakeApi(join(HERE, "../peers/fake-telegram.mjs"), {
    env: { TG_TOKEN: BOT_TOKEN },
    label: "fake Telegram",
  });
  runner = await startEchoRunner({ slowMs: 0, markdown: "" });
  server = await startServer({ vars: CRASH_TEST_VARS });
  tenant.token = await createTenantToken(server.baseUrl, tenant.id);
  const config = await httpJson(server.baseUrl, "PUT", inTenant("/v1/config"), {
    authorization: `Bearer ${tenant.token}`,
    body: {
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

test("SIGKILL during a media download: one turn, one reply, no warning", { timeout: 180_000 }, async () => {
  const fileId = `slow-${SLOW_FILE_MS}-${crypto.randomUUID()}`;
  const update = {
    update_id: 810_001,
    message: {
      message_id: 41,
      from: { id: DM_USER, is_bot: false, first_name: "Media" },
      chat: { id: DM_USER, type: "private", first_name: "Media" },
      date: Math.floor(Date.now() / 1000),
      photo: [{ file_id: fileId, file_unique_id: "u1", width: 640, height: 480 }],
      caption: "killed mid-download",
    },
  };
  const res = await fetch(`${server.baseUrl}${inTenant("/telegram-webhook")}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
    body: JSON.stringify(update),
  });
  assert.equal(res.status, 200, await res.text());
  const downloads = async () => (await fake.calls()).filter((c) => c.method === "FILE" && c.path.endsWith(fileId));
  await waitFor("the download in flight", async () => ({ done: (await downloads()).length >= 1 }), 30_000);
  server = await killAndRestart(server, { vars: CRASH_TEST_VARS });

  const replies = async () =>
    (await fake.calls()).filter(
      (c) => c.method === "sendMessage" && c.status === 200 && String(c.body.chat_id) === String(DM_USER),
    );
  await waitFor("the reply", async () => ({ done: (await replies()).length >= 1 }), 120_000);
  await sleep(3_000);
  const sent = await replies();
  assert.deepEqual(
    sent.map((c) => c.body.text),
    ["ECHO: [media: photo 640×480 image/jpeg]\nkilled mid-download"],
    "one reply, and no download warning",
  );
  assert.equal(runner.seen.filter((m) => m.includes("killed mid-download")).length, 1, "one turn");
  assert.ok((await downloads()).length >= 2, "the download was repeated after the restart");
});
