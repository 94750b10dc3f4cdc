// Starts the service for the benchmark in its own process group and tears it down again: under
// `wrangler dev` (the default), or directly in workerd through Miniflare (bench/lib/direct-server.mjs,
// no dev proxy hop), and bench-only workers (the runtime floor control bench/lib/floor-worker.mjs,
// the hubs of bench/lib/hub-worker.mjs) the same way, each in its own workerd.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HOST = "127.0.0.1";
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const LOG_LINES_KEPT = 2000;
const BUNDLE_TIMEOUT_MS = 120_000;
const LIB_DIR = dirname(fileURLToPath(import.meta.url));
const DIRECT_SERVER = join(LIB_DIR, "direct-server.mjs");
/** How the service is served: `wrangler dev` (proxy worker in front) or workerd directly. */
export const RUNTIMES = ["wrangler", "direct"];
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
/** Starts of one `wrangler dev` before its error is thrown (see the port race in startServer). */
const WRANGLER_START_ATTEMPTS = 3;

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

/** Environment of the children: the node running the bench first in PATH, no metrics, no colour. */
function childEnv() {
  return {
    ...process.env,
    // The node running the bench (>= 22) must also run wrangler, whatever PATH says.
    PATH: [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter),
    WRANGLER_SEND_METRICS: "false",
    // Miniflare would otherwise fetch request.cf data from workers.cloudflare.com (no internet here).
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    // wrangler dev's local observability (on by default in wrangler 4.164, this one) streams a trace of
    // every invocation, user spans included, to a collector worker in the service's own workerd:
    // it doubled the CPU of a Telegram DM turn (docs/benchmarks.md, "The 400-DM burst").
    // The bench and the e2e tier measure the service, not wrangler's tracing; "true" keeps it.
    X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? "false",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
  };
}

/**
 * Bundles the worker of `cwd` (the repo root or a snapshot of it) with
 * `wrangler deploy --dry-run` into a fresh dir under `<cwd>/.wrangler/bench-bundle/` (workerd
 * refuses a script outside its root, the cwd; `.wrangler` is git-ignored). Returns
 * `{ dir, script }`; the caller removes `dir`. Throws with wrangler's output when bundling fails.
 */
export async function bundleWorker({ cwd, log = () => {} }) {
  const parent = join(cwd, ".wrangler", "bench-bundle");
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(join(parent, "run-"));
  const args = ["wrangler", "deploy", "--dry-run", "--outdir", dir];
  log(`bundling: npx ${args.join(" ")}`);
  const t0 = Date.now();
  const child = spawn("npx", args, { cwd, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] });
  const output = [];
  child.stdout.on("data", (chunk) => output.push(chunk));
  child.stderr.on("data", (chunk) => output.push(chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), BUNDLE_TIMEOUT_MS);
  const { code, signal, error } = await new Promise((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }));
    child.on("error", (error) => resolve({ code: null, signal: null, error }));
  }).finally(() => clearTimeout(timer));
  if (code !== 0) {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
    const all = Buffer.concat(output)
      .toString()
      .replace(ANSI, "")
      .split(/\r?\n/)
      .filter((l) => l.trim() !== "" && !/^npm warn/i.test(l));
    // wrangler prints its usage after the error: its ERROR lines first, then the last lines.
    const errorLines = all.filter((l) => /\[ERROR\]|✘|^error/i.test(l)).slice(0, 5);
    const tail = [...errorLines, ...(errorLines.length ? ["…"] : []), ...all.slice(-15)]
      .map((l) => `    | ${l}`)
      .join("\n");
    throw new Error(
      `bundling the worker for --direct failed: npx ${args.join(" ")} ${error ? `could not start (${error.message})` : `exited with code ${code}${signal ? `, signal ${signal}` : ""}`}` +
        (tail ? `\n  wrangler output (last lines):\n${tail}` : ""),
    );
  }
  log(`bundled in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${join(dir, "index.js")}`);
  return { dir, script: join(dir, "index.js") };
}

/**
 * Starts the service (from `cwd`, the repo root or a snapshot of it) with a fresh persistence
 * dir on a free port and waits for `GET /health`. `removeOnStop` dirs are deleted by stop().
 * `runtime`: "wrangler" (default) runs `wrangler dev`, which reloads on source changes and puts
 * its proxy worker in front of the service; "direct" bundles `cwd` once (or serves the given
 * `bundle`, an index.js under `cwd` that stays the caller's) and serves it in workerd through
 * Miniflare (bench/lib/direct-server.mjs), without the proxy hop and without reloads.
 * To restart a server with its state, pass the previous `port` and `persistDir`: a given
 * `persistDir` belongs to the caller and is kept by stop(); a given `port` is waited for
 * (up to `portWaitMs`) until the previous process has released it.
 * Returns `{ baseUrl, port, persistDir, pid, runtime, bundle, logTail(), exited, isRunning(), stop() }`
 * (`killAndRestart` below crashes one and starts it again on its state).
 * On any failure the process group is killed before the error is thrown.
 */
export async function startServer({
  cwd,
  runtime = "wrangler",
  bundle: givenBundle,
  readyTimeoutMs = READY_TIMEOUT_MS,
  log = () => {},
  removeOnStop = [],
  port: givenPort,
  persistDir: givenPersistDir,
  portWaitMs = PORT_WAIT_MS,
  /** Text vars over wrangler.toml's (e.g. `{ GATEWAY_HUB_SOCKETS: "2" }`). */
  vars = {},
  /** wrangler's log level: `log` keeps the service's console.log lines in `logLines()`. */
  logLevel = "warn",
} = {}) {
  if (!RUNTIMES.includes(runtime)) throw new Error(`unknown runtime ${runtime} (one of ${RUNTIMES.join(", ")})`);
  let port = await takePort(givenPort, portWaitMs);
  if (runtime === "wrangler") {
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
      logLevel,
      "--show-interactive-dev-session=false",
      ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
    ];
    // Two wrangler devs starting at the same moment can race for one of wrangler's own internal
    // ports, or for the free port picked for this one ("Address already in use"): the loser is
    // started again, on a newly picked port unless the caller named one.
    const portIndex = args.indexOf("--port") + 1;
    for (let attempt = 1; ; attempt++) {
      args[portIndex] = String(port);
      try {
        return await launch({
          label: "wrangler dev",
          ...wranglerCommand(cwd, args),
          cwd,
          port,
          persistDir,
          removeDirs: [...ownedDirs, ...removeOnStop],
          extra: { runtime },
          readyTimeoutMs,
          log,
        });
      } catch (error) {
        if (attempt >= WRANGLER_START_ATTEMPTS || !/Address already in use/.test(String(error?.message))) throw error;
        log(`wrangler dev lost a race for an internal port (attempt ${attempt}); starting it again`);
        await sleep(500 + Math.random() * 1500);
        await mkdir(persistDir, { recursive: true }); // the failed start removed a dir it owned
        if (givenPort === undefined) port = await freePort();
      }
    }
  }
  const removeDirs = [...removeOnStop];
  let bundle = givenBundle;
  try {
    if (bundle === undefined) {
      const built = await bundleWorker({ cwd, log });
      removeDirs.push(built.dir);
      bundle = built.script;
    }
  } catch (error) {
    for (const dir of removeDirs) await rm(dir, { recursive: true, force: true }).catch(() => {});
    throw error;
  }
  const persistDir = givenPersistDir ?? (await mkdtemp(join(tmpdir(), "oc-bench-state-")));
  if (givenPersistDir === undefined) removeDirs.unshift(persistDir);
  const args = [DIRECT_SERVER, "--root", cwd, "--port", String(port), "--persist", persistDir, "--bundle", bundle];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}=${value}`);
  return launch({
    label: "direct workerd (Miniflare)",
    command: process.execPath,
    args,
    cwd,
    port,
    persistDir,
    removeDirs,
    extra: { runtime, bundle },
    readyTimeoutMs,
    log,
  });
}

/**
 * A crash and a start again: SIGKILLs `server`'s whole process group (no shutdown; its state
 * dir stays), then starts the service on the same port and state dir with `options` (pass the
 * first start's `vars` again). A state dir the killed server owned is handed to the new one once
 * it is up, so the new server's stop() removes it (a failed start never removes the state).
 */
export async function killAndRestart(server, options = {}) {
  server.killNow();
  await server.exited;
  const restarted = await startServer({ ...options, port: server.port, persistDir: server.persistDir });
  if (server.ownsPersistDir()) restarted.adoptDir(server.persistDir);
  return restarted;
}

/**
 * Starts the runtime floor control: bench/lib/floor-worker.mjs (one empty hibernating Durable
 * Object) served by Miniflare in its own workerd, as `runtime: "direct"` serves the service.
 * `cwd` is the repo root (its Miniflare and compatibility date are used). Same server object.
 */
export function startFloorServer({ cwd, readyTimeoutMs = READY_TIMEOUT_MS, log = () => {} } = {}) {
  return startWorkerServer({
    cwd,
    worker: "floor-worker.mjs",
    durableObjects: { HUB: "Hub" },
    label: "runtime floor (Miniflare)",
    runtime: "floor",
    readyTimeoutMs,
    log,
  });
}

/**
 * Starts a bench-only worker (`worker`: a module in bench/lib/, which must answer `GET /health`
 * with `{"ok":true}`) in its own workerd through Miniflare, on a free port with a fresh state dir:
 * `durableObjects` maps binding → class (SQLite-backed), `vars` are text bindings; the worker
 * also gets `SELF_URL`, its own base URL. One workerd process per call, so several of them run
 * on separate threads (all objects of one workerd share its one JS thread). Same server object.
 */
export async function startWorkerServer({
  cwd,
  worker,
  durableObjects = {},
  vars = {},
  label = `${worker} (Miniflare)`,
  runtime = "bench-worker",
  readyTimeoutMs = READY_TIMEOUT_MS,
  log = () => {},
} = {}) {
  const port = await freePort();
  const persistDir = await mkdtemp(join(tmpdir(), "oc-bench-worker-"));
  const args = [DIRECT_SERVER, "--worker", worker, "--root", cwd, "--port", String(port), "--persist", persistDir];
  for (const [binding, className] of Object.entries(durableObjects))
    args.push("--durable-object", `${binding}=${className}`);
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}=${value}`);
  return launch({
    label,
    command: process.execPath,
    args,
    cwd,
    port,
    persistDir,
    removeDirs: [persistDir],
    extra: { runtime },
    readyTimeoutMs,
    log,
  });
}

/**
 * `wrangler <args>` as the installed wrangler's own script under this Node, or through npx where
 * `cwd` has none installed: npx costs another Node start (≈0.5 s CPU, 2–6 s on the loaded 2-core
 * box) in front of every `wrangler dev`, and the e2e tier starts about a hundred of them.
 */
function wranglerCommand(cwd, args) {
  const script = join(cwd ?? process.cwd(), "node_modules", "wrangler", "bin", "wrangler.js");
  if (existsSync(script)) return { command: process.execPath, args: [script, ...args.slice(1)] };
  return { command: "npx", args };
}

/** A free port, or the given one once the previous process has released it. */
async function takePort(givenPort, portWaitMs) {
  if (givenPort === undefined) return freePort();
  await waitForPortFree(givenPort, portWaitMs);
  return givenPort;
}

/** Spawns `command args` as the leader of a new process group and waits for its /health. */
async function launch({ label, command, args, cwd, port, persistDir, removeDirs, extra, readyTimeoutMs, log }) {
  log(`starting: ${command === "npx" ? "npx" : "node"} ${args.join(" ")}`);
  // detached: the child leads a new process group, so stop() reaches npx, wrangler and workerd
  // alike, and a Ctrl-C in the terminal goes only to us (we then stop the group ourselves).
  const child = spawn(command, args, { cwd, env: childEnv(), detached: true, stdio: ["ignore", "pipe", "pipe"] });

  const lines = [];
  const lineListeners = new Set();
  const keep = (chunk) => {
    for (const line of chunk.toString().replace(ANSI, "").split(/\r?\n/)) {
      if (line.trim() === "") continue;
      for (const listener of lineListeners) listener(line);
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
    ...extra,
    baseUrl: `http://${HOST}:${port}`,
    port,
    persistDir,
    pid: child.pid,
    exited,
    isRunning: () => exitInfo === undefined,
    logTail: (n = 50) => lines.slice(-n),
    logLines: () => [...lines],
    /** Calls `listener` with each output line from now on (past the kept tail); returns the unsubscribe. */
    onLine(listener) {
      lineListeners.add(listener);
      return () => lineListeners.delete(listener);
    },
    /** SIGTERM to the whole group, SIGKILL after a grace period; removes the state dir. */
    stop() {
      stopping ??= (async () => {
        if (child.pid !== undefined) {
          killGroup("SIGTERM");
          const deadline = Date.now() + STOP_GRACE_MS;
          while (groupAlive() && Date.now() < deadline) await sleep(100);
          if (groupAlive()) {
            log(`${label} group did not exit after SIGTERM; sending SIGKILL`);
            killGroup("SIGKILL");
            for (let i = 0; i < 20 && groupAlive(); i++) await sleep(100);
          }
        }
        for (const dir of removeDirs) {
          await rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
        }
        running.delete(server);
      })();
      return stopping;
    },
    /** Whether stop() removes the state dir (this server made it, or was handed it). */
    ownsPersistDir: () => removeDirs.includes(persistDir),
    /** Hands `dir` to this server: its stop() removes it. */
    adoptDir(dir) {
      if (!removeDirs.includes(dir)) removeDirs.push(dir);
    },
    /** Synchronous last resort for process 'exit'. */
    killNow() {
      if (child.pid !== undefined) killGroup("SIGKILL");
    },
  };
  running.add(server);

  try {
    await waitForHealth(server, readyTimeoutMs, () => exitInfo, label);
  } catch (error) {
    await server.stop();
    const tail = lines
      .slice(-30)
      .map((l) => `    | ${l}`)
      .join("\n");
    error.message += tail ? `\n  server output (last lines):\n${tail}` : "\n  (server printed nothing)";
    throw error;
  }
  log(`${label} ready at ${server.baseUrl} (pid ${child.pid}, state ${persistDir})`);
  return server;
}

async function waitForHealth(server, timeoutMs, exitInfo, label) {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer yet";
  while (Date.now() < deadline) {
    const info = exitInfo();
    if (info) {
      throw new Error(
        `${label} exited before it was ready (code ${info.code}, signal ${info.signal}${info.error ? `, ${info.error.message}` : ""})`,
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
  throw new Error(`${label}: server not healthy after ${timeoutMs / 1000} s (last: ${last})`);
}

/** Kills every server still running. For process 'exit' handlers (must be synchronous). */
export function killAllServersNow() {
  for (const server of running) server.killNow();
}

/** Stops every server still running (async, graceful first); waits for stops already under way. */
export async function stopAllServers() {
  await Promise.all([...running].map((s) => s.stop()));
}
