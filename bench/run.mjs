#!/usr/bin/env node
// Benchmark runner: `npm run bench [-- suite ...] [-- --quick]`.
// Starts one `wrangler dev` with fresh state, runs the suites in bench/suites/, prints a table per
// suite, writes bench/results/latest.json, stops the server. Exits non-zero on any failure,
// including requests that errored.
import { readdir, mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { httpClient } from "./lib/http.mjs";
import { printTable } from "./lib/measure.mjs";
import { killAllServersNow, startServer, stopAllServers } from "./lib/server.mjs";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = dirname(BENCH_DIR);
const SUITES_DIR = join(BENCH_DIR, "suites");
const RESULTS_DIR = join(BENCH_DIR, "results");

/** Suites listed here run first, in this order; any other file in bench/suites/ runs after them, alphabetically. */
const ORDER = ["http"];

const started = Date.now();
const log = (msg) => console.error(`[bench +${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);

// Never leave wrangler/workerd behind: kill the group on exit, stop it gracefully on signals.
process.on("exit", killAllServersNow);
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (interrupted) {
      killAllServersNow();
      process.exit(130);
    }
    interrupted = true;
    log(`${signal}: stopping the server`);
    const hardStop = setTimeout(() => process.exit(130), 10_000);
    stopAllServers().finally(() => {
      clearTimeout(hardStop);
      process.exit(130);
    });
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
    if (!["--quick", "--help"].includes(flag)) throw new Error(`unknown option ${flag}`);
  }
  return { names, quick: flags.has("--quick"), help: flags.has("--help") };
}

async function main() {
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major < 22 || (major === 22 && minor < 12)) {
    throw new Error(`node ${process.version} is too old: wrangler needs >= 22.12 (put a newer node first in PATH)`);
  }
  const args = parseArgs(process.argv.slice(2));
  const available = await discoverSuites();
  if (args.help) {
    console.log(`usage: node bench/run.mjs [suite ...] [--quick]\nsuites: ${available.join(", ")}\n--quick  run every suite at ~1/10 scale (smoke test)`);
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
  };
  log(`suites: ${selected.join(", ")}${args.quick ? " (quick)" : ""}; node ${machine.node}, ${machine.cpus} cpus`);

  const report = { machine, quick: args.quick, suites: {}, failures: [], totalErrors: 0 };
  await mkdir(RESULTS_DIR, { recursive: true });
  let server;
  try {
    server = await startServer({ cwd: REPO_ROOT, log });
    report.server = { baseUrl: server.baseUrl };
    for (const name of selected) {
      if (interrupted) break;
      if (!server.isRunning()) {
        report.failures.push(`${name}: not run, the server has exited`);
        continue;
      }
      const suite = await import(pathToFileURL(join(SUITES_DIR, `${name}.mjs`)).href);
      if (typeof suite.run !== "function") throw new Error(`bench/suites/${name}.mjs does not export run(ctx)`);
      log(`suite ${name}: ${suite.description ?? ""}`);
      const t0 = Date.now();
      const ctx = {
        baseUrl: server.baseUrl,
        client: httpClient(server.baseUrl),
        server,
        quick: args.quick,
        log: (msg) => log(`${name}: ${msg}`),
      };
      let rows = [];
      try {
        rows = await suite.run(ctx);
      } catch (error) {
        report.failures.push(`${name}: ${error.stack ?? error}`);
        log(`!! suite ${name} threw: ${error.stack ?? error}`);
      }
      if (!server.isRunning()) report.failures.push(`${name}: the server exited during the suite`);
      const errors = rows.reduce((sum, r) => sum + (r.errors ?? 0), 0);
      report.totalErrors += errors;
      report.suites[name] = { seconds: (Date.now() - t0) / 1000, errors, rows };
      printTable(`${name}${args.quick ? " (quick)" : ""} — ${((Date.now() - t0) / 1000).toFixed(1)} s`, rows);
    }
  } catch (error) {
    report.failures.push(String(error.stack ?? error));
  } finally {
    if (server) {
      report.serverLogTail = server.logLines().slice(-100);
      await writeFile(join(RESULTS_DIR, "server.log"), server.logLines().join("\n") + "\n").catch(() => {});
    }
    await stopAllServers();
  }

  report.seconds = (Date.now() - started) / 1000;
  await writeFile(join(RESULTS_DIR, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);

  const serverErrors = (report.serverLogTail ?? []).filter((l) => /error|exception|uncaught/i.test(l));
  console.log(`\nmachine: node ${machine.node}, ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, ${machine.platform}, ${machine.date}`);
  console.log(`results: ${join(RESULTS_DIR, "latest.json")} (total ${report.seconds.toFixed(1)} s)`);
  if (serverErrors.length) {
    console.log(`server output had ${serverErrors.length} error line(s) (see bench/results/server.log), e.g.:`);
    for (const l of serverErrors.slice(0, 5)) console.log(`  | ${l}`);
  }
  if (report.totalErrors || report.failures.length) {
    const bar = "!".repeat(72);
    console.log(`\n${bar}`);
    console.log(`!! BENCHMARK FAILED: ${report.totalErrors} request error(s), ${report.failures.length} failure(s).`);
    console.log("!! Numbers from rows marked '!!' are NOT valid.");
    for (const f of report.failures) console.log(`!! ${f.split("\n").join("\n!!   ")}`);
    console.log(bar);
    return 1;
  }
  if (interrupted) return 130;
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`bench: ${error.message ?? error}`);
    stopAllServers().finally(() => process.exit(1));
  },
);
