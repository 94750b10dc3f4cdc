// The e2e tier (`npm run test:e2e`, the last step of `npm test`): test/cli and test/e2e under
// `node --test`. Each file starts its own `wrangler dev` on a free port with its own state, so
// files run side by side (E2E_CONCURRENCY, default 3: most of their time is waiting on timers,
// sockets and a browser, not CPU). The files that measure wall-clock gaps and the dev launcher's
// own tests run one at a time afterwards, so a neighbour's load cannot move their figures. Arguments narrow the run to files whose
// path contains one of them (`npm run test:e2e -- hooks channels`).
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Run one at a time after the others: files whose assertions are timings (backoff gaps,
 * handshake deadlines, idle eviction), and test/cli, which starts `npm run dev` itself.
 */
const MEASURED_ALONE = ["timers.e2e.mjs", "handshake-deadline.e2e.mjs", "gateway-hubs.e2e.mjs", "test/cli/"];
const DEFAULT_CONCURRENCY = 3;
/**
 * The longest files (a Control UI sweep with a minute idle, SIGKILL cycles, the browser suite)
 * start first, so the side-by-side group does not end waiting on one of them started last.
 */
const LONGEST_FIRST = [
  "docs-examples.e2e.mjs",
  "control-ui-console.e2e.mjs",
  "automations.e2e.mjs",
  "control-ui.e2e.mjs",
  "crash.e2e.mjs",
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
const alone = all.filter((path) => MEASURED_ALONE.some((name) => path.endsWith(name) || path.startsWith(name)));
const rank = (path) => {
  const index = LONGEST_FIRST.findIndex((name) => path.endsWith(name));
  return index === -1 ? LONGEST_FIRST.length : index;
};
const together = all.filter((path) => !alone.includes(path)).sort((a, b) => rank(a) - rank(b));
const concurrency = Number(process.env.E2E_CONCURRENCY) || DEFAULT_CONCURRENCY;

function run(files, perFile) {
  if (files.length === 0) return 0;
  const args = ["--test", `--test-concurrency=${perFile}`, ...files];
  return spawnSync(process.execPath, args, { stdio: "inherit" }).status ?? 1;
}

const failedTogether = run(together, concurrency);
const failedAlone = run(alone, 1);
process.exit(failedTogether || failedAlone ? 1 : 0);
