// Acceptance test: drives a real `wrangler dev` of this service with `openclaw-node`, a
// third-party OpenClaw gateway client, plus the HTTP API. Run with `node --test test/e2e/`.
//
// The tests in this file run in order and share one server and one session
// (`agent:main:e2e`); later tests rely on the messages written by earlier ones.
// On an assertion failure the error message carries the client's recent WebSocket frames.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { OpenClawClient } from "openclaw-node";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { httpJson } from "./http-json.mjs";
import { textOf } from "./message-text.mjs";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const TOKEN = "dev-operator-token";
const SESSION = "agent:main:e2e";

const SERVER_START_MS = 30_000;
const STEP_MS = 10_000; // any single wait on the service
const TEST_MS = 20_000;
const RESTART_TEST_MS = 45_000;

// A server is a process group of its own: never leave it behind, whatever happens to us.
process.once("exit", killAllServersNow);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    killAllServersNow();
    process.exit(130);
  });
}

// ---------------------------------------------------------------------------------------------
// helpers

let server;
let stateDir; // the wrangler persist dir, kept across the restart
let identityDir; // openclaw-node's device identity file lives here, not in $HOME
const clients = [];
const serverLog = [];

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Makes an openclaw-node client that records every frame it sends and receives. */
function makeClient() {
  const client = new OpenClawClient({
    url: `ws://127.0.0.1:${server.port}`,
    token: TOKEN,
    autoReconnect: false,
    deviceIdentityPath: join(identityDir, "device-identity.json"),
  });
  const frames = [];
  client.frames = frames;
  const send = client.send.bind(client);
  client.send = (msg) => {
    frames.push({ dir: "out", frame: msg });
    return send(msg);
  };
  client.on("_raw", (msg) => frames.push({ dir: "in", frame: msg }));
  // Without a listener an emitted "error" would throw out of the socket callback.
  client.on("error", (error) => frames.push({ dir: "error", frame: String(error?.message ?? error) }));
  clients.push(client);
  return client;
}

function formatFrames(client, last = 25) {
  if (!client?.frames?.length) return "  (no frames)";
  return client.frames
    .slice(-last)
    .map(({ dir, frame }) => {
      const text = typeof frame === "string" ? frame : JSON.stringify(frame);
      return `  ${dir.padEnd(5)} ${text.length > 700 ? `${text.slice(0, 700)}…(${text.length} chars)` : text}`;
    })
    .join("\n");
}

/** Runs `fn`; on failure appends the client's recent frames to the error message. */
async function withFrames(client, fn) {
  try {
    return await fn();
  } catch (error) {
    if (error && typeof error === "object") {
      const frames = `\n  openclaw-node frames (last 25):\n${formatFrames(client)}`;
      error.message = `${error.message}${frames}`;
      // The stack was already rendered with the old message; the reporter prints the stack.
      if (typeof error.stack === "string" && !error.stack.includes(frames)) error.stack += frames;
    }
    throw error;
  }
}

function http(method, path, body) {
  return httpJson(server.baseUrl, method, path, { authorization: `Bearer ${TOKEN}`, body, timeoutMs: STEP_MS });
}

async function appendOverHttp(content) {
  const res = await http("POST", `/v1/sessions/${encodeURIComponent(SESSION)}/messages`, { role: "user", content });
  assert.ok(res.status === 200 || res.status === 201, `append answered HTTP ${res.status}: ${res.text}`);
  return res.json;
}

function seqOf(message) {
  return message?.__openclaw?.seq;
}

/** A subscription handler that queues events, and a way to wait for a matching one. */
function eventQueue() {
  const events = [];
  const waiters = new Set();
  return {
    events,
    handler(event) {
      events.push(event);
      for (const w of waiters) w();
    },
    waitFor(predicate, ms, what) {
      let check;
      const found = new Promise((resolveFound) => {
        check = () => {
          const hit = events.find(predicate);
          if (hit) resolveFound(hit);
        };
        waiters.add(check);
        check();
      });
      return withTimeout(found, ms, what).finally(() => waiters.delete(check));
    },
  };
}

const isMessageEvent = (text) => (e) => e.event === "session.message" && textOf(e.payload?.message) === text;

async function startService(opts = {}) {
  return startServer({
    cwd: REPO_ROOT,
    persistDir: stateDir,
    readyTimeoutMs: SERVER_START_MS,
    log: (line) => serverLog.push(line),
    ...opts,
  });
}

/** Closes every client and waits (briefly) for the close handshake, so teardown is quiet. */
async function disconnectAll() {
  for (const client of clients.splice(0)) {
    const ws = client.ws;
    const closed =
      ws && ws.readyState !== WebSocket.CLOSED
        ? new Promise((resolveClosed) => ws.addEventListener("close", resolveClosed, { once: true }))
        : undefined;
    await client.disconnect().catch(() => {});
    if (closed) await withTimeout(closed, 2_000, "client close handshake").catch(() => {});
  }
}

// ---------------------------------------------------------------------------------------------
// the tests

describe("openclaw-node against wrangler dev", { timeout: 150_000 }, () => {
  /** Written over HTTP before the restart: { text, seq }. */
  const written = [];
  let client;

  before(async () => {
    stateDir = await mkdtemp(join(tmpdir(), "oc-e2e-state-"));
    identityDir = await mkdtemp(join(tmpdir(), "oc-e2e-identity-"));
    server = await startService();
  });

  after(async () => {
    await disconnectAll();
    await server?.stop();
    for (const dir of [stateDir, identityDir]) {
      if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
    }
  });

  test("1. connects with the token and gets hello-ok", { timeout: TEST_MS }, async () => {
    client = makeClient();
    await withFrames(client, async () => {
      const hello = await withTimeout(client.connect(), STEP_MS, "client.connect() (hello-ok)");
      assert.equal(hello.type, "hello-ok");
      assert.equal(hello.protocol, 4, "hello-ok.protocol should be the version openclaw-node asked for (4)");
      assert.equal(client.isConnected, true);
      for (const method of ["sessions.list", "chat.history", "sessions.messages.subscribe", "agent", "agent.wait"]) {
        assert.ok(client.hasMethod(method), `hello-ok.features.methods should list ${method}`);
      }
    });
  });

  test("2. sessions.list returns { sessions: [...] }", { timeout: TEST_MS }, async () => {
    await withFrames(client, async () => {
      const result = await withTimeout(client.sessions.list(), STEP_MS, "sessions.list");
      assert.ok(result && typeof result === "object", "sessions.list payload should be an object");
      assert.ok(
        Array.isArray(result.sessions),
        `sessions.list payload should have a sessions array, got ${JSON.stringify(result)}`,
      );
    });
  });

  test("3. a message appended over HTTP shows up in chat.history with __openclaw.seq", {
    timeout: TEST_MS,
  }, async () => {
    await withFrames(client, async () => {
      const text = `e2e first ${Date.now()}`;
      const appended = await appendOverHttp(text);
      assert.equal(appended.sessionKey, SESSION);
      assert.ok(
        Number.isInteger(appended.seq) && appended.seq >= 1,
        `append should answer a seq, got ${JSON.stringify(appended)}`,
      );

      const history = await withTimeout(client.sessions.history(SESSION), STEP_MS, "chat.history");
      assert.ok(
        Array.isArray(history?.messages),
        `chat.history payload should have messages, got ${JSON.stringify(history)?.slice(0, 500)}`,
      );
      const found = history.messages.find((m) => textOf(m) === text);
      assert.ok(found, `chat.history should contain "${text}"; it has ${JSON.stringify(history.messages.map(textOf))}`);
      assert.equal(found.role, "user");
      assert.ok(
        Number.isInteger(seqOf(found)) && seqOf(found) >= 1,
        `message should carry __openclaw.seq, got ${JSON.stringify(found)}`,
      );
      assert.equal(seqOf(found), appended.seq, "chat.history seq should match the seq the append answered");
      written.push({ text, seq: seqOf(found) });
    });
  });

  test("4. sessions.subscribeMessages delivers session.message for an HTTP append", { timeout: TEST_MS }, async () => {
    await withFrames(client, async () => {
      const queue = eventQueue();
      const sub = await withTimeout(
        client.sessions.subscribeMessages(SESSION, queue.handler),
        STEP_MS,
        "sessions.messages.subscribe",
      );
      try {
        const text = `e2e live ${Date.now()}`;
        const appended = await appendOverHttp(text);
        const event = await queue.waitFor(isMessageEvent(text), STEP_MS, `session.message for "${text}"`);
        assert.equal(event.payload.sessionKey, SESSION);
        assert.equal(event.payload.message.role, "user");
        assert.equal(
          seqOf(event.payload.message),
          appended.seq,
          "session.message should carry __openclaw.seq of the append",
        );
        assert.equal(
          event.payload.messageSeq,
          appended.seq,
          "session.message payload.messageSeq should be the message's seq",
        );
        written.push({ text, seq: appended.seq });
      } finally {
        await withTimeout(sub.unsubscribe(), STEP_MS, "sessions.messages.unsubscribe");
      }
    });
  });

  test("5a. chatSync('hello') returns exactly 'ECHO: hello'", { timeout: TEST_MS }, async () => {
    await withFrames(client, async () => {
      const reply = await withTimeout(client.chatSync("hello"), STEP_MS, "chatSync('hello')");
      assert.equal(reply, "ECHO: hello");
    });
  });

  let streamedRunId;
  test("5b. chat('stream me') streams text chunks that add up to 'ECHO: stream me' and ends with done", {
    timeout: TEST_MS,
  }, async () => {
    await withFrames(client, async () => {
      const chunks = [];
      await withTimeout(
        (async () => {
          for await (const chunk of client.chat("stream me")) chunks.push(chunk);
        })(),
        STEP_MS,
        "chat('stream me') to end",
      );
      const text = chunks
        .filter((c) => c.type === "text")
        .map((c) => c.text)
        .join("");
      assert.equal(text, "ECHO: stream me", `chunks: ${JSON.stringify(chunks)}`);
      assert.equal(chunks.at(-1)?.type, "done", `last chunk should be done; chunks: ${JSON.stringify(chunks)}`);
      assert.ok(!chunks.some((c) => c.type === "error"), `no error chunk expected; chunks: ${JSON.stringify(chunks)}`);
      streamedRunId = chunks.find((c) => c.type === "text")?.runId;
    });
  });

  test("5c. agentWait on the streamed run reports status ok", { timeout: TEST_MS }, async () => {
    assert.ok(streamedRunId, "needs the runId from test 5b");
    await withFrames(client, async () => {
      const result = await withTimeout(client.agentWait(streamedRunId, { timeoutMs: 5_000 }), STEP_MS, "agent.wait");
      assert.equal(result.runId, streamedRunId);
      assert.equal(result.status, "ok", `agent.wait: ${JSON.stringify(result)}`);
    });
  });

  test("6. after a restart on the same port and state, a new client re-subscribes, gets new messages and reads the old ones by seq", {
    timeout: RESTART_TEST_MS,
  }, async () => {
    assert.equal(written.length, 2, "needs the two messages written by tests 3 and 4");
    const [first, second] = written;

    // Stop: the connected client must notice the socket closing.
    const old = client;
    const disconnected = new Promise((resolveDisconnected) => old.once("disconnected", resolveDisconnected));
    const { port } = server;
    await withTimeout(server.stop(), 15_000, "server stop");
    await withFrames(old, () => withTimeout(disconnected, STEP_MS, "old client's disconnected event"));
    assert.equal(old.isConnected, false);

    server = await startService({ port });
    assert.equal(server.port, port);

    client = makeClient();
    await withFrames(client, async () => {
      const hello = await withTimeout(client.connect(), STEP_MS, "reconnect (hello-ok)");
      assert.equal(hello.type, "hello-ok");

      const queue = eventQueue();
      const sub = await withTimeout(client.sessions.subscribeMessages(SESSION, queue.handler), STEP_MS, "re-subscribe");
      const text = `e2e after restart ${Date.now()}`;
      const appended = await appendOverHttp(text);
      const event = await queue.waitFor(isMessageEvent(text), STEP_MS, `session.message for "${text}" after restart`);
      assert.equal(event.payload.sessionKey, SESSION);
      assert.equal(appended.seq, second.seq + 1, "seq continues after the restart");
      assert.equal(seqOf(event.payload.message), appended.seq);
      await withTimeout(sub.unsubscribe(), STEP_MS, "unsubscribe");

      // HTTP: the page ending just before the new message's seq is the two older messages.
      const page = await http("GET", `/sessions/${encodeURIComponent(SESSION)}/history?limit=2&cursor=${appended.seq}`);
      assert.equal(page.status, 200, page.text);
      for (const field of ["items", "messages"]) {
        const list = page.json?.[field];
        assert.ok(Array.isArray(list), `history.${field} should be an array: ${page.text.slice(0, 500)}`);
        assert.deepEqual(
          list.map((m) => ({ text: textOf(m), seq: seqOf(m) })),
          [first, second],
          `history.${field} with limit=2&cursor=${appended.seq}`,
        );
      }

      // chat.history over the new connection has all three, in seq order.
      const history = await withTimeout(client.sessions.history(SESSION), STEP_MS, "chat.history after restart");
      const ours = history.messages
        .map((m) => ({ text: textOf(m), seq: seqOf(m) }))
        .filter((m) => [first.text, second.text, text].includes(m.text));
      assert.deepEqual(ours, [first, second, { text, seq: appended.seq }]);

      const list = await withTimeout(client.sessions.list(), STEP_MS, "sessions.list after restart");
      assert.ok(
        list.sessions.some((s) => s.key === SESSION),
        `sessions.list after restart should still have ${SESSION}: ${JSON.stringify(list.sessions.map((s) => s.key))}`,
      );
    });
  });
});
