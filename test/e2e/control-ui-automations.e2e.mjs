// Acceptance test: the real OpenClaw Control UI in headless Chromium manages a tenant's
// automations and secrets on a real `wrangler dev` of this service. On the Automations page it
// creates an automation (the UI's own form and `cron.add` params), runs it now (`cron.run`: the
// run lands in its `cron:<jobId>` session), pauses it with its switch, renames
// it in its edit form (`cron.update` with the revision it loaded) and removes it; on Settings › Secrets an operator
// with `operator.admin` adds a protected secret (`secrets.store.set`), which is listed by name
// and never shown. Screenshots go to test-results/control-ui-automations/ (git-ignored).
// Run with `node --test test/e2e/control-ui-automations.e2e.mjs`.
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { chromiumMissing, openControlUi, pageHasText, waitForDeep, waitForText } from "./browser.mjs";
import { httpJson } from "./http-json.mjs";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SHOTS_DIR = join(REPO_ROOT, "test-results", "control-ui-automations");
const TOKEN = "dev-operator-token";
const SERVER_START_MS = 60_000;
const UI_STEP_MS = 30_000;
const JOB_NAME = "E2E heartbeat";
const JOB_PROMPT = "Say the time";
const SECRET_NAME = "E2E_MODEL_KEY";
const SECRET_VALUE = "sk-e2e-never-shown-4711";

const skip = chromiumMissing();
process.once("exit", killAllServersNow);

let server;
let chromium;
let page;
let recorder;
/** Steps, navigation, clicks and answers on the page (browser.mjs). */
let ui;

function api(method, path) {
  return httpJson(server.baseUrl, method, path, { authorization: `Bearer ${TOKEN}` });
}

describe("the Control UI manages automations and secrets", { skip: skip ?? false }, () => {
  before(async () => {
    mkdirSync(SHOTS_DIR, { recursive: true });
    assert.ok(existsSync(join(REPO_ROOT, "public", "index.html")), "public/index.html is missing: run npm install");
    server = await startServer({ readyTimeoutMs: SERVER_START_MS });
    chromium = await openControlUi({ baseUrl: server.baseUrl, token: TOKEN, shotsDir: SHOTS_DIR, stepMs: UI_STEP_MS });
    ({ page, recorder, ui } = chromium);
  });

  after(async () => {
    await chromium?.close();
    await server?.stop();
  });

  test("an automation is created, run now, paused, edited and removed from the Automations page", async () => {
    let jobId;
    await ui.step("automations-list", async () => {
      await ui.openRoute("/automations");
      await waitForText(page, "New automation", UI_STEP_MS);
      assert.equal(await pageHasText(page, "Scheduler disabled"), false, "no scheduler outage banner");
    });
    await ui.step("automation-created", async () => {
      const since = Date.now();
      await ui.clickDeep("button.cron-new-task");
      await ui.typeInto('textarea[placeholder="Describe what OpenClaw should do..."]', JOB_PROMPT);
      await ui.typeInto('input[placeholder="Morning brief"]', JOB_NAME);
      await ui.clickText("button", "Create automation");
      const { params, answer } = await ui.answerOf("cron.add", since);
      assert.equal(answer.ok, true, JSON.stringify(answer.error));
      assert.deepEqual(params.payload, { kind: "agentTurn", message: JOB_PROMPT });
      jobId = answer.payload.id;
      await waitForText(page, JOB_NAME, UI_STEP_MS);
      await waitForText(page, "Every 30m", UI_STEP_MS);
    });
    await ui.step("automation-run-now", async () => {
      const since = Date.now();
      await ui.clickDeep("button.cron-row-run");
      const { params, answer } = await ui.answerOf("cron.run", since);
      assert.equal(answer.ok, true, JSON.stringify(answer.error));
      assert.equal(params.id, jobId);
      await waitForText(page, "Run queued", UI_STEP_MS);
      // The run happened: its session holds the prompt and the echo runner's reply.
      const key = encodeURIComponent(`agent:main:cron:${jobId}`);
      const deadline = Date.now() + UI_STEP_MS;
      let texts = [];
      while (Date.now() < deadline) {
        const history = await api("GET", `/sessions/${key}/history`);
        texts = (history.json?.messages ?? []).map((m) => JSON.stringify(m.content));
        if (texts.some((t) => t.includes(`ECHO: ${JOB_PROMPT}`))) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      assert.ok(
        texts.some((t) => t.includes(`ECHO: ${JOB_PROMPT}`)),
        `the cron session's transcript: ${texts.join(" | ")}`,
      );
    });
    await ui.step("automation-paused", async () => {
      const since = Date.now();
      await ui.clickDeep('input[type="checkbox"]');
      const { params, answer } = await ui.answerOf("cron.update", since);
      assert.equal(answer.ok, true, JSON.stringify(answer.error));
      assert.deepEqual({ id: params.id, enabled: params.patch?.enabled }, { id: jobId, enabled: false });
      const job = await api("GET", `/v1/automations/${jobId}`);
      assert.equal((job.json?.job ?? job.json)?.enabled, false, job.text);
    });
    await ui.step("automation-edited", async () => {
      const since = Date.now();
      await ui.clickDeep("button.cron-table__name");
      const name = await waitForDeep(page, 'input[placeholder="Morning brief"]', UI_STEP_MS);
      // Emptied as a user would (the form listens to input events), then typed.
      await name.evaluate((input) => {
        input.value = "";
        input.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
      });
      await name.type(`${JOB_NAME} (edited)`, { delay: 2 });
      await ui.clickText("button", "Save changes");
      const { params, answer } = await ui.answerOf("cron.update", since);
      assert.equal(answer.ok, true, JSON.stringify(answer.error));
      assert.equal(params.patch.name, `${JOB_NAME} (edited)`);
      await waitForText(page, `${JOB_NAME} (edited)`, UI_STEP_MS);
    });
    await ui.step("automation-removed", async () => {
      const since = Date.now();
      await ui.clickDeep("button.cron-job-menu__trigger");
      await ui.clickText("*", "Remove");
      // The UI confirms in the page.
      await waitForText(page, `Remove "${JOB_NAME} (edited)"?`, UI_STEP_MS);
      await ui.clickText("button", "Remove");
      const { params, answer } = await ui.answerOf("cron.remove", since);
      assert.equal(answer.ok, true, JSON.stringify(answer.error));
      assert.equal(params.id, jobId);
      await waitForText(page, "No automations yet", UI_STEP_MS);
      const list = await api("GET", "/v1/automations");
      assert.deepEqual(list.json?.jobs ?? list.json?.entries ?? [], [], list.text);
    });
  });

  test("Settings › Secrets adds a protected secret for an admin token; its value is never shown", async () => {
    await ui.step("secrets-page", async () => {
      await ui.openRoute("/settings/secrets");
      await waitForText(page, "Bulk Add", UI_STEP_MS);
      assert.equal(await pageHasText(page, "Gateway/admin required."), false);
    });
    await ui.step("secret-added", async () => {
      const since = Date.now();
      await ui.clickText("button", "Add");
      await ui.typeInto("input.settings-input.mono", SECRET_NAME);
      await ui.typeInto("textarea.secrets-store-dialog__value", SECRET_VALUE);
      await ui.clickText("*", "Protected secret");
      await ui.clickText("button", "Save");
      const { params, answer } = await ui.answerOf("secrets.store.set", since);
      assert.equal(answer.ok, true, JSON.stringify(answer.error));
      assert.equal(params.name ?? params.id, SECRET_NAME);
      await waitForText(page, SECRET_NAME, UI_STEP_MS);
      assert.equal(await pageHasText(page, SECRET_VALUE), false, "the value is not on the page");
      const inFrames = recorder.frames.filter((f) => f.dir === "in" && JSON.stringify(f.frame).includes(SECRET_VALUE));
      assert.deepEqual(inFrames, [], "no answer carries the value back");
    });
  });
});
