// Acceptance test: the published `openclaw tui --url … --token … --session main` (openclaw
// 2026.9.6, a v3-signed device, the real TUI code) attached to a `wrangler dev` of this service.
// It runs in a tmux pseudo-terminal on a private tmux socket; the assertions read the screen.
// Skips when the CLI or tmux is absent (OPENCLAW_BIN names the CLI; see openclaw-cli.mjs).
//
// The tests run in order and share one server and one TUI on session `agent:main:main`.
// On a failure the error message carries the TUI's screen.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import {
  appendMessage,
  findOpenclawCli,
  historyOf,
  OPERATOR_TOKEN,
  sleep,
  textOf,
  waitUntil,
} from "./openclaw-cli.mjs";

const run = promisify(execFile);
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SESSION = "agent:main:main";
const OTHER_SESSION = "agent:main:other";

const SERVER_START_MS = 30_000;
const ATTACH_MS = 30_000; // the CLI loads for a few seconds before it connects
const STEP_MS = 15_000;
const TEST_MS = 45_000;
const SCREEN_COLUMNS = 160;
const SCREEN_ROWS = 50;

// What the TUI prints when a gateway call fails or the socket drops (tui-*.mjs): "send failed:",
// "session description failed:", "gateway disconnected:", "unknown method: …".
const TUI_FAILURE = /failed:|unknown method|disconnected|device signature/i;

process.once("exit", killAllServersNow);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    killAllServersNow();
    process.exit(130);
  });
}

async function tmuxMissing() {
  try {
    await run("tmux", ["-V"]);
    return undefined;
  } catch {
    return "tmux is not installed (apt-get install -y tmux): the TUI needs a pseudo-terminal";
  }
}

const cli = await findOpenclawCli();
const skip = cli.skip ?? (await tmuxMissing()) ?? false;

describe("openclaw tui --url against wrangler dev", { skip, timeout: 240_000 }, () => {
  let server;
  let workDir; // HOME and OPENCLAW_STATE_DIR of the CLI, the tmux config
  const tmuxSocket = `oc-tui-e2e-${process.pid}`;
  const serverLog = [];
  const seeded = {
    user: "history line written before the TUI started",
    assistant: "an earlier answer in the history",
    other: "the history of another session",
  };

  const tmux = (...args) => run("tmux", ["-L", tmuxSocket, ...args], { timeout: 10_000 });

  /** The whole pane (scrollback included), wrapped lines joined. */
  async function screen() {
    const { stdout } = await tmux("capture-pane", "-p", "-J", "-t", "tui", "-S", "-", "-E", "-");
    return stdout;
  }

  /** The pane's process, if it has ended: `{ status }`. */
  async function paneExit() {
    const { stdout } = await tmux("display-message", "-p", "-t", "tui", "#{pane_dead} #{pane_dead_status}");
    const [dead, status] = stdout.trim().split(" ");
    return dead === "1" ? { status } : undefined;
  }

  /** Waits until the screen shows `text`; fails early if the TUI exited. */
  async function waitForScreen(text, ms, what) {
    let last = "";
    return waitUntil(
      async () => {
        last = await screen();
        if (last.includes(text)) return last;
        const exit = await paneExit();
        if (exit) throw new Error(`the TUI exited (status ${exit.status}) before ${what}:\n${indent(last)}`);
        return undefined;
      },
      ms,
      () => `${what} (screen shows no ${JSON.stringify(text)}):\n${indent(last)}`,
    );
  }

  const indent = (text) =>
    text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => `    | ${line}`)
      .join("\n");

  before(async () => {
    workDir = await mkdtemp(join(tmpdir(), "oc-tui-e2e-"));
    server = await startServer({
      cwd: REPO_ROOT,
      readyTimeoutMs: SERVER_START_MS,
      log: (line) => serverLog.push(line),
    });
    await appendMessage(server.baseUrl, SESSION, "user", seeded.user);
    await appendMessage(server.baseUrl, SESSION, "assistant", seeded.assistant);
    await appendMessage(server.baseUrl, OTHER_SESSION, "user", seeded.other);

    const config = join(workDir, "tmux.conf");
    // remain-on-exit keeps a crashed TUI's last words on the screen for the failure message.
    await writeFile(config, "set -g remain-on-exit on\nset -g status off\nset -g history-limit 10000\n");
    const home = join(workDir, "home");
    await tmux(
      "-f",
      config,
      "new-session",
      "-d",
      "-s",
      "tui",
      "-x",
      String(SCREEN_COLUMNS),
      "-y",
      String(SCREEN_ROWS),
      "env",
      `HOME=${home}`,
      `OPENCLAW_HOME=${home}`,
      `OPENCLAW_STATE_DIR=${join(workDir, "state")}`,
      `PATH=${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
      "TERM=xterm-256color",
      "NO_COLOR=1",
      cli.command,
      ...cli.args,
      "tui",
      "--url",
      `ws://127.0.0.1:${server.port}`,
      "--token",
      OPERATOR_TOKEN,
      "--session",
      "main",
    );
  });

  after(async () => {
    await tmux("kill-server").catch(() => {});
    await server?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
  });

  test("attaches to the session named by --session and shows its history", { timeout: TEST_MS }, async () => {
    await waitForScreen("gateway connected", ATTACH_MS, "the TUI connects (v3 device signature accepted)");
    const shown = await waitForScreen(seeded.assistant, STEP_MS, "the TUI shows the session's history");
    assert.ok(shown.includes(`session ${SESSION}`), `the TUI should name ${SESSION}:\n${indent(shown)}`);
    assert.ok(shown.includes(seeded.user), `the TUI should show the user message of the history:\n${indent(shown)}`);
    assert.ok(
      shown.indexOf(seeded.user) < shown.indexOf(seeded.assistant),
      `the history should be shown oldest first:\n${indent(shown)}`,
    );
  });

  test("sends what is typed and shows the echo runner's reply, which the transcript then holds", {
    timeout: TEST_MS,
  }, async () => {
    const typed = "hello from the openclaw tui";
    await tmux("send-keys", "-t", "tui", "-l", typed);
    await tmux("send-keys", "-t", "tui", "Enter");
    const shown = await waitForScreen(`ECHO: ${typed}`, STEP_MS, "the TUI shows the reply");
    assert.ok(
      shown.indexOf(typed) < shown.indexOf(`ECHO: ${typed}`),
      `the reply should follow the message:\n${indent(shown)}`,
    );

    const tail = (await historyOf(server.baseUrl, SESSION)).slice(-2);
    assert.deepEqual(
      tail.map((m) => [m.role, textOf(m)]),
      [
        ["user", typed],
        ["assistant", `ECHO: ${typed}`],
      ],
      "the service's transcript should end with the typed message and the reply",
    );
  });

  test("shows a message another client appends while it is attached", { timeout: TEST_MS }, async () => {
    const text = "appended over HTTP while the TUI is attached";
    await appendMessage(server.baseUrl, SESSION, "assistant", text);
    await waitForScreen(text, STEP_MS, "the TUI shows the appended message live");
  });

  /** Types a line into the TUI's editor and submits it. */
  async function type(line) {
    await tmux("send-keys", "-t", "tui", "-l", line);
    await tmux("send-keys", "-t", "tui", "Enter");
  }

  test("/session <key> switches to that session and shows its history", { timeout: TEST_MS }, async () => {
    await type("/session other");
    await waitForScreen(`session ${OTHER_SESSION}`, STEP_MS, "the TUI names the other session");
    await waitForScreen(seeded.other, STEP_MS, "the TUI shows the other session's history");
  });

  test("/reset resets the current session on the service", { timeout: TEST_MS }, async () => {
    await type("/reset");
    await waitForScreen(`session ${OTHER_SESSION} reset`, STEP_MS, "the TUI reports the reset");
    assert.deepEqual(await historyOf(server.baseUrl, OTHER_SESSION), [], "the reset session's transcript is empty");
  });

  test("/new creates a session on the service, and the next message and its reply go there", {
    timeout: TEST_MS,
  }, async () => {
    await type("/new");
    const shown = await waitForScreen("new session: agent:main:", STEP_MS, "the TUI reports the new session");
    const created = /new session: (agent:main:\S+)/.exec(shown)?.[1];
    assert.ok(created, `the TUI should name the new session:\n${indent(shown)}`);
    const typed = "first words in the new session";
    await type(typed);
    await waitForScreen(`ECHO: ${typed}`, STEP_MS, "the TUI shows the reply in the new session");
    assert.deepEqual(
      (await historyOf(server.baseUrl, created)).map((m) => [m.role, textOf(m)]),
      [
        ["user", typed],
        ["assistant", `ECHO: ${typed}`],
      ],
      `the new session ${created} should hold the message and the reply`,
    );
  });

  test("reports no failed gateway call and no disconnect during the whole session", { timeout: TEST_MS }, async () => {
    // The TUI refreshes its footer (sessions.describe, sessions.list) after each run; let it finish.
    await sleep(1_000);
    const shown = await screen();
    const failure = shown.split("\n").find((line) => TUI_FAILURE.test(line));
    assert.equal(failure, undefined, `the TUI reported a failure:\n${indent(shown)}`);
    assert.equal(await paneExit(), undefined, "the TUI should still be running");
  });
});
