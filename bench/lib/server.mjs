// Starts `wrangler dev` for the benchmark in its own process group and tears it down again.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";

const HOST = "127.0.0.1";
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const LOG_LINES_KEPT = 2000;
// ANSI colour codes (wrangler colours its error lines even with NO_COLOR).
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/** Every server still running, so exit and signal handlers can kill them. */
const running = new Set();

/** Asks the kernel for a free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const PORT_WAIT_MS = 10_000;

/** Resolves once `port` on 127.0.0.1 can be listened on again; throws after `timeoutMs`. */
async function waitForPortFree(port, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const error = await new Promise((resolve) => {
      const srv = createServer();
      srv.unref();
      srv.once("error", resolve);
      srv.listen(port, HOST, () => srv.close(() => resolve(undefined)));
    });
    if (!error) return;
    if (Date.now() >= deadline)
      throw new Error(`port ${port} still in use after ${timeoutMs / 1000} s (${error.code ?? error.message})`);
    await sleep(200);
  }
}

/**
 * Starts the service (from `cwd`, the repo root or a snapshot of it) with a fresh persistence
 * dir on a free port and waits for `GET /health`. `removeOnStop` dirs are deleted by stop().
 * To restart a server with its state, pass the previous `port` and `persistDir`: a given
 * `persistDir` belongs to the caller and is kept by stop(); a given `port` is waited for
 * (up to `portWaitMs`) until the previous process has released it.
 * Returns `{ baseUrl, port, persistDir, pid, logTail(), exited, isRunning(), stop() }`.
 * On any failure the process group is killed before the error is thrown.
 */
export async function startServer({
  cwd,
  readyTimeoutMs = READY_TIMEOUT_MS,
  log = () => {},
  removeOnStop = [],
  port: givenPort,
  persistDir: givenPersistDir,
  portWaitMs = PORT_WAIT_MS,
} = {}) {
  let port;
  if (givenPort === undefined) port = await freePort();
  else {
    port = givenPort;
    await waitForPortFree(port, portWaitMs);
  }
  const persistDir = givenPersistDir ?? (await mkdtemp(join(tmpdir(), "oc-bench-state-")));
  const ownedDirs = givenPersistDir === undefined ? [persistDir] : [];
  const args = [
    "wrangler",
    "dev",
    "--ip",
    HOST,
    "--port",
    String(port),
    "--persist-to",
    persistDir,
    "--env-file",
    ".dev.vars.example",
    "--log-level",
    "warn",
    "--show-interactive-dev-session=false",
  ];
  log(`starting: npx ${args.join(" ")}`);
  const env = {
    ...process.env,
    // The node running the bench (>= 22) must also run wrangler, whatever PATH says.
    PATH: [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter),
    WRANGLER_SEND_METRICS: "false",
    // Miniflare would otherwise fetch request.cf data from workers.cloudflare.com (no internet here).
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
  };
  // detached: the child leads a new process group, so stop() reaches npx, wrangler and workerd
  // alike, and a Ctrl-C in the terminal goes only to us (we then stop the group ourselves).
  const child = spawn("npx", args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });

  const lines = [];
  const keep = (chunk) => {
    for (const line of chunk.toString().replace(ANSI, "").split(/\r?\n/)) {
      if (line.trim() === "") continue;
      lines.push(line);
      if (lines.length > LOG_LINES_KEPT) lines.shift();
    }
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);

  let exitInfo;
  const exited = new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
    });
    child.on("error", (error) => {
      exitInfo = { code: null, signal: null, error };
      resolve(exitInfo);
    });
  });

  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // group already gone
    }
  };
  const groupAlive = () => {
    try {
      process.kill(-child.pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  let stopping;
  const server = {
    baseUrl: `http://${HOST}:${port}`,
    port,
    persistDir,
    pid: child.pid,
    exited,
    isRunning: () => exitInfo === undefined,
    logTail: (n = 50) => lines.slice(-n),
    logLines: () => [...lines],
    /** SIGTERM to the whole group, SIGKILL after a grace period; removes the state dir. */
    stop() {
      stopping ??= (async () => {
        if (child.pid !== undefined) {
          killGroup("SIGTERM");
          const deadline = Date.now() + STOP_GRACE_MS;
          while (groupAlive() && Date.now() < deadline) await sleep(100);
          if (groupAlive()) {
            log("server group did not exit after SIGTERM; sending SIGKILL");
            killGroup("SIGKILL");
            for (let i = 0; i < 20 && groupAlive(); i++) await sleep(100);
          }
        }
        for (const dir of [...ownedDirs, ...removeOnStop]) {
          await rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
        }
        running.delete(server);
      })();
      return stopping;
    },
    /** Synchronous last resort for process 'exit'. */
    killNow() {
      if (child.pid !== undefined) killGroup("SIGKILL");
    },
  };
  running.add(server);

  try {
    await waitForHealth(server, readyTimeoutMs, () => exitInfo);
  } catch (error) {
    await server.stop();
    const tail = lines
      .slice(-30)
      .map((l) => `    | ${l}`)
      .join("\n");
    error.message += tail ? `\n  server output (last lines):\n${tail}` : "\n  (server printed nothing)";
    throw error;
  }
  log(`server ready at ${server.baseUrl} (pid ${child.pid}, state ${persistDir})`);
  return server;
}

async function waitForHealth(server, timeoutMs, exitInfo) {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer yet";
  while (Date.now() < deadline) {
    const info = exitInfo();
    if (info) {
      throw new Error(
        `wrangler dev exited before it was ready (code ${info.code}, signal ${info.signal}${info.error ? `, ${info.error.message}` : ""})`,
      );
    }
    try {
      const res = await fetch(`${server.baseUrl}/health`, { signal: AbortSignal.timeout(2_000) });
      const text = await res.text();
      if (res.status === 200) {
        try {
          if (JSON.parse(text).ok === true) return;
        } catch {
          // not JSON yet
        }
      }
      last = `HTTP ${res.status}: ${text.slice(0, 200)}`;
    } catch (error) {
      last = error.cause?.code ?? error.message;
    }
    await sleep(250);
  }
  throw new Error(`server not healthy after ${timeoutMs / 1000} s (last: ${last})`);
}

/** Kills every server still running. For process 'exit' handlers (must be synchronous). */
export function killAllServersNow() {
  for (const server of running) server.killNow();
}

/** Stops every server still running (async, graceful first); waits for stops already under way. */
export async function stopAllServers() {
  await Promise.all([...running].map((s) => s.stop()));
}
