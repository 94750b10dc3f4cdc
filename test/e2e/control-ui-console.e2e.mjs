// Acceptance test: the real OpenClaw Control UI in headless Chromium as a hosted tenant's
// console, against a real `wrangler dev` of this service: the agent renamed in Settings ›
// Agents; the runner switched in Settings › Advanced › Raw (config.set over its hash) and used
// by the next run; the Usage page showing the tokens of runs just made and the tenant's service
// bill (usage.status); the Logs page showing
// the line of a failed run; transcript search finding a message; `/reset` and `/new` typed in
// the chat; then a sweep of every navigation and settings page: no `unknown method` anywhere,
// and no method called more than 12 times in a minute while a chat sits open.
// Screenshots go to test-results/control-ui-console/ (git-ignored).
// Run with `node --test test/e2e/control-ui-console.e2e.mjs`.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { chromiumMissing, openControlUi, pageHasText, waitForText } from "./browser.mjs";
import { httpJson } from "./http-json.mjs";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SHOTS_DIR = join(REPO_ROOT, "test-results", "control-ui-console");
const TOKEN = "dev-operator-token";
const UI_STEP_MS = 30_000;
/** The most a sweep waits on one page for its calls to be answered and go quiet. */
const DWELL_MS_MAX = 5_000;
const IDLE_MS = 60_000;
const MAX_CALLS_PER_MINUTE = 12;

const skip = chromiumMissing();
process.once("exit", killAllServersNow);

let server;
let model;
let chromium;
let page;
let recorder;
/** Steps, navigation, clicks and answers on the page (browser.mjs). */
let ui;

/** An OpenAI-compatible model on 127.0.0.1 that streams `MODEL SAYS: <last user text>` with usage. */
function startModel() {
  const srv = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw || "{}");
    const last = [...(body.messages ?? [])].reverse().find((m) => m.role === "user");
    const text = `MODEL SAYS: ${typeof last?.content === "string" ? last.content : ""}`;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text }, finish_reason: "stop" }] })}\n\n`,
    );
    res.write(
      `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 40, completion_tokens: 2, total_tokens: 42 } })}\n\n`,
    );
    res.end("data: [DONE]\n\n");
  });
  return new Promise((done) =>
    srv.listen(0, "127.0.0.1", () =>
      done({ url: `http://127.0.0.1:${srv.address().port}/v1`, close: () => srv.close() }),
    ),
  );
}

const api = (method, path, body) => httpJson(server.baseUrl, method, path, { authorization: `Bearer ${TOKEN}`, body });

describe("the Control UI as the tenant's console", { skip: skip ?? false }, () => {
  before(async () => {
    mkdirSync(SHOTS_DIR, { recursive: true });
    assert.ok(existsSync(join(REPO_ROOT, "public", "index.html")), "public/index.html is missing: run npm install");
    model = await startModel();
    server = await startServer({ readyTimeoutMs: 60_000 });
    const config = await api("PUT", "/v1/config", {
      agents: {
        list: [
          { id: "main", default: true },
          { id: "broken", runner: { type: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "nowhere" } },
        ],
      },
    });
    assert.equal(config.status, 200, config.text);
    await api("POST", "/v1/sessions/agent%3Amain%3Anotes/messages", {
      role: "user",
      content: "The quarterly budget review is on Friday.",
    });
    await api("POST", "/v1/sessions/agent%3Abroken%3Amain/messages", { role: "user", content: "fail", run: true });
    chromium = await openControlUi({ baseUrl: server.baseUrl, token: TOKEN, shotsDir: SHOTS_DIR, stepMs: UI_STEP_MS });
    ({ page, recorder, ui } = chromium);
  });

  after(async () => {
    await chromium?.close();
    await server?.stop();
    model?.close();
  });

  test("Settings: the agent renamed, the runner switched in the raw config and used by the next run", async () => {
    await ui.step("agent-renamed", async () => {
      const since = Date.now();
      await ui.openRoute("/settings/agents");
      await ui.fill('input[placeholder="Agent name"]', "Ledger bot");
      await ui.clickText("button", "Save");
      const { params, answer } = await ui.answerOf("agents.update", since);
      assert.equal(answer.ok, true, JSON.stringify(answer.error));
      assert.equal(params.name, "Ledger bot");
      const config = await api("GET", "/v1/config");
      assert.equal(config.json.config.agents.list.find((a) => a.id === "main").name, "Ledger bot");
    });
    await ui.step("runner-switched", async () => {
      const since = Date.now();
      await ui.openRoute("/settings/advanced");
      await ui.clickText("button", "Raw");
      const current = (await api("GET", "/v1/config")).json.config;
      const next = structuredClone(current);
      next.agents.list.find((a) => a.id === "main").runner = { type: "openai", baseUrl: model.url, model: "console" };
      await ui.fill('textarea[placeholder="Raw config (JSON/JSON5)"]', JSON.stringify(next, null, 2));
      await ui.clickText("button", "Save");
      const { params, answer } = await ui.answerOf("config.set", since);
      assert.equal(answer.ok, true, JSON.stringify(answer.error));
      assert.match(params.baseHash, /^[0-9a-f]{64}$/);
      // The next run uses it.
      const sent = await api("POST", "/v1/sessions/agent%3Amain%3Aafter-switch/messages", {
        role: "user",
        content: "which runner?",
        run: true,
      });
      assert.equal(sent.status, 201, sent.text);
      const runId = sent.json.runId;
      const run = await api("GET", `/v1/runs/${runId}?wait=10`);
      assert.equal(run.json.run.reply, "MODEL SAYS: which runner?");
    });
  });

  test("Usage shows today's tokens; Logs shows the failed run; search finds a message", async () => {
    await ui.step("usage", async () => {
      const since = Date.now();
      await ui.openRoute("/usage");
      const { answer } = await ui.answerOf("sessions.usage", since);
      assert.equal(answer.ok, true, JSON.stringify(answer.error));
      const total = answer.payload.totals.totalTokens;
      assert.ok(total >= 42, `tokens in the usage answer: ${total}`);
      await waitForText(page, total.toLocaleString("en-US"), UI_STEP_MS);
      // The tenant's service bill as the page's provider card (usage.status), as GET /v1/usage reports it.
      const { answer: status } = await ui.answerOf("usage.status", since);
      assert.equal(status.ok, true, JSON.stringify(status.error));
      const [card] = status.payload.providers;
      const own = await api("GET", "/v1/usage");
      assert.ok(
        card.billing[0].amount > 0 && card.billing[0].amount <= own.json.totals.estimateUsd,
        JSON.stringify(card),
      );
      await waitForText(page, "This service (Cloudflare Workers)", UI_STEP_MS);
      await waitForText(page, card.summary, UI_STEP_MS);
      await ui.shot("usage-service-card");
    });
    await ui.step("logs", async () => {
      await ui.openRoute("/logs");
      await waitForText(page, "run.failed", UI_STEP_MS);
      await waitForText(page, "model endpoint unreachable", UI_STEP_MS);
    });
    await ui.step("search", async () => {
      const since = Date.now();
      await ui.openRoute("/sessions");
      await ui.fill('input[placeholder="Search exact words or phrases…"]', "budget review");
      await ui.clickText("button", "Search");
      const { answer } = await ui.answerOf("sessions.search", since);
      assert.equal(answer.ok, true, JSON.stringify(answer.error));
      assert.deepEqual(
        answer.payload.results.map((hit) => hit.sessionKey),
        ["agent:main:notes"],
      );
      // The UI lists the hit with its snippet (not only the sidebar's title).
      const deadline = Date.now() + UI_STEP_MS;
      while ((await pageHasText(page, "Searching transcripts")) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal(await pageHasText(page, "Searching transcripts"), false, "the search finished in the UI");
      await waitForText(page, "Transcript matches: 1", UI_STEP_MS);
    });
  });

  test("/reset resets the session and /new starts one, typed in the chat", async () => {
    await ui.step("reset", async () => {
      await page.goto(`${server.baseUrl}/chat/main/notes`, { waitUntil: "domcontentloaded" });
      await waitForText(page, "quarterly budget review", UI_STEP_MS);
      const before = (await api("GET", "/v1/sessions?limit=100")).json.sessions.find(
        (s) => s.key === "agent:main:notes",
      );
      await ui.sendFromComposer("/reset");
      await waitForText(page, "✅ Session reset.", UI_STEP_MS);
      const after = (await api("GET", "/v1/sessions?limit=100")).json.sessions.find(
        (s) => s.key === "agent:main:notes",
      );
      assert.notEqual(after.sessionId, before.sessionId);
    });
    await ui.step("new", async () => {
      // The UI starts a new session itself for `/new` (sessions.create, then that chat opens);
      // a /new that reaches chat.send is answered by the service. Either way no model runs.
      const since = Date.now();
      const from = page.url();
      await ui.sendFromComposer("/new");
      const deadline = Date.now() + UI_STEP_MS;
      while (page.url() === from && !(await pageHasText(page, "✅ New session started.")) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
      }
      const requests = recorder.requests(since);
      assert.ok(
        requests.some((r) => r.method === "sessions.create") || (await pageHasText(page, "✅ New session started.")),
        `after /new: ${requests.map((r) => r.method).join(", ")}`,
      );
      assert.ok(!requests.some((r) => r.method === "chat.send" && r.params.message !== "/new"));
    });
  });

  test("every page: no unknown method, and no method polled more than 12 times a minute", {
    timeout: 600_000,
  }, async () => {
    const core = readFileSync(join(REPO_ROOT, "public", "index.html"), "utf8").match(
      /assets\/control-ui-core-[^"]+\.js/,
    );
    const bundle = core ? readFileSync(join(REPO_ROOT, "public", core[0]), "utf8") : "";
    const settings = [...new Set(bundle.match(/`\/settings\/[a-z-]+`/g) ?? [])].map((route) => route.slice(1, -1));
    const routes = ["/chat/main", "/agents", "/dashboards", "/systems", "/automations", "/plugins", "/sessions"];
    routes.push("/usage", "/logs", "/debug", "/activity", "/skills", "/worktrees", "/nodes", "/channels", ...settings);
    const problems = [];
    for (const route of routes) {
      const since = Date.now();
      await ui.openRoute(route);
      await recorder.settled(since, { maxMs: DWELL_MS_MAX });
      const unknown = recorder.failures(since).filter((f) => /unknown method/.test(f.error?.message ?? ""));
      if (unknown.length > 0 || (await pageHasText(page, "unknown method"))) {
        problems.push(`${route}: ${unknown.map((f) => f.method).join(", ") || "text on the page"}`);
        await ui.shot(`sweep${route.replaceAll("/", "_")}-FAILED`);
      }
    }
    assert.deepEqual(problems, [], "pages with unknown methods");
    // A minute on an open chat, counted. (The Gateway page's live monitor pings last-heartbeat
    // and system.info every ~5 s by the UI's own design, as against the real gateway: not a retry.)
    await page.goto(`${server.baseUrl}/chat/main/after-switch`, { waitUntil: "domcontentloaded" });
    const since = Date.now();
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const counts = {};
    for (const request of recorder.requests(since)) counts[request.method] = (counts[request.method] ?? 0) + 1;
    const busy = Object.entries(counts).filter(([, n]) => n > MAX_CALLS_PER_MINUTE);
    assert.deepEqual(busy, [], `calls in a minute on an idle page: ${JSON.stringify(counts)}`);
  });
});
