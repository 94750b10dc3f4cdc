// `npm run dev`: starts `wrangler dev` for this service from any shell (no POSIX syntax needed).
//   npm run dev                      → http://127.0.0.1:8787
//   npm run dev -- --port 8841       or   PORT=8841 npm run dev
// Other arguments go to `wrangler dev` unchanged (e.g. --persist-to DIR, --log-level warn).
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// Before anything is printed: a failed or missing install says `npm install`, not a stack trace.
const preflight = require("./preflight.cjs");
const problem = preflight.nodeVersionProblem(process.version) || preflight.dependencyProblem(root);
if (problem) {
  console.error(problem);
  process.exit(1);
}

const { planDevStart } = await import("./dev-args.mjs");
const read = (name) => (existsSync(join(root, name)) ? readFileSync(join(root, name), "utf8") : null);
const plan = planDevStart({
  argv: process.argv.slice(2),
  env: process.env,
  files: { devVars: read(".dev.vars"), example: read(".dev.vars.example") },
});
if (!plan.ok) {
  console.error(`npm run dev: ${plan.error}`);
  process.exit(2);
}
for (const notice of plan.notices) console.log(`[openclaw-sessions] ${notice}`);

const wranglerPackage = require.resolve("wrangler/package.json", { paths: [root] });
const wranglerBin = join(dirname(wranglerPackage), require(wranglerPackage).bin.wrangler);
const child = spawn(process.execPath, [wranglerBin, ...plan.args], {
  cwd: root,
  stdio: "inherit",
  env: {
    ...process.env,
    // Miniflare fetches a Request.cf sample from workers.cloudflare.com on every start and prints
    // an ENOTFOUND stack when offline. The service never reads request.cf: use the placeholder.
    CLOUDFLARE_CF_FETCH_ENABLED: process.env.CLOUDFLARE_CF_FETCH_ENABLED ?? "false",
    // wrangler's local observability (a trace of every invocation, user spans included, streamed to a
    // collector in the same workerd) doubles the CPU of a turn here; X_LOCAL_OBSERVABILITY=true keeps it.
    X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? "false",
  },
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
