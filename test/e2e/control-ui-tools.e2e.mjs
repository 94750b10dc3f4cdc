// Acceptance test: the real OpenClaw Control UI in headless Chromium shows the tool rows of a
// tool turn run by this service, as it does against the real gateway (shared/peer/tool-loop,
// SPEC §9 and its screenshots): a collapsed `button.chat-tool-row` titled by the tool, "failed"
// on a tool error, and the expanded box with the result. The agent runs on the scripted
// tool-calling mock model. Screenshots go to test-results/control-ui-tools/ (git-ignored).
// Run with `node --test test/e2e/control-ui-tools.e2e.mjs`.
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { startToolMockModel } from "../peers/tool-mock-model.mjs";
import { chromiumMissing, findDeep, launchChromium, recordFrames, waitForDeep, waitForText } from "./browser.mjs";
import { httpJson } from "./http-json.mjs";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SHOTS_DIR = join(REPO_ROOT, "test-results", "control-ui-tools");
const TOKEN = "dev-operator-token";
const SERVER_START_MS = 60_000;
const UI_STEP_MS = 30_000;

const skip = chromiumMissing();
process.once("exit", killAllServersNow);

let server;
let mock;
let chromium;
let page;
let recorder;

async function shot(name) {
  await page.screenshot({ path: join(SHOTS_DIR, `${name}.png`) }).catch(() => {});
}

/** Runs a step; on failure keeps a screenshot and says where the frames ended. */
async function step(name, fn) {
  try {
    await fn();
    await shot(name);
  } catch (error) {
    await shot(`${name}-FAILED`);
    if (error && typeof error === "object") error.message += `\n  last frames:\n${recorder?.tail() ?? ""}`;
    throw error;
  }
}

/** The text of every visible tool row, through the UI's shadow roots. */
function toolRows() {
  return page.evaluate(() => {
    const rows = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll("*")) {
        if (el.matches("button.chat-tool-row") && el.getBoundingClientRect().height > 0)
          rows.push(el.textContent.replace(/\s+/g, " ").trim());
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(document);
    return rows;
  });
}

async function waitForRows(predicate, what) {
  const deadline = Date.now() + UI_STEP_MS;
  let rows = [];
  while (Date.now() < deadline) {
    rows = await toolRows().catch(() => []);
    if (predicate(rows)) return rows;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what}: tool rows seen ${JSON.stringify(rows)}`);
}

async function sendFromComposer(text) {
  const composer = await waitForDeep(page, "textarea", UI_STEP_MS);
  await composer.click();
  await composer.type(text, { delay: 2 });
  await page.keyboard.press("Enter");
}

describe("the Control UI shows the tool rows of a tool turn", { skip: skip ?? false }, () => {
  before(async () => {
    mkdirSync(SHOTS_DIR, { recursive: true });
    assert.ok(existsSync(join(REPO_ROOT, "public", "index.html")), "public/index.html is missing: run npm install");
    mock = await startToolMockModel();
    server = await startServer({ readyTimeoutMs: SERVER_START_MS });
    const res = await httpJson(server.baseUrl, "PUT", "/v1/config", {
      authorization: `Bearer ${TOKEN}`,
      body: {
        agents: { list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: mock.url, model: "mock" } }] },
      },
    });
    assert.equal(res.status, 200, res.text);
    // The chat view opens sessions that exist: this one starts with a note (no run).
    const seeded = await httpJson(server.baseUrl, "POST", "/v1/sessions/agent%3Amain%3Atools/messages", {
      authorization: `Bearer ${TOKEN}`,
      body: { role: "user", content: "a session for tool turns", label: "Tool turns" },
    });
    assert.ok(seeded.status < 300, seeded.text);
    chromium = await launchChromium();
    page = await chromium.browser.newPage();
    await page.setViewport({ width: 1440, height: 900 });
    recorder = await recordFrames(page);
  });

  after(async () => {
    await chromium?.close();
    await server?.stop();
    await mock?.close();
  });

  test("a sessions_list call and a failing sessions_history call render as tool rows, live and after a reload", async () => {
    await step("login", async () => {
      await page.goto(`${server.baseUrl}/`, { waitUntil: "domcontentloaded" });
      const secret = await waitForDeep(page, 'input[placeholder="Paste the token or type the password"]', UI_STEP_MS);
      await secret.type(TOKEN);
      await page.keyboard.press("Enter");
      const deadline = Date.now() + UI_STEP_MS;
      while (!recorder.helloOk() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      assert.ok(recorder.helloOk(), "no hello-ok after entering the token");
      const hello = recorder.requests().find((r) => r.method === "connect");
      assert.ok(hello?.params?.caps?.includes("tool-events"), "the UI asks for tool events");
    });

    // Two chained rounds without text between them collapse into one group row, as against
    // the real gateway (SPEC §9, ui-06/ui-10); opened, it shows one row per call.
    const rowsOfTheTurn = (rows) =>
      rows.some((t) => /^Sessions/.test(t) && !/failed/.test(t)) &&
      rows.some((t) => /^Session History/.test(t) && /failed/.test(t));
    const openGroup = async () => {
      await waitForText(page, "2 other operations", UI_STEP_MS);
      await waitForText(page, "1 failed", UI_STEP_MS);
      const group = await waitForDeep(page, "button.chat-activity-group__summary", UI_STEP_MS);
      await group.evaluate((button) => button.click());
      return waitForRows(rowsOfTheTurn, "rows of the opened group");
    };

    await step("live-tool-rows", async () => {
      await page.goto(`${server.baseUrl}/chat/main/tools`, { waitUntil: "domcontentloaded" });
      await sendFromComposer(
        'SAY(Looking around.) CALL sessions_list {"limit":5} THEN CALL sessions_history {"sessionKey":"agent:main:nope-missing"} THEN FINAL(All done.)',
      );
      await waitForText(page, "All done.", UI_STEP_MS);
      // The text said before the calls stays its own paragraph.
      await waitForText(page, "Looking around.", UI_STEP_MS);
      await openGroup();
    });

    await step("history-tool-rows", async () => {
      await page.reload({ waitUntil: "domcontentloaded" });
      await waitForText(page, "All done.", UI_STEP_MS);
      await waitForText(page, "Looking around.", UI_STEP_MS);
      await openGroup();
    });

    await step("tool-row-expanded", async () => {
      const row = await findDeep(page, "button.chat-tool-row");
      assert.ok(row, "a tool row to open");
      await row.evaluate((button) => button.click());
      // The expanded box shows the result JSON of sessions_list (its `sessions` list).
      await waitForText(page, '"sessions"', UI_STEP_MS);
    });
  });
});
