#!/usr/bin/env node
// Serves a worker directly in workerd through Miniflare, without wrangler dev's proxy worker in
// front of it (production has no such hop). Run as a child process by bench/lib/server.mjs, so
// the bench can kill its process group and find its `workerd` child for CPU and memory figures.
// --port is a socket of workerd bound straight to the worker (Miniflare's `unsafeDirectSockets`):
// no Miniflare entry worker and, for the service, no asset proxy and router workers in front of
// it: JavaScript hops per request and per upgrade that Cloudflare's edge does not have (the
// service runs its Worker first for every request). Miniflare's own entry socket is on a random
// port, unused.
//
//   node bench/lib/direct-server.mjs --root <repo> --port <n> --persist <dir> --bundle <index.js>
//     the service: wrangler.toml's bindings, .dev.vars.example's secrets, the prebuilt bundle
//     (`wrangler deploy --dry-run --outdir …`, which must lie inside --root)
//   node bench/lib/direct-server.mjs --floor --root <repo> --port <n> --persist <dir>
//     the runtime floor control: bench/lib/floor-worker.mjs (one empty hibernating object)
//   node bench/lib/direct-server.mjs --worker <file.mjs> [--durable-object BINDING=Class …]
//       [--var NAME=value …] --root <repo> --port <n> --persist <dir>
//     a bench-only worker (one plain JS module in bench/lib/, e.g. hub-worker.mjs) with the given
//     SQLite-backed Durable Object bindings and text vars, plus SELF_URL (its own base URL);
//     --floor is short for --worker floor-worker.mjs --durable-object HUB=Hub
//
// Prints `direct-server ready <url>` once listening; SIGTERM / SIGINT dispose Miniflare and exit.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, parseEnv } from "node:util";

const HOST = "127.0.0.1";
const SERVICE_NAME = "openclaw-sessions";
const SOCKET_WORKER = "bench-socket";
const LIB_DIR = dirname(fileURLToPath(import.meta.url));

const { values: opts } = parseArgs({
  options: {
    root: { type: "string" },
    port: { type: "string" },
    persist: { type: "string" },
    bundle: { type: "string" },
    floor: { type: "boolean", default: false },
    worker: { type: "string" },
    "durable-object": { type: "string", multiple: true, default: [] },
    var: { type: "string", multiple: true, default: [] },
  },
});
const root = resolve(opts.root ?? process.cwd());
const port = Number(opts.port);
if (!Number.isInteger(port) || port <= 0) throw new Error(`direct-server: --port <n> required (got ${opts.port})`);
if (!opts.persist) throw new Error("direct-server: --persist <dir> required");
if (opts.floor) {
  opts.worker = "floor-worker.mjs";
  opts["durable-object"] = ["HUB=Hub"];
}
if (!opts.worker && !opts.bundle)
  throw new Error("direct-server: --bundle <index.js> required (or --floor / --worker)");

// The repo's own miniflare (wrangler's dependency) and wrangler, whatever the cwd.
const require = createRequire(join(root, "package.json"));
const { Log, LogLevel, Miniflare, convertV4MiniflareOptions } = require("miniflare");

function serviceWorker() {
  process.chdir(root); // wrangler resolves the config's relative paths (assets) from the cwd
  const { workerOptions } = require("wrangler").unstable_getMiniflareWorkerOptions(join(root, "wrangler.toml"));
  // The secrets `wrangler dev --env-file .dev.vars.example` would bind (KEY=value, quotes allowed).
  const secrets = parseEnv(readFileSync(join(root, ".dev.vars.example"), "utf8"));
  return {
    ...workerOptions,
    name: SERVICE_NAME,
    bindings: { ...workerOptions.bindings, ...secrets, ...pairs(opts.var, "var") },
    // The bundle is one ES module; workerd refuses a scriptPath outside rootPath (the cwd).
    modules: true,
    modulesRules: undefined,
    rootPath: undefined,
    scriptPath: resolve(opts.bundle),
  };
}

/** `NAME=value` pairs (repeated options) as an object. */
function pairs(list, option) {
  const out = {};
  for (const item of list) {
    const at = item.indexOf("=");
    if (at <= 0) throw new Error(`direct-server: --${option} wants NAME=value, got ${item}`);
    out[item.slice(0, at)] = item.slice(at + 1);
  }
  return out;
}

/** A bench-only worker: one ES module with its Durable Object classes, served with text vars. */
function benchWorker() {
  const scriptPath = resolve(LIB_DIR, opts.worker);
  const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(
    readFileSync(join(root, "wrangler.toml"), "utf8"),
  )?.[1];
  const durableObjects = {};
  for (const [binding, className] of Object.entries(pairs(opts["durable-object"], "durable-object"))) {
    durableObjects[binding] = { className, useSQLite: true };
  }
  return {
    name: basename(scriptPath, ".mjs"),
    compatibilityDate,
    modules: true,
    rootPath: dirname(scriptPath),
    scriptPath,
    durableObjects,
    bindings: { ...pairs(opts.var, "var"), SELF_URL: `http://${HOST}:${port}` },
  };
}

/**
 * A worker that only owns the listening socket, bound to the served worker's default entrypoint.
 * Declared on the served worker itself, Miniflare would route a worker with static assets
 * through its asset proxy and router workers first; with `run_worker_first` Cloudflare invokes
 * the Worker directly (the Worker calls ASSETS itself, which stays bound).
 */
function socketWorker() {
  const served = opts.worker ? basename(opts.worker, ".mjs") : SERVICE_NAME;
  return {
    name: SOCKET_WORKER,
    modules: [{ type: "ESModule", path: "socket.mjs", contents: "export default {};" }],
    unsafeDirectSockets: [{ host: HOST, port, serviceName: served }],
  };
}

const mf = new Miniflare(
  convertV4MiniflareOptions({
    host: HOST,
    port: 0,
    // No request.cf data from workers.cloudflare.com (no internet needed).
    cf: false,
    // BENCH_INSPECTOR_PORT: workerd's V8 inspector there (a CPU profile of the served worker).
    ...(process.env.BENCH_INSPECTOR_PORT ? { inspectorPort: Number(process.env.BENCH_INSPECTOR_PORT) } : {}),
    resourcePersistencePath: resolve(opts.persist),
    log: new Log(LogLevel.WARN),
    workers: [opts.worker ? benchWorker() : serviceWorker(), socketWorker()],
  }),
);

let disposing = false;
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(signal, () => {
    if (disposing) return;
    disposing = true;
    mf.dispose().then(
      () => process.exit(0),
      (error) => {
        console.error(`direct-server: dispose failed: ${error.stack ?? error}`);
        process.exit(1);
      },
    );
  });
}

await mf.ready;
const url = await mf.unsafeGetDirectURL(SOCKET_WORKER);
console.log(`direct-server ready ${url.href} (${opts.worker ? basename(opts.worker) : SERVICE_NAME})`);
