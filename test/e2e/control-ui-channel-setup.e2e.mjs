// Acceptance test (issue 47): Channels › Set up in the real OpenClaw Control UI (headless
// Chromium) against a real `wrangler dev` and the fake Bot API (test/peers/fake-telegram.mjs):
// the Telegram card's Set up walks OpenClaw's wizard (intro, token help, the token typed into a
// hidden field), the webhook is registered at the fake with a generated secret, the token never
// comes back in a frame, and the card moves to the connected channels; an unserved card
// (Discord) reads "Not available on this service". Meanwhile a wizard on another tenant's
// socket, a secret already answered, is left idle past the time workerd evicts an object whose
// only I/O is hibernatable sockets (the vitest pool never hibernates one), then finished: the
// wizard lives in the socket's attachment, not in the object's memory.
// Screenshots go to test-results/control-ui-setup/ (git-ignored).
// Run with `node --test test/e2e/control-ui-channel-setup.e2e.mjs`.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startFakeApi } from "../../bench/lib/channel-peers.mjs";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { chromiumMissing, openControlUi, waitForDeep, waitForText } from "./browser.mjs";
import { connectGateway } from "./gateway-rpc.mjs";
import { createTenantToken, httpJson } from "./http-json.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const SHOTS_DIR = join(resolve(HERE, "../.."), "test-results", "control-ui-setup");
const TOKEN = "dev-operator-token";
const BOT_TOKEN = "123456789:TEST-wizard-setup-token";
const UI_STEP_MS = 20_000;
/** Long enough for workerd to evict an idle object whose only I/O is hibernatable sockets (as gateway-hubs.e2e). */
const IDLE_MS = 25_000;
const IDLE_TENANT = "wizard-idle";

const skip = chromiumMissing();
process.once("exit", killAllServersNow);

let server;
let fake;
let chromium;
/** The idle tenant's socket, its wizard and the step it waits on, and when it went idle. */
let idle;

const api = (method, path, body) => httpJson(server.baseUrl, method, path, { authorization: `Bearer ${TOKEN}`, body });

/** Clicks the Set up button of the channel row titled `title` (the "Add a channel" list). */
async function clickSetUp(page, title) {
  const deadline = Date.now() + UI_STEP_MS;
  while (Date.now() < deadline) {
    const clicked = await page.evaluate((wanted) => {
      const search = (root) => {
        for (const row of root.querySelectorAll(".channels-item")) {
          const name = row.querySelector(".settings-row__title")?.textContent?.trim();
          const button = [...row.querySelectorAll("button")].find((b) => b.textContent.trim() === "Set up");
          if (name === wanted && button) return button;
        }
        for (const el of root.querySelectorAll("*")) {
          const found = el.shadowRoot && search(el.shadowRoot);
          if (found) return found;
        }
        return null;
      };
      const button = search(document);
      button?.click();
      return Boolean(button);
    }, title);
    if (clicked) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no Set up button on the ${title} card`);
}

before(async () => {
  if (skip) return;
  mkdirSync(SHOTS_DIR, { recursive: true });
  fake = await startFakeApi(join(HERE, "../peers/fake-telegram.mjs"), {
    env: { TG_TOKEN: BOT_TOKEN },
    label: "fake Telegram",
  });
  server = await startServer({ readyTimeoutMs: 60_000 });
  // Only where the Bot API is (a self-hoster's `apiRoot`): the wizard asks for the rest.
  const config = await api("PUT", "/v1/config", { channels: { telegram: { apiRoot: fake.url } } });
  assert.equal(config.status, 200, config.text);
  // The idle tenant's wizard: Slack's bot token answered, the signing secret still to come.
  const idleToken = await createTenantToken(server.baseUrl, IDLE_TENANT);
  const socket = await connectGateway(`${server.baseUrl.replace(/^http/, "ws")}/t/${IDLE_TENANT}`, idleToken);
  const started = await socket.call("wizard.start", { flow: "channels", channel: "slack" });
  assert.equal(started.ok, true, JSON.stringify(started.error));
  let step = started.payload.step;
  for (const value of [undefined, undefined, "xoxb-idle-1"]) {
    const next = await socket.call("wizard.next", {
      sessionId: started.payload.sessionId,
      answer: { stepId: step.id, ...(value ? { value } : {}) },
    });
    assert.equal(next.ok, true, JSON.stringify(next.error));
    step = next.payload.step;
  }
  assert.equal(step.message, "Enter Slack signing secret");
  idle = { socket, token: idleToken, sessionId: started.payload.sessionId, step, since: Date.now() };
  chromium = await openControlUi({ baseUrl: server.baseUrl, token: TOKEN, shotsDir: SHOTS_DIR, stepMs: UI_STEP_MS });
});

after(async () => {
  idle?.socket.close();
  await chromium?.close();
  await server?.stop();
  await fake?.stop();
});

test("Channels › Set up Telegram walks through, registers the webhook, and the card shows configured", {
  skip: skip ?? false,
}, async () => {
  const { page, recorder, ui } = chromium;
  await ui.step("channels-page", async () => {
    await ui.openRoute("/channels");
    await waitForText(page, "Add a channel", UI_STEP_MS);
    // An unserved card of the UI's own catalogue says so.
    await waitForText(page, "Not available on this service", UI_STEP_MS);
  });
  const since = Date.now();
  await ui.step("setup-intro", async () => {
    await clickSetUp(page, "Telegram");
    const { answer } = await ui.answerOf("wizard.start", since);
    assert.equal(answer.ok, true, JSON.stringify(answer.error));
    assert.equal(answer.payload.step.title, "Channel setup");
    await ui.clickText("button", "Continue");
  });
  await ui.step("setup-help", async () => {
    await waitForText(page, "Open Telegram and chat with @BotFather", UI_STEP_MS);
    await ui.clickText("button", "Continue");
  });
  await ui.step("setup-token", async () => {
    await waitForText(page, "Enter Telegram bot token", UI_STEP_MS);
    const input = await waitForDeep(page, 'input[type="password"]', UI_STEP_MS);
    await input.type(BOT_TOKEN);
    await ui.clickText("button", "Continue");
  });
  await ui.step("setup-dm-policies", async () => {
    await waitForText(page, "Configure DM access policies now? (default: pairing)", UI_STEP_MS);
    await ui.clickText("button", "No");
  });
  await ui.step("setup-webhook", async () => {
    await waitForText(page, "with Telegram (setWebhook)", UI_STEP_MS);
    await ui.clickText("button", "Continue");
  });
  await ui.step("setup-done", async () => {
    await waitForText(page, "Channels updated.", UI_STEP_MS);
    await ui.clickText("button", "Continue");
    await waitForText(page, "Channel configured", UI_STEP_MS);
  });

  // The fake got the tenant's webhook URL and a secret; no frame the UI received holds the token.
  const registered = (await fake.calls()).filter((call) => call.method === "setWebhook");
  assert.equal(registered.length, 1, JSON.stringify(registered));
  assert.match(registered[0].body.url, /\/telegram-webhook$/);
  assert.match(registered[0].body.secret_token, /^[A-Za-z0-9_-]{40,}$/);
  const received = JSON.stringify(recorder.frames.filter((f) => f.dir === "in"));
  assert.ok(!received.includes(BOT_TOKEN), "the bot token came back in a frame");
  assert.ok(!received.includes(registered[0].body.secret_token), "the webhook secret came back in a frame");

  await ui.step("card-configured", async () => {
    await ui.clickText("button", "Finish");
    const deadline = Date.now() + UI_STEP_MS;
    let telegram;
    while (!telegram?.configured && Date.now() < deadline) {
      const status = recorder.frames.findLast(
        (f) => f.dir === "in" && f.frame?.type === "res" && f.frame.payload?.channelOrder,
      );
      telegram = status?.frame.payload.channels.telegram;
      if (!telegram?.configured) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(telegram?.configured, true, JSON.stringify(telegram));
    await waitForText(page, "Connected channels", UI_STEP_MS);
    await waitForText(page, "Running", UI_STEP_MS);
  });
});

test("a wizard left idle past the object's eviction finishes from its socket's attachment", {
  skip: skip ?? false,
}, async () => {
  const left = IDLE_MS - (Date.now() - idle.since);
  if (left > 0) await new Promise((r) => setTimeout(r, left));
  const next = await idle.socket.call("wizard.next", {
    sessionId: idle.sessionId,
    answer: { stepId: idle.step.id, value: "idle-signing-secret" },
  });
  assert.equal(next.ok, true, JSON.stringify(next.error));
  assert.equal(next.payload.step.type, "confirm");
  const webhook = await idle.socket.call("wizard.next", {
    sessionId: idle.sessionId,
    answer: { stepId: next.payload.step.id, value: false },
  });
  assert.equal(webhook.payload.step.title, "Slack webhook");
  assert.match(webhook.payload.step.message, new RegExp(`/t/${IDLE_TENANT}/slack/events\n`));
  const config = await httpJson(server.baseUrl, "GET", `/t/${IDLE_TENANT}/v1/config`, {
    authorization: `Bearer ${idle.token}`,
  });
  const slack = config.json.config.channels.slack;
  assert.deepEqual([slack.botToken.source, slack.signingSecret.source], ["store", "store"], config.text);
});
