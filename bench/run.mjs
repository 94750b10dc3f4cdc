#!/usr/bin/env node
// Benchmark runner: `npm run bench [-- suite ...] [-- --quick] [-- --snapshot] [-- --direct] [-- --by-statement]`.
// Starts one `wrangler dev` (or, with --direct, workerd through Miniflare) with fresh state, runs
// the suites in bench/suites/, prints a table per suite, writes bench/results/latest.json, stops
// the server. Exits non-zero on any failure, including requests that errored.
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BENCH_LIMITS, BENCH_SERVER_VARS, DEFAULT_TENANT, setTenantLimits } from "./lib/bench-tenant.mjs";
import { httpClient } from "./lib/http.mjs";
import { printTable } from "./lib/measure.mjs";
import { killAllServersNow, startServer, stopAllServers } from "./lib/server.mjs";
import { changedFiles, fingerprint, snapshotRepo } from "./lib/source.mjs";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const { nodeVersionProblem } = createRequire(import.meta.url)("../scripts/preflight.cjs");
const REPO_ROOT = dirname(BENCH_DIR);
const SUITES_DIR = join(BENCH_DIR, "suites");
const RESULTS_DIR = join(BENCH_DIR, "results");

/** Suites listed here run first, in this order; any other file in bench/suites/ runs after them, alphabetically. */
const ORDER = ["http", "registry", "gateway", "runs", "agents"];

const started = Date.now();
const log = (msg) => console.error(`[bench +${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);

// Never leave wrangler/workerd behind: kill the group on exit; on a signal, abort the running
// suite, let main() stop the server and write what it has; a second signal (or 15 s) forces it.
process.on("exit", killAllServersNow);
const interruption = new AbortController();
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (interruption.signal.aborted) {
      killAllServersNow();
      process.exit(130);
    }
    log(`${signal}: aborting and stopping the server (again to force)`);
    interruption.abort(new Error(`interrupted by ${signal}`));
    setTimeout(() => {
      killAllServersNow();
      process.exit(130);
    }, 15_000).unref();
  });
}

async function discoverSuites() {
  const files = (await readdir(SUITES_DIR)).filter((f) => f.endsWith(".mjs")).map((f) => basename(f, ".mjs"));
  const rest = files.filter((f) => !ORDER.includes(f)).sort();
  return [...ORDER.filter((f) => files.includes(f)), ...rest];
}

function parseArgs(argv) {
  const flags = new Set(argv.filter((a) => a.startsWith("--")));
  const names = argv.filter((a) => !a.startsWith("--"));
  for (const flag of flags) {
    if (!["--quick", "--snapshot", "--direct", "--by-statement", "--help"].includes(flag))
      throw new Error(`unknown option ${flag}`);
  }
  return {
    names,
    quick: flags.has("--quick"),
    snapshot: flags.has("--snapshot"),
    runtime: flags.has("--direct") ? "direct" : "wrangler",
    byStatement: flags.has("--by-statement"),
    help: flags.has("--help"),
  };
}

async function main() {
  const problem = nodeVersionProblem(process.version);
  if (problem) throw new Error(problem);
  const args = parseArgs(process.argv.slice(2));
  const available = await discoverSuites();
  if (args.help) {
    console.log(
      [
        "usage: node bench/run.mjs [suite ...] [--quick] [--snapshot] [--direct] [--by-statement]",
        `suites: ${available.join(", ")} (default: all, in this order)`,
        "--quick     run every suite at ~1/10 scale (smoke test)",
        "--snapshot  serve a private copy of src/ and the config, so edits made during the run",
        "            cannot hot-reload the worker (by default the repo itself is served, and",
        "            edits during a suite fail the run)",
        "--direct    serve the worker directly in workerd through Miniflare, without wrangler dev's",
        "            proxy hop (production has no such hop); the bundle is built once at start, so",
        "            edits during the run cannot reload it (the versus suite then also measures a",
        "            runtime floor: an empty hibernating Durable Object in its own workerd)",
        "--by-statement  the objects log their SQLite rows per statement (METER_ROWS_BY_STATEMENT=1)",
        "            and the cost suite breaks each workload's rows written down by class and statement",
      ].join("\n"),
    );
    return 0;
  }
  const unknown = args.names.filter((n) => !available.includes(n));
  if (unknown.length) throw new Error(`unknown suite(s): ${unknown.join(", ")} (available: ${available.join(", ")})`);
  const selected = args.names.length ? available.filter((n) => args.names.includes(n)) : available;

  const machine = {
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    date: new Date().toISOString(),
    loadAvgAtStart: os.loadavg().map((l) => Number(l.toFixed(2))),
  };
  log(
    `suites: ${selected.join(", ")}${args.quick ? " (quick)" : ""}; ${args.runtime === "direct" ? "workerd directly (Miniflare)" : "wrangler dev"}; node ${machine.node}, ${machine.cpus} cpus`,
  );

  const report = {
    machine,
    quick: args.quick,
    source: { mode: args.snapshot ? "snapshot" : "repo", changed: [] },
    server: { runtime: args.runtime },
    suites: {},
    failures: [],
    totalErrors: 0,
  };
  await mkdir(RESULTS_DIR, { recursive: true });
  let server;
  let serverLines = [];
  try {
    // wrangler dev reloads on source changes: serve a copy, or watch for edits during each suite.
    // --direct serves a bundle built once at start, which no edit can reload: nothing to watch.
    let cwd = REPO_ROOT;
    if (args.snapshot) {
      cwd = await snapshotRepo(REPO_ROOT);
      log(`serving a snapshot of the source in ${cwd}`);
    }
    let sourceState = args.snapshot || args.runtime === "direct" ? undefined : await fingerprint(REPO_ROOT);
    server = await startServer({
      cwd,
      runtime: args.runtime,
      log,
      removeOnStop: args.snapshot ? [cwd] : [],
      vars: args.byStatement ? { ...BENCH_SERVER_VARS, METER_ROWS_BY_STATEMENT: "1" } : BENCH_SERVER_VARS,
      // The tally's lines are console.log lines (wrangler drops them at its default level).
      ...(args.byStatement ? { logLevel: "log" } : {}),
    });
    // The default tenant (the dev operator token's) with limits no workload reaches: the bench
    // measures work, and the flood suite its refusals (bench/lib/bench-tenant.mjs).
    await setTenantLimits(server.baseUrl, DEFAULT_TENANT, BENCH_LIMITS, interruption.signal);
    report.server = { runtime: args.runtime, baseUrl: server.baseUrl, vars: BENCH_SERVER_VARS, limits: BENCH_LIMITS };
    for (const name of selected) {
      if (interruption.signal.aborted) break;
      if (!server.isRunning()) {
        report.failures.push(`${name}: not run, the server has exited`);
        continue;
      }
      const t0 = Date.now();
      const ctx = {
        baseUrl: server.baseUrl,
        client: httpClient(server.baseUrl, { signal: interruption.signal }),
        server,
        /** "wrangler" (wrangler dev, its proxy worker in front) or "direct" (workerd through Miniflare). */
        runtime: args.runtime,
        repoRoot: REPO_ROOT,
        signal: interruption.signal,
        quick: args.quick,
        /** --by-statement: the server logs rows per statement (src/metering/statement-tally.ts). */
        byStatement: args.byStatement,
        log: (msg) => log(`${name}: ${msg}`),
      };
      let rows = [];
      try {
        const suite = await import(pathToFileURL(join(SUITES_DIR, `${name}.mjs`)).href);
        if (typeof suite.run !== "function") throw new Error(`bench/suites/${name}.mjs does not export run(ctx)`);
        log(`suite ${name}: ${suite.description ?? ""}`);
        rows = await suite.run(ctx);
        if (!Array.isArray(rows))
          throw new Error(`run(ctx) of bench/suites/${name}.mjs returned ${typeof rows}, not an array of rows`);
      } catch (error) {
        if (interruption.signal.aborted) {
          log(`suite ${name} aborted`);
        } else {
          report.failures.push(`${name}: ${error.stack ?? error}`);
          log(`!! suite ${name} threw: ${error.stack ?? error}`);
        }
      }
      if (!server.isRunning() && !interruption.signal.aborted) {
        const info = await server.exited;
        report.failures.push(
          `${name}: the server exited during the suite (code ${info.code}, signal ${info.signal}); last output:\n${server.logTail(20).join("\n")}`,
        );
      }
      if (sourceState) {
        const now = await fingerprint(REPO_ROOT);
        const changed = changedFiles(sourceState, now);
        sourceState = now;
        if (changed.length) {
          report.source.changed.push({ suite: name, files: changed });
          report.failures.push(
            `${name}: ${changed.length} source file(s) changed during the suite, so wrangler dev reloaded the worker ` +
              `and the numbers mix code versions (use --snapshot to benchmark a fixed copy): ${changed.slice(0, 8).join(", ")}${changed.length > 8 ? ", …" : ""}`,
          );
          log(`!! source changed during suite ${name}: ${changed.join(", ")}`);
        }
      }
      const errors = rows.reduce((sum, r) => sum + (r.errors ?? 0), 0);
      report.totalErrors += errors;
      report.suites[name] = { seconds: (Date.now() - t0) / 1000, errors, rows };
      printTable(`${name}${args.quick ? " (quick)" : ""} — ${((Date.now() - t0) / 1000).toFixed(1)} s`, rows);
    }
  } catch (error) {
    report.failures.push(String(error.stack ?? error));
  } finally {
    if (server) {
      serverLines = server.logLines();
      report.serverLogTail = serverLines.slice(-100);
      await writeFile(join(RESULTS_DIR, "server.log"), `${serverLines.join("\n")}\n`).catch(() => {});
    }
    await stopAllServers();
  }

  report.seconds = (Date.now() - started) / 1000;
  report.interrupted = interruption.signal.aborted;
  machine.loadAvgAtEnd = os.loadavg().map((l) => Number(l.toFixed(2)));
  await writeFile(join(RESULTS_DIR, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);

  // --by-statement's tally lines name columns such as `errors`: not error lines.
  const serverErrors = serverLines.filter(
    (l) => /error|exception|uncaught/i.test(l) && !l.includes('{"rowsByStatement"'),
  );
  console.log(
    `\nmachine: node ${machine.node}, ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, ${machine.platform}, ${machine.date}`,
  );
  console.log(`load average (1 min) at start ${machine.loadAvgAtStart[0]}, at end ${machine.loadAvgAtEnd[0]}`);
  if (machine.loadAvgAtStart[0] > machine.cpus / 2) {
    console.log(
      `note: the machine was already busy at start (load ${machine.loadAvgAtStart[0]} on ${machine.cpus} cpus); numbers may be noisy`,
    );
  }
  console.log(
    `source: ${args.snapshot ? "snapshot copy of src/ and config taken at start" : args.runtime === "direct" ? "the repo itself, bundled once at start" : "the repo itself (watched for edits)"}`,
  );
  console.log(
    `runtime: ${args.runtime === "direct" ? "workerd directly through Miniflare (no dev proxy hop)" : "wrangler dev (its proxy worker in front of the service)"}`,
  );
  console.log(`results: ${join(RESULTS_DIR, "latest.json")} (total ${report.seconds.toFixed(1)} s)`);
  if (serverErrors.length) {
    const distinct = new Map();
    for (const l of serverErrors) distinct.set(l.trim(), (distinct.get(l.trim()) ?? 0) + 1);
    console.log(`server output had ${serverErrors.length} error line(s) (bench/results/server.log):`);
    for (const [l, count] of [...distinct].slice(0, 5))
      console.log(`  ${String(count).padStart(5)} × ${l.slice(0, 200)}`);
  }
  if (interruption.signal.aborted) {
    console.log("\n!! INTERRUPTED: the results are incomplete and any errors above came from the abort.");
    return 130;
  }
  if (report.totalErrors || report.failures.length) {
    const bar = "!".repeat(72);
    console.log(`\n${bar}`);
    console.log(`!! BENCHMARK FAILED: ${report.totalErrors} request error(s), ${report.failures.length} failure(s).`);
    if (report.totalErrors) console.log("!! Rows marked '!!' had failed requests: their numbers are NOT valid.");
    if (report.failures.length) console.log("!! The failures below make the whole run untrustworthy:");
    for (const f of report.failures) console.log(`!! ${f.split("\n").join("\n!!   ")}`);
    console.log(bar);
    return 1;
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`bench: ${error.message ?? error}`);
    stopAllServers().finally(() => process.exit(1));
  },
);
