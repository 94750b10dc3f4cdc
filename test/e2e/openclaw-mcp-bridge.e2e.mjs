// Acceptance test: the published `openclaw mcp serve --url … --token-file …` (openclaw 2026.9.6,
// its MCP-to-gateway bridge with a v3-signed device) against a `wrangler dev` of this service,
// driven over stdio by the MCP SDK's client. Skips when the CLI is absent (OPENCLAW_BIN names it).
//
// The tests run in order and share one server and one bridge process.
// On a failure the error message carries the bridge's stderr.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { appendMessage, findOpenclawCli, OPERATOR_TOKEN, textOf } from "./openclaw-cli.mjs";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const SESSION = "agent:main:mcp-bridge";
const OTHER_SESSION = "agent:main:elsewhere";

const SERVER_START_MS = 30_000;
const START_MS = 30_000; // the CLI loads for a few seconds before it answers initialize
const CALL_MS = 20_000;
const WAIT_MS = 15_000; // events_wait's own timeout_ms
const TEST_MS = 45_000;

process.once("exit", killAllServersNow);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    killAllServersNow();
    process.exit(130);
  });
}

const cli = await findOpenclawCli();

describe("openclaw mcp serve --url against wrangler dev", { skip: cli.skip ?? false, timeout: 240_000 }, () => {
  let server;
  let workDir; // HOME and OPENCLAW_STATE_DIR of the CLI, the token file
  let client;
  let bridgeStderr = "";
  const serverLog = [];
  const seeded = [
    ["user", "first message of the bridged session"],
    ["assistant", "second message of the bridged session"],
  ];

  /** Calls a bridge tool; on failure the message carries the bridge's last stderr lines. */
  async function callTool(name, args, timeout = CALL_MS) {
    try {
      return await client.callTool({ name, arguments: args }, undefined, { timeout });
    } catch (error) {
      error.message += `\n  bridge stderr (last lines):\n${bridgeStderr
        .split("\n")
        .slice(-20)
        .map((l) => `    | ${l}`)
        .join("\n")}`;
      throw error;
    }
  }

  before(async () => {
    workDir = await mkdtemp(join(tmpdir(), "oc-mcp-bridge-e2e-"));
    server = await startServer({
      cwd: REPO_ROOT,
      readyTimeoutMs: SERVER_START_MS,
      log: (line) => serverLog.push(line),
    });
    for (const [role, text] of seeded) await appendMessage(server.baseUrl, SESSION, role, text);

    const tokenFile = join(workDir, "gateway-token");
    await writeFile(tokenFile, `${OPERATOR_TOKEN}\n`, { mode: 0o600 });
    const home = join(workDir, "home");
    const transport = new StdioClientTransport({
      command: cli.command,
      args: [...cli.args, "mcp", "serve", "--url", `ws://127.0.0.1:${server.port}`, "--token-file", tokenFile],
      env: {
        ...process.env,
        HOME: home,
        OPENCLAW_HOME: home,
        OPENCLAW_STATE_DIR: join(workDir, "state"),
        NO_COLOR: "1",
      },
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk) => {
      bridgeStderr = (bridgeStderr + chunk).slice(-20_000);
    });
    client = new Client({ name: "openclaw-sessions-edge-e2e", version: "0.0.0" });
    await client.connect(transport, { timeout: START_MS });
  });

  after(async () => {
    await client?.close().catch(() => {});
    await server?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
  });

  test("starts: initialize names the openclaw bridge and lists its conversation tools", {
    timeout: TEST_MS,
  }, async () => {
    assert.equal(client.getServerVersion()?.name, "openclaw");
    const { tools } = await client.listTools(undefined, { timeout: CALL_MS });
    const names = tools.map((t) => t.name);
    for (const name of ["conversations_list", "messages_read", "events_wait", "events_poll"]) {
      assert.ok(names.includes(name), `tools/list should include ${name}, got ${names.join(", ")}`);
    }
  });

  test("conversations_list answers an empty list: plain sessions are not channel conversations, as on the real gateway", {
    timeout: TEST_MS,
  }, async () => {
    // The first tool call makes the bridge connect (v3 device) and subscribe (sessions.subscribe).
    const result = await callTool("conversations_list", {});
    assert.equal(result.isError, undefined, `conversations_list failed: ${JSON.stringify(result.content)}`);
    assert.deepEqual(result.structuredContent, { conversations: [] });
  });

  test("messages_read returns the seeded session's messages, oldest first, with their seq", {
    timeout: TEST_MS,
  }, async () => {
    const result = await callTool("messages_read", { session_key: SESSION, limit: 10 });
    assert.equal(result.isError, undefined, `messages_read failed: ${JSON.stringify(result.content)}`);
    const messages = result.structuredContent?.messages;
    assert.ok(Array.isArray(messages), `messages_read should give messages, got ${JSON.stringify(result)}`);
    assert.deepEqual(
      messages.map((m) => [m.role, textOf(m), m.__openclaw?.seq]),
      seeded.map(([role, text], i) => [role, text, i + 1]),
    );
  });

  test("messages_read with a limit returns the newest messages", { timeout: TEST_MS }, async () => {
    const result = await callTool("messages_read", { session_key: SESSION, limit: 1 });
    assert.deepEqual(
      result.structuredContent?.messages?.map((m) => textOf(m)),
      [seeded[1][1]],
      `got ${JSON.stringify(result.content)}`,
    );
  });

  test("messages_read of a session that does not exist returns no messages, as on the real gateway", {
    timeout: TEST_MS,
  }, async () => {
    const result = await callTool("messages_read", { session_key: "agent:main:never-written" });
    assert.equal(result.isError, undefined, `messages_read failed: ${JSON.stringify(result.content)}`);
    assert.deepEqual(result.structuredContent, { messages: [] });
  });

  test("conversation_get of a plain session answers 'conversation not found', as on the real gateway", {
    timeout: TEST_MS,
  }, async () => {
    const result = await callTool("conversation_get", { session_key: SESSION });
    assert.equal(result.isError, true, `conversation_get should fail: ${JSON.stringify(result)}`);
    assert.equal(textOf(result), `conversation not found: ${SESSION}`);
  });

  test("events_wait for a session delivers a message appended to it meanwhile, not one appended elsewhere", {
    timeout: TEST_MS,
  }, async () => {
    // The seeds predate the bridge's subscription, so nothing is queued yet.
    const polled = await callTool("events_poll", {});
    assert.deepEqual(polled.structuredContent?.events, [], `events_poll: ${JSON.stringify(polled.content)}`);
    const afterCursor = polled.structuredContent.next_cursor;

    const waiting = callTool(
      "events_wait",
      { session_key: SESSION, after_cursor: afterCursor, timeout_ms: WAIT_MS },
      WAIT_MS + CALL_MS,
    );
    await appendMessage(server.baseUrl, OTHER_SESSION, "user", "a message in another session");
    const appended = await appendMessage(server.baseUrl, SESSION, "user", "appended while events_wait waits");

    const result = await waiting;
    assert.equal(result.isError, undefined, `events_wait failed: ${JSON.stringify(result.content)}`);
    const event = result.structuredContent?.event;
    assert.ok(event, `events_wait should deliver an event, got ${JSON.stringify(result)}`);
    assert.equal(event.type, "message");
    assert.equal(event.sessionKey, SESSION);
    assert.equal(event.role, "user");
    assert.equal(event.text, "appended while events_wait waits");
    assert.equal(event.messageId, appended.messageId);
    assert.equal(event.messageSeq, appended.seq);
  });
});
