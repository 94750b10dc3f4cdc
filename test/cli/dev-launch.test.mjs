// `npm run dev` started for real, the ways the README shows: `-- --port N` and `PORT=N`.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort } from "../../bench/lib/server.mjs";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const READY_MS = 60_000;
const started = [];

after(async () => {
  for (const run of started) await run.stop();
});

/** Runs `npm run dev` in its own process group; resolves once /health answers on `port`. */
async function startDev({ args = [], env = {}, port }) {
  const persistDir = await mkdtemp(join(tmpdir(), "oc-dev-launch-"));
  const child = spawn("npm", ["run", "dev", "--", ...args, "--persist-to", persistDir], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      PATH: [dirname(process.execPath), process.env.PATH ?? ""].join(delimiter),
      WRANGLER_SEND_METRICS: "false",
      NO_COLOR: "1",
      PORT: undefined,
      CLOUDFLARE_CF_FETCH_ENABLED: undefined,
      ...env,
    },
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  let exited = false;
  child.on("exit", () => (exited = true));
  const run = {
    output: () => output,
    async stop() {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {}
      for (let i = 0; i < 50 && !exited; i++) await new Promise((r) => setTimeout(r, 100));
      if (!exited) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
      }
      await rm(persistDir, { recursive: true, force: true });
    },
  };
  started.push(run);
  const deadline = Date.now() + READY_MS;
  while (Date.now() < deadline && !exited) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return run;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`npm run dev did not answer on port ${port}:\n${output.slice(-3000)}`);
}

/** Starts attempts before giving up on "Address already in use" (a neighbour took the picked port). */
const START_ATTEMPTS = 3;

/**
 * `startDev` on a newly picked free port, again when the start lost a race for that port or one of
 * wrangler's internal ones to a process starting beside it (the e2e lanes run side by side).
 */
async function startDevOnFreePort(optionsFor) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const run = startDev({ ...optionsFor(port), port });
    try {
      return { run: await run, port };
    } catch (error) {
      if (attempt >= START_ATTEMPTS || !/Address already in use/.test(String(error?.message))) throw error;
    }
  }
}

describe("npm run dev", { timeout: 3 * READY_MS }, () => {
  test("serves on the port given after `--` (npm run dev -- --port N)", async () => {
    const { run, port } = await startDevOnFreePort((port) => ({ args: ["--port", String(port)] }));
    assert.match(run.output(), new RegExp(`Serving on http://127\\.0\\.0\\.1:${port}`));
    // The offline Request.cf fetch is switched off, so no ENOTFOUND stack trace is printed.
    assert.doesNotMatch(run.output(), /ENOTFOUND/);
    await run.stop();
  });

  test("serves on the port in PORT (PORT=N npm run dev)", async () => {
    const { run, port } = await startDevOnFreePort((port) => ({ env: { PORT: String(port) } }));
    assert.match(run.output(), new RegExp(`Serving on http://127\\.0\\.0\\.1:${port}`));
    await run.stop();
  });

  test("refuses a bad port before starting wrangler, naming it", () => {
    const result = spawnSync(process.execPath, ["scripts/dev.mjs", "--port", "eighty"], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--port eighty is not a port/);
  });
});

// The machine's system Node, when it is older than 22, shows what a newcomer with an old Node sees.
const OLD_NODE = ["/usr/bin/node", "/usr/local/bin/node"].find(
  (path) => existsSync(path) && Number(spawnSync(path, ["-p", "process.versions.node.split('.')[0]"]).stdout) < 22,
);

describe("an old Node", { skip: OLD_NODE ? false : "no Node older than 22 on this machine" }, () => {
  test("is named with the fix by the dev launcher and the test preflight", () => {
    for (const script of ["scripts/dev.mjs", "scripts/preflight.cjs"]) {
      const result = spawnSync(OLD_NODE, [script], { cwd: REPO_ROOT, encoding: "utf8" });
      assert.equal(result.status, 1, script);
      assert.match(result.stderr, /needs Node\.js >=24\.16\.0 <25 \|\| >=26\.1\.0 .*this is Node\.js v\d+/, script);
      assert.match(result.stderr, /nvm install/, script);
    }
  });
});
