// The e2e tier (`npm run test:e2e`, the last step of `npm test`): test/cli and test/e2e, each file
// its own `node --test` process against its own `wrangler dev` on a free port with its own state.
// Most of a file's time is waiting on timers, sockets and a browser, not CPU, so files run side by
// side: E2E_CONCURRENCY lanes (default 3), the longest files first, so the run does not end
// waiting on one started last. The files whose assertions are wall-clock gaps (backoff, handshake
// deadlines, idle eviction) and the dev launcher's own tests run in one more lane of their own,
// one at a time, beside the others: their margins hold beside two or three neighbours (a lost
// timer misses by its object's idle time or forever, far past them). E2E_TIMED_APART=1 runs them
// after the others instead, alone. A file's output is printed when it ends, whole; at the end a
// table of every file's seconds (what LONGEST_FIRST is ordered by). Arguments narrow the run to
// files whose path contains one of them (`npm run test:e2e -- hooks channels`).
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * The one-at-a-time lane: files whose assertions are timings (backoff gaps, handshake deadlines,
 * idle eviction), and test/cli, which starts `npm run dev` itself.
 */
const TIMED = ["timers.e2e.mjs", "handshake-deadline.e2e.mjs", "gateway-hubs.e2e.mjs", "test/cli/"];
const DEFAULT_CONCURRENCY = 3;
/**
 * The longest files, longest first (the seconds table `npm run test:e2e` prints at its end; a
 * page per `wrangler dev`, a minute idle in a browser, SIGKILL cycles), started before the rest.
 */
const LONGEST_FIRST = [
  "docs-examples.e2e.mjs",
  "crash.e2e.mjs",
  "control-ui-console.e2e.mjs",
  "control-ui.e2e.mjs",
  "channels-telegram.e2e.mjs",
  "channels-slack.e2e.mjs",
  "channels-whatsapp.e2e.mjs",
  "channels-googlechat.e2e.mjs",
  "channels-line.e2e.mjs",
  "channels-msteams.e2e.mjs",
  "channels-media.e2e.mjs",
  "control-ui-truth.e2e.mjs",
  "tool-loop.e2e.mjs",
  "automations.e2e.mjs",
];

const filesIn = (dir, suffix) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(suffix))
    .sort()
    .map((name) => join(dir, name));

const wanted = process.argv.slice(2);
const all = [...filesIn("test/cli", ".test.mjs"), ...filesIn("test/e2e", ".e2e.mjs")].filter(
  (path) => wanted.length === 0 || wanted.some((part) => path.includes(part)),
);
const isTimed = (path) => TIMED.some((name) => path.endsWith(name) || path.startsWith(name));
const rank = (path) => {
  const index = LONGEST_FIRST.findIndex((name) => path.endsWith(name));
  return index === -1 ? LONGEST_FIRST.length : index;
};
const sideBySide = all.filter((path) => !isTimed(path)).sort((a, b) => rank(a) - rank(b));
const timed = all.filter(isTimed);
const concurrency = Number(process.env.E2E_CONCURRENCY) || DEFAULT_CONCURRENCY;
const timedApart = process.env.E2E_TIMED_APART === "1";

const startedAt = Date.now();
const seconds = (ms) => (ms / 1000).toFixed(1);
/** `{ file, ms, code, output }` per file, in the order they ended. */
const results = [];

/** One file in its own `node --test`; its output is held and printed whole when it ends. */
function runFile(file) {
  const began = Date.now();
  console.log(`[e2e +${seconds(began - startedAt)} s] ${file} started`);
  return new Promise((done) => {
    const child = spawn(process.execPath, ["--test", "--test-reporter=spec", file], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("close", (code, signal) => {
      const ms = Date.now() - began;
      const status = code === 0 ? "passed" : `FAILED (exit ${code ?? signal})`;
      process.stdout.write(
        `\n[e2e +${seconds(Date.now() - startedAt)} s] ${file}: ${status} in ${seconds(ms)} s\n${Buffer.concat(output)}`,
      );
      results.push({ file, ms, code: code ?? 1, output: Buffer.concat(output).toString() });
      done();
    });
  });
}

/**
 * The spec reporter's closing "failing tests" section (each failure with its error and stack),
 * or the output's last lines when the file died before reporting (a crash in `before`, a kill).
 */
function failureRecap(output, maxChars = 6_000) {
  const at = output.lastIndexOf("✖ failing tests:");
  const recap = at >= 0 ? output.slice(at) : output.split("\n").slice(-60).join("\n");
  return recap.length > maxChars
    ? `${recap.slice(0, maxChars)}\n… (${recap.length - maxChars} more characters above in the log)`
    : recap;
}

/** Runs `files` in order over `lanes` lanes, each taking the next file when its own ends. */
async function runLanes(files, lanes) {
  const queue = [...files];
  const lane = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) await runFile(file);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, files.length) }, lane));
}

if (timedApart) {
  await runLanes(sideBySide, concurrency);
  await runLanes(timed, 1);
} else {
  await Promise.all([runLanes(sideBySide, concurrency), runLanes(timed, 1)]);
}

const width = Math.max(0, ...results.map((row) => row.file.length));
const table = [...results]
  .sort((a, b) => b.ms - a.ms)
  .map((row) => `  ${row.file.padEnd(width)}  ${seconds(row.ms).padStart(6)} s${row.code === 0 ? "" : "  FAILED"}`);
const failed = results.filter((row) => row.code !== 0);
console.log(
  `\n[e2e] ${results.length} files in ${seconds(Date.now() - startedAt)} s (${concurrency} lanes side by side, the timed files ${timedApart ? "after them" : "in a lane of their own"}):\n${table.join("\n")}`,
);
if (failed.length > 0) {
  // Repeated last, so a log cut to its end (CI shows the tail) still says what failed and why.
  for (const row of failed) console.log(`\n[e2e] ${row.file} failed:\n${failureRecap(row.output)}`);
  console.log(`[e2e] failed: ${failed.map((row) => row.file).join(", ")}`);
}
process.exit(failed.length > 0 ? 1 : 0);
