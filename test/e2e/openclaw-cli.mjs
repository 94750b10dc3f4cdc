// Shared by the end-to-end tests that drive the published `openclaw` CLI (2026.9.6) against a
// `wrangler dev` of this service: where the CLI is, how to run it, and the service's HTTP API.
// The CLI comes with the `openclaw` devDependency (which also brings the Control UI); the tests
// skip when it is not installed.
import { execFile } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { httpJson } from "./http-json.mjs";

const run = promisify(execFile);

/** This project's own install of the CLI (the pinned `openclaw` devDependency). */
const DEFAULT_OPENCLAW_BIN = join(
  resolve(dirname(fileURLToPath(import.meta.url)), "../.."),
  "node_modules/.bin/openclaw",
);
const VERSION_PROBE_MS = 30_000;

export const OPERATOR_TOKEN = "dev-operator-token";

/**
 * Finds the `openclaw` CLI (env OPENCLAW_BIN, else this project's install) and checks that it runs.
 * Returns `{ command, args, version }` to spawn it with (a JS entry point runs under this
 * Node, which the CLI needs to be 24.16+), or `{ skip: reason }`.
 */
export async function findOpenclawCli() {
  const given = process.env.OPENCLAW_BIN;
  const bin = given || DEFAULT_OPENCLAW_BIN;
  if (!existsSync(bin)) {
    return {
      skip: given
        ? `OPENCLAW_BIN=${given} does not exist`
        : `the openclaw CLI is not installed (expected ${DEFAULT_OPENCLAW_BIN}): run npm install, or set OPENCLAW_BIN`,
    };
  }
  const real = realpathSync(bin);
  const cli = /\.[cm]?js$/.test(real) ? { command: process.execPath, args: [real] } : { command: real, args: [] };
  try {
    const { stdout } = await run(cli.command, [...cli.args, "--version"], {
      timeout: VERSION_PROBE_MS,
      env: { ...process.env, NO_COLOR: "1" },
    });
    return { ...cli, version: stdout.trim() };
  } catch (error) {
    const why = `${error.stderr ?? ""}`.trim().split("\n")[0] || error.message;
    return { skip: `the openclaw CLI at ${bin} does not run under Node ${process.version}: ${why}` };
  }
}

/** Calls the service's HTTP API with the dev operator token; returns `{ status, json, text }`. */
export function http(baseUrl, method, path, body, timeoutMs = 10_000) {
  return httpJson(baseUrl, method, path, { authorization: `Bearer ${OPERATOR_TOKEN}`, body, timeoutMs });
}

/** Appends a message to a session over HTTP; returns the service's answer (`{ seq, messageId, … }`). */
export async function appendMessage(baseUrl, sessionKey, role, content) {
  const res = await http(baseUrl, "POST", `/v1/sessions/${encodeURIComponent(sessionKey)}/messages`, {
    role,
    content,
  });
  if (res.status !== 200 && res.status !== 201) throw new Error(`append answered HTTP ${res.status}: ${res.text}`);
  return res.json;
}

export { textOf } from "./message-text.mjs";

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A session's transcript as the service's HTTP history returns it (oldest first). */
export async function historyOf(baseUrl, sessionKey) {
  const res = await http(baseUrl, "GET", `/sessions/${encodeURIComponent(sessionKey)}/history`);
  if (res.status !== 200) throw new Error(`history answered HTTP ${res.status}: ${res.text}`);
  return res.json.items;
}

/** Polls `check` (sync or async) until it returns a truthy value; throws `describe()` after `ms`. */
export async function waitUntil(check, ms, describe) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${ms} ms: ${await describe()}`);
    await sleep(200);
  }
}
