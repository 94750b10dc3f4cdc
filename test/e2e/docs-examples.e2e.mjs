// Every docs page pastes in order (issue 45, item 5): the ```bash / ```sh blocks of README.md and
// docs/*.md run, page by page, in one bash each, after the README's `export` lines (BASE, OP,
// ADMIN, jget), against the page's own `wrangler dev` (its URL put where the docs say
// 127.0.0.1:8787), with the loopback chat platforms of `npm run fake` (on free ports, put where
// the docs name 18691 / 18693). A block fails its page when a command in it fails (`set -e`,
// `pipefail`), when it prints `"ok":false` and is not marked as showing a refusal, or when it runs
// past its timeout; the failure names the page, the block's line and its output.
//
// Markers, an HTML comment on the line before a block's fence:
//   <!-- docs-test: skip — <why> -->       not run (counted and printed with the reason)
//   <!-- docs-test: refusal -->            the block shows an error answer on purpose: "ok":false allowed
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort, killAllServersNow, startServer } from "../../bench/lib/server.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** Where the docs say `npm run dev` serves (http:// and ws://); replaced by each page's own server. */
const DOCS_HOST = "127.0.0.1:8787";
/** A block's limit: the longest wait a page shows is a 30 s long-poll. */
const BLOCK_TIMEOUT_MS = 90_000;
const SHELL_LANGS = new Set(["bash", "sh", "shell", "zsh"]);
const MARKER = /^<!--\s*docs-test:\s*(skip|refusal)\b\s*(?:[—–-]\s*)?(.*?)\s*-->$/;
/** The platforms `npm run fake` starts, with the line each prints once it listens. */
const FAKES = [
  { name: "telegram", ready: "[tg] fake Bot API on", docsPort: 18691 },
  { name: "slack", ready: "[slack] fake Web API on", docsPort: 18693 },
  { name: "line", ready: "listening", docsPort: 18695 },
  { name: "googlechat", ready: "[googlechat] fake Google", docsPort: 18698 },
];

/**
 * The shell blocks of a markdown page, in order: `{ line, code, skip?, refusal }` (a fence may be
 * indented inside a list; its indentation is removed).
 */
export function shellBlocks(markdown) {
  const lines = markdown.split("\n");
  const blocks = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)(`{3,})([\w-]*)\s*$/.exec(lines[index]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    let end = index + 1;
    while (end < lines.length && !lines[end].trim().startsWith(fence)) end++;
    if (SHELL_LANGS.has(lang)) {
      const code = lines
        .slice(index + 1, end)
        .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()))
        .join("\n");
      const marker = MARKER.exec((lines[index - 1] ?? "").trim());
      blocks.push({
        line: index + 1,
        code,
        skip: marker?.[1] === "skip" ? marker[2] || "marked skip" : undefined,
        refusal: marker?.[1] === "refusal",
      });
    }
    index = end;
  }
  return blocks;
}

/** DOCS_VERBOSE=1 prints every block's output. DOCS_PAGES=hooks,channels narrows the run to pages whose path contains one of the words. */
const only = (process.env.DOCS_PAGES ?? "").split(",").filter(Boolean);
const pages = [
  "README.md",
  ...(await readdir(join(ROOT, "docs")))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
].filter((page) => only.length === 0 || only.some((word) => page.includes(word)));
const readme = await readFile(join(ROOT, "README.md"), "utf8");
/** The README's `export` lines every page is written after. */
const preamble = shellBlocks(readme).find((block) => /^export BASE=/m.test(block.code));

let workDir;
const fakes = [];
/** The fakes' ports, for the shells and the fakes themselves. */
const fakeEnv = {};
const tally = [];

before(async () => {
  assert.ok(preamble, "README.md has no block with `export BASE=`");
  workDir = await mkdtemp(join(tmpdir(), "docs-examples-"));
  // Blocks that import the repository's packages (openclaw-node, ws) say "from the repository root".
  await symlink(join(ROOT, "node_modules"), join(workDir, "node_modules"));
  // On free ports (another run of this file may hold the default ones): the blocks' fake URLs and
  // `npm run fake` (FAKE_<NAME>_PORT) are pointed at them.
  for (const fake of FAKES) {
    const port = await freePort();
    fakeEnv[`FAKE_${fake.name.toUpperCase()}_PORT`] = String(port);
    fakes.push({ ...fake, port, ...(await startFake(fake)) });
  }
});

after(async () => {
  for (const fake of fakes) fake.stop();
  // Started ahead for a page that did not need it (no block to run) or never ran.
  await (await nextServer?.catch(() => undefined))?.stop();
  killAllServersNow();
  if (workDir) {
    // The link first and alone (unlinked, never followed), then the scratch directory.
    await rm(join(workDir, "node_modules"), { force: true });
    await rm(workDir, { recursive: true, force: true });
  }
  const width = Math.max(...tally.map((row) => row.page.length));
  const lines = tally.map(
    (row) =>
      `  ${row.page.padEnd(width)}  ${String(row.run).padStart(2)} run  ${String(row.skipped.length).padStart(2)} skipped${row.skipped.map((s) => `\n    skipped (line ${s.line}): ${s.skip}`).join("")}`,
  );
  const run = tally.reduce((sum, row) => sum + row.run, 0);
  const skipped = tally.reduce((sum, row) => sum + row.skipped.length, 0);
  console.log(`docs examples: ${run} blocks run, ${skipped} skipped\n${lines.join("\n")}`);
});

/** The next page's server, started while this page runs: a start is seconds of waiting. */
let nextServer;

/** A fresh server for this page (the one started ahead if any); starts the next page's ahead. */
function takeServer(another) {
  const server = nextServer ?? startServer({ cwd: ROOT });
  nextServer = another ? startServer({ cwd: ROOT }) : undefined;
  // Awaited by the next page; a start that fails is reported there, not as an unhandled rejection.
  nextServer?.catch(() => {});
  return server;
}

for (const page of pages) {
  test(`${page} pastes in order`, { timeout: 20 * 60_000 }, async () => {
    const blocks = shellBlocks(await readFile(join(ROOT, page), "utf8"));
    const toRun = blocks.filter((block) => !block.skip);
    // Installing here would replace the checkout's node_modules: such a block must be marked skip.
    const installs = toRun.find((block) => /\bnpm (install|ci)\b/.test(block.code));
    assert.equal(installs, undefined, `${page}, line ${installs?.line}: npm install in a block not marked skip`);
    tally.push({ page, run: toRun.length, skipped: blocks.filter((block) => block.skip) });
    if (toRun.length === 0) return;
    const server = await takeServer(page !== pages.at(-1));
    const shell = startShell(server.baseUrl);
    try {
      // The README defines them itself, in order; every other page is written after them.
      if (page !== "README.md") await shell.run(preamble, "README.md (the export lines)");
      for (const block of toRun) await shell.run(block, page);
    } catch (error) {
      error.message += `\n--- wrangler dev (last lines) ---\n${server.logTail(20).join("\n")}`;
      throw error;
    } finally {
      shell.close();
      await server.stop();
    }
  });
}

/** One bash for a page: blocks run in it one after another, sharing its variables and functions. */
function startShell(baseUrl) {
  // In a scratch directory with the repository's node_modules, so files a page writes
  // (`> sessions.jsonl`) stay out of the checkout; `npm run …` (fake, import) runs in the repository.
  const child = spawn("bash", ["--noprofile", "--norc"], {
    cwd: workDir,
    env: { ...process.env, ...fakeEnv, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  let waiting;
  const onData = (chunk) => {
    output += chunk;
    waiting?.();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise((done) => child.once("exit", (code) => done(code)));
  exited.then(() => waiting?.());
  // Node's stdio pipes are sockets, which /dev/stdout and /dev/stderr cannot open (`tee /dev/stderr`
  // in a block): the shell writes into a real pipe through cat instead, as in a terminal.
  child.stdin.write(`set -eo pipefail\nexec > >(cat) 2>&1\nnpm() { command npm --prefix '${ROOT}' "$@"; }\n`);
  let count = 0;

  return {
    async run(block, page) {
      const id = ++count;
      const file = join(workDir, `block-${id}.sh`);
      await writeFile(file, `${withLocalPorts(block.code, baseUrl)}\n`);
      const done = `@@docs-test block ${id} done@@`;
      const start = output.length;
      child.stdin.write(`source ${file}\necho '${done}'\n`);
      const deadline = Date.now() + BLOCK_TIMEOUT_MS;
      let exitCode;
      while (!output.includes(done, start)) {
        let timeout;
        const woken = new Promise((wake) => {
          waiting = wake;
          timeout = setTimeout(wake, Math.max(0, deadline - Date.now()));
        });
        exitCode = await Promise.race([exited, woken.then(() => undefined)]);
        clearTimeout(timeout);
        if (exitCode !== undefined || Date.now() >= deadline) break;
      }
      // What the shell printed last reaches us through cat after it exited.
      if (exitCode !== undefined) await new Promise((settle) => setTimeout(settle, 500));
      const printed = output.slice(start).replace(done, "").trim();
      const where = `${page}, the block at line ${block.line}`;
      const show = `\n--- block ---\n${block.code}\n--- output ---\n${printed.slice(-4000)}`;
      if (exitCode !== undefined) assert.fail(`${where} failed (bash exited ${exitCode})${show}`);
      if (!output.includes(done, start)) assert.fail(`${where} ran past ${BLOCK_TIMEOUT_MS / 1000} s${show}`);
      if (process.env.DOCS_VERBOSE) console.log(`--- ${where} ---\n${printed}`);
      if (!block.refusal && /"ok"\s*:\s*false/.test(printed)) {
        assert.fail(`${where} printed "ok":false (mark it <!-- docs-test: refusal --> if that is its point)${show}`);
      }
    },
    close() {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    },
  };
}

/** A block's code with the docs' URLs of the service and the fakes replaced by this run's. */
function withLocalPorts(code, baseUrl) {
  let local = code.replaceAll(DOCS_HOST, new URL(baseUrl).host);
  for (const fake of fakes) local = local.replaceAll(`127.0.0.1:${fake.docsPort}`, `127.0.0.1:${fake.port}`);
  return local;
}

/** `npm run fake -- <name>` (on the port FAKE_<NAME>_PORT names), as docs/channels.md starts it. */
async function startFake({ name, ready }) {
  const child = spawn("npm", ["run", "-s", "fake", "--", name], {
    cwd: ROOT,
    env: { ...process.env, ...fakeEnv, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let printed = "";
  await new Promise((started, failed) => {
    const timer = setTimeout(() => failed(new Error(`npm run fake -- ${name}: not ready\n${printed}`)), 30_000);
    const onData = (chunk) => {
      printed += chunk;
      if (printed.includes(ready)) {
        clearTimeout(timer);
        started();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => failed(new Error(`npm run fake -- ${name} exited ${code}\n${printed}`)));
  });
  return {
    stop() {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    },
  };
}
