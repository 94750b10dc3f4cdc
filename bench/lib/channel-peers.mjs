// The outside world of a channel bench, each in its own process on 127.0.0.1: the fake Telegram
// Bot API / Slack Web API of ../shared/peer/channels (test/peers/fake-*.mjs) and the real OpenClaw
// gateway (node_modules/openclaw) configured as ../shared/peer/channels/scripts/start.sh does:
// Telegram in webhook mode on its own listener port, a mock model provider, state in a temp dir.
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { freePort } from "./server.mjs";

/** npm install of @openclaw/slack (~1-3 min on a loaded machine). */
const PLUGIN_INSTALL_TIMEOUT_MS = 180_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Every child started here, killed (whole process group) on exit whatever happens. */
const children = new Set();
process.once("exit", () => {
  for (const child of children) killGroup(child, "SIGKILL");
});

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** The first error line of a child's output (else its last line): the reason to report. */
const firstError = (lines) => (lines.find((l) => /error/i.test(l)) ?? lines.at(-1) ?? "no output").trim();

/**
 * Starts `node <args>` in its own process group, its output kept in `logLines`; with `ready`,
 * `started` resolves on the first output line it accepts (rejects on exit or after `readyTimeoutMs`).
 */
function startNode(args, { env, cwd, ready, readyTimeoutMs = 0, label, logLines = [] }) {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  children.add(child);
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  exited.then(() => children.delete(child));
  const started = new Promise((resolve, reject) => {
    const timer = ready
      ? setTimeout(() => reject(new Error(`${label}: not ready after ${readyTimeoutMs / 1000} s`)), readyTimeoutMs)
      : undefined;
    const onData = (chunk) => {
      for (const line of String(chunk).split("\n")) {
        if (!line.trim()) continue;
        logLines.push(line);
        if (logLines.length > 400) logLines.shift();
        if (ready?.(line)) {
          clearTimeout(timer);
          resolve();
        }
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited (code ${code}, signal ${signal})`));
    });
  });
  const stop = async () => {
    if (!children.has(child)) return;
    killGroup(child, "SIGTERM");
    const killed = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
    if (!killed) killGroup(child, "SIGKILL");
    await exited;
  };
  return { child, started, exited, stop };
}

/**
 * A fake platform API (`script`: test/peers/fake-telegram.mjs or fake-slack.mjs) on a free port.
 * `calls(since)` is its call log: [{ seq, t (epoch ms when the call arrived), method, body, status }].
 */
export async function startFakeApi(script, { env = {}, label = "fake API" } = {}) {
  const port = await freePort();
  const proc = startNode([script, String(port)], {
    env,
    label,
    readyTimeoutMs: 15_000,
    ready: (line) => line.includes(`127.0.0.1:${port}`),
  });
  await proc.started;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    async calls(since = 0) {
      const res = await fetch(`${url}/__calls?since=${since}`);
      return (await res.json()).calls;
    },
    /** Makes the next `count` calls of `method` fail (`/__fail`: the fake's error fields). */
    async fail(failure) {
      const res = await fetch(`${url}/__fail`, { method: "POST", body: JSON.stringify(failure) });
      return res.json();
    },
    stop: proc.stop,
  };
}

/**
 * The real OpenClaw gateway with Telegram in webhook mode (and Slack in HTTP mode when
 * `slack` is given and the @openclaw/slack plugin installs), state in a fresh temp dir.
 * Resolves once it is up (its gateway port answers); the caller waits for `setWebhook` at the fake.
 * Returns { webhookUrl, slackUrl?, slackSkipped?, logTail(), stop() }.
 */
export async function startRealGateway({ repoRoot, modelUrl, telegram, slack, log, startTimeoutMs = 240_000 }) {
  const dir = await mkdtemp(join(os.tmpdir(), "bench-openclaw-"));
  const home = join(dir, "home");
  const state = join(dir, "state");
  await mkdir(join(home, "workspace"), { recursive: true });
  await mkdir(state, { recursive: true });
  const [gwPort, webhookPort] = [await freePort(), await freePort()];
  const token = "bench-gw-token-0123456789abcdef";
  // BENCH_OPENCLAW_CLI: another openclaw.mjs (e.g. a newer release) than the devDependency.
  const cli = process.env.BENCH_OPENCLAW_CLI ?? join(repoRoot, "node_modules/openclaw/openclaw.mjs");
  const config = {
    gateway: { mode: "local", port: gwPort, bind: "loopback", auth: { mode: "token", token } },
    session: { dmScope: "main" },
    agents: { defaults: { model: { primary: "mock/echo" }, workspace: join(home, "workspace") } },
    models: {
      mode: "merge",
      providers: {
        mock: {
          baseUrl: modelUrl,
          apiKey: "mock-key",
          api: "openai-completions",
          models: [
            {
              id: "echo",
              name: "Echo Mock",
              reasoning: false,
              input: ["text"],
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              contextWindow: 128000,
              maxTokens: 4096,
            },
          ],
        },
      },
    },
    channels: {
      telegram: {
        enabled: true,
        botToken: telegram.botToken,
        apiRoot: telegram.apiRoot,
        webhookUrl: `http://127.0.0.1:${webhookPort}/telegram-webhook`,
        webhookSecret: telegram.secret,
        webhookHost: "127.0.0.1",
        webhookPort,
        webhookPath: "/telegram-webhook",
        dmPolicy: "open",
        allowFrom: ["*"],
      },
    },
  };
  const configPath = join(state, "openclaw.json");
  const env = {
    HOME: home,
    OPENCLAW_HOME: home,
    OPENCLAW_STATE_DIR: state,
    OPENCLAW_CONFIG_PATH: configPath,
    OPENCLAW_GATEWAY_TOKEN: token,
    OPENCLAW_DISABLE_BONJOUR: "1",
    OPENCLAW_SKIP_GMAIL_WATCHER: "1",
    NO_COLOR: "1",
  };
  await writeFile(configPath, `${JSON.stringify(config, null, 2)}\n`);
  let slackSkipped;
  if (slack) {
    // The plugin is not bundled; a plugin from a plain folder is refused (PLUGIN_TRUST_REFUSED).
    log("real gateway: installing @openclaw/slack (npm) into its state dir");
    const lines = [];
    const install = startNode([cli, "plugins", "install", "@openclaw/slack"], {
      env: { ...env, npm_config_cache: join(dir, "npm-cache") },
      cwd: dir,
      label: "openclaw plugins install @openclaw/slack",
      logLines: lines,
    });
    install.started.catch(() => {});
    let timer;
    const outcome = await Promise.race([
      install.exited,
      new Promise((resolve) => {
        timer = setTimeout(() => resolve(null), PLUGIN_INSTALL_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (outcome?.code !== 0) {
      await install.stop();
      slackSkipped = `plugins install @openclaw/slack ${outcome ? `exited ${outcome.code}` : `timed out after ${PLUGIN_INSTALL_TIMEOUT_MS / 1000} s`}: ${firstError(lines).slice(0, 300)}`;
      log(`real gateway: ${slackSkipped}`);
    } else {
      const installed = JSON.parse(await readFile(configPath, "utf8"));
      installed.channels.slack = {
        enabled: true,
        mode: "http",
        botToken: slack.botToken,
        signingSecret: slack.signingSecret,
        webhookPath: "/slack/events",
        dmPolicy: "open",
        allowFrom: ["*"],
      };
      await writeFile(configPath, `${JSON.stringify(installed, null, 2)}\n`);
      env.SLACK_API_URL = `${slack.apiRoot}/api/`;
    }
  }
  const logLines = [];
  const gateway = startNode(
    [cli, "gateway", "run", "--port", String(gwPort), "--bind", "loopback", "--auth", "token", "--token", token],
    { env, cwd: dir, label: "real gateway", logLines },
  );
  gateway.started.catch(() => {});
  const stop = async () => {
    await gateway.stop();
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  };
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${gwPort}/`, { signal: AbortSignal.timeout(2_000) }).then(
      () => true,
      () => false,
    );
    if (up) break;
    const exitedAlready = await Promise.race([gateway.exited, sleep(1_000).then(() => null)]);
    if (exitedAlready) {
      const tail = firstError(logLines);
      await stop();
      throw new Error(`real gateway exited (code ${exitedAlready.code}) before answering: ${tail.slice(0, 400)}`);
    }
    if (Date.now() > deadline) {
      const tail = firstError(logLines);
      await stop();
      throw new Error(`real gateway not up after ${startTimeoutMs / 1000} s: ${tail.slice(0, 400)}`);
    }
  }
  return {
    webhookUrl: `http://127.0.0.1:${webhookPort}/telegram-webhook`,
    slackUrl: slack && !slackSkipped ? `http://127.0.0.1:${gwPort}/slack/events` : undefined,
    slackSkipped,
    pid: gateway.child.pid,
    logTail: (n = 20) => logLines.slice(-n),
    stop,
  };
}
