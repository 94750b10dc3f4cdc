// `npm run import` against a real `wrangler dev`: one tenant filled with sessions of every
// kind is copied into other tenants through the gateway protocol (sessions.list and
// chat.history pages) and the import route, then both sides are compared page by page.
// Run with `node --test test/e2e/`.
//
// The tests run in order and share one server and one source tenant.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { dirname, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { GatewayClient } from "../../scripts/import/gateway-client.ts";
import { startFakeGateway } from "./fake-gateway.mjs";
import { httpJson } from "./http-json.mjs";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const IMPORT_BIN = resolve(REPO_ROOT, "scripts/import/bin.mjs");
const ADMIN = "Bearer dev-admin-token";
const BIG_MESSAGES = 5000;
const STEP_MS = 30_000;

process.once("exit", killAllServersNow);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    killAllServersNow();
    process.exit(130);
  });
}

let server;
/** The source tenant and its expected contents. */
const source = { id: `src-${suffix()}`, token: "", messages: 0, keys: [] };

function suffix() {
  return crypto.randomUUID().slice(0, 8);
}

function http(method, path, { token, body } = {}) {
  return httpJson(server.baseUrl, method, path, { authorization: token ?? ADMIN, body, timeoutMs: STEP_MS });
}

/** A tenant with an all-scopes operator token. */
async function createTenant(id) {
  const created = await http("POST", "/v1/admin/tenants", { body: { id } });
  assert.equal(created.status, 201, created.text);
  const issued = await http("POST", `/v1/admin/tenants/${id}/tokens`, {
    body: { scopes: ["operator.read", "operator.write", "operator.admin"] },
  });
  assert.equal(issued.status, 201, issued.text);
  return { id, token: issued.json.token };
}

/** A request into a tenant that must succeed. */
async function tenantCall(tenant, method, path, body) {
  const res = await http(method, `/t/${tenant.id}${path}`, { token: `Bearer ${tenant.token}`, body });
  assert.ok(res.status >= 200 && res.status < 300, `${method} ${path} answered ${res.status}: ${res.text}`);
  return res.json;
}

const key = (k) => encodeURIComponent(k);
const user = (content, extra = {}) => ({ role: "user", content, ...extra });
const assistant = (text, extra = {}) => ({ role: "assistant", content: [{ type: "text", text }], ...extra });

/** Runs the import command; resolves with its exit, stdout and stderr. */
function runImport(args, { onStderr } = {}) {
  const child = spawn(process.execPath, [IMPORT_BIN, ...args], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
    onStderr?.(stderr, child);
  });
  const done = new Promise((resolveDone) =>
    child.on("exit", (code, signal) => resolveDone({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

function importArgs(target, extra = []) {
  return [
    "--from",
    `ws://127.0.0.1:${server.port}/t/${source.id}`,
    "--from-token",
    source.token,
    "--to",
    `${server.baseUrl}/t/${target.id}`,
    "--to-token",
    target.token,
    ...extra,
  ];
}

async function importInto(target, extra = []) {
  const result = await runImport(importArgs(target, ["--json", "--no-progress", ...extra])).done;
  assert.equal(result.code, 0, `import exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/**
 * What a gateway client sees of a tenant: the sessions.list rows, and every chat.history
 * page of every session (newest first, by offset).
 */
async function snapshot(tenant) {
  const client = await GatewayClient.connect(`ws://127.0.0.1:${server.port}/t/${tenant.id}`, tenant.token, "e2e");
  try {
    const list = await client.request("sessions.list", {
      archived: "all",
      includeGlobal: true,
      includeUnknown: true,
      includeLastMessage: true,
    });
    const pages = {};
    let messages = 0;
    for (const row of list.sessions) {
      pages[row.key] = [];
      for (let offset = 0; offset !== undefined; ) {
        const page = await client.request("chat.history", { sessionKey: row.key, limit: 200, offset });
        // Runs are not imported: which run wrote a message (runId, idempotencyKey) stays with the source.
        for (const message of page.messages) {
          delete message.__openclaw.runId;
          delete message.__openclaw.idempotencyKey;
        }
        pages[row.key].push(page);
        messages += page.messages.length;
        offset = page.hasMore ? page.nextOffset : undefined;
      }
    }
    return { rows: list.sessions, pages, messages };
  } finally {
    client.close();
  }
}

function assertSameSessions(actual, expected) {
  assert.deepEqual(
    actual.rows.map((r) => r.key),
    expected.rows.map((r) => r.key),
    "the same sessions in the same order",
  );
  assert.deepEqual(actual.rows, expected.rows, "sessions.list rows");
  for (const row of expected.rows) {
    assert.deepEqual(actual.pages[row.key], expected.pages[row.key], `chat.history pages of ${row.key}`);
  }
  assert.equal(actual.messages, expected.messages);
}

/**
 * Polls until every run ended and the index stopped changing for longer than an unfollowed
 * session's quiet window (1 s: its last update may still be on its way).
 */
async function settled(tenant) {
  let previous;
  let unchanged = 0;
  for (let i = 0; i < 200; i++) {
    const list = await tenantCall(tenant, "GET", "/v1/sessions?includeArchived=1");
    const rows = JSON.stringify(list.sessions);
    const running = list.sessions.some((r) => r.status === "running");
    unchanged = !running && rows === previous ? unchanged + 1 : 0;
    if (unchanged >= 6) return;
    previous = rows;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error("the source tenant did not settle");
}

async function waitForHistory(tenant, sessionKey, count) {
  for (let i = 0; i < 200; i++) {
    const history = await tenantCall(tenant, "GET", `/sessions/${key(sessionKey)}/history?includeTools=1`);
    if (history.messages.length >= count) return history.messages;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${sessionKey} never reached ${count} messages`);
}

/** Sessions of every kind this service keeps. */
async function fillSource(tenant) {
  await tenantCall(tenant, "PUT", "/v1/config", { gateway: { tools: { allow: ["sessions_spawn"] } } });

  // The main session: agent turns (echo runner), with usage and run status.
  for (let i = 1; i <= 3; i++) {
    await tenantCall(tenant, "POST", "/v1/sessions/main/messages", user(`turn ${i}`, { run: true }));
    await waitForHistory(tenant, "main", 2 * i);
  }

  // Group and channel sessions with their origin and delivery route.
  await tenantCall(tenant, "POST", `/v1/sessions/${key("agent:main:discord:group:dev-team")}/messages`, {
    ...user("hi team"),
    origin: { provider: "discord", surface: "discord", chatType: "group", from: "discord:u1", label: "Dev Team" },
    deliveryContext: { channel: "discord", to: "channel:dev-team", accountId: "acct-1" },
    chatType: "group",
    displayName: "#dev-team",
    label: "dev team",
  });
  await tenantCall(tenant, "POST", `/v1/sessions/${key("agent:main:discord:group:dev-team")}/messages/batch`, {
    messages: [assistant("hello everyone"), user("status?"), assistant("all green")],
  });
  await tenantCall(tenant, "POST", `/v1/sessions/${key("agent:main:slack:channel:c42")}/messages`, {
    ...user("deploy at noon"),
    deliveryContext: { channel: "slack", to: "C42", threadId: "1700000000.0001" },
    chatType: "channel",
  });

  // Cron and hook sessions.
  await tenantCall(tenant, "POST", `/v1/sessions/${key("agent:main:cron:nightly")}/messages/batch`, {
    messages: [user("nightly report", { provenance: { kind: "internal_system" } }), assistant("report sent")],
  });
  await tenantCall(tenant, "POST", `/v1/sessions/${key("agent:main:hook:github:pr-7")}/messages/batch`, {
    messages: [user("PR #7 opened"), assistant("reviewing")],
  });

  // Tool calls and their results (details, usage), then entry overrides.
  await tenantCall(tenant, "POST", `/v1/sessions/${key("agent:main:tools")}/messages/batch`, {
    messages: [
      user("list the files"),
      {
        role: "assistant",
        content: [{ type: "toolCall", id: "call-1", name: "exec", arguments: { command: "ls" } }],
        stopReason: "toolUse",
        usage: { input: 40, output: 8, totalTokens: 48, cost: { total: 0.002 } },
      },
      {
        role: "toolResult",
        toolCallId: "call-1",
        toolName: "exec",
        content: [{ type: "text", text: "README.md\nsrc" }],
        details: { exitCode: 0, durationMs: 12 },
        isError: false,
      },
      assistant("two entries", { usage: { input: 60, output: 4, totalTokens: 64 } }),
    ],
  });
  await tenantCall(tenant, "PATCH", `/v1/sessions/${key("agent:main:tools")}`, {
    label: "tooling",
    sendPolicy: "deny",
    model: "echo",
    thinkingLevel: "low",
  });

  // A message from another session (provenance), a session without messages, a reset one.
  await tenantCall(tenant, "POST", `/v1/sessions/${key("agent:main:inbox")}/messages`, {
    ...user("forwarded note"),
    provenance: { kind: "inter_session", sourceSessionKey: "agent:main:main", sourceTool: "sessions_send" },
  });
  await tenantCall(tenant, "PATCH", `/v1/sessions/${key("agent:main:empty")}`, { label: "empty one" });
  await tenantCall(tenant, "POST", `/v1/sessions/${key("agent:main:reset-me")}/messages`, user("before the reset"));
  await tenantCall(tenant, "POST", `/v1/sessions/${key("agent:main:reset-me")}/reset`);
  await tenantCall(tenant, "POST", `/v1/sessions/${key("agent:main:reset-me")}/messages`, user("after the reset"));

  // A spawned sub-agent (its run, then its announce into main and main's reply).
  const spawned = await tenantCall(tenant, "POST", "/tools/invoke", {
    tool: "sessions_spawn",
    args: { task: "summarize the thread", label: "summary" },
    sessionKey: "main",
  });
  assert.equal(spawned.result.details.status, "accepted", JSON.stringify(spawned));
  await waitForHistory(tenant, spawned.result.details.childSessionKey, 2);
  await waitForHistory(tenant, "main", 8);

  // One long transcript.
  for (let start = 0; start < BIG_MESSAGES; start += 1000) {
    const messages = Array.from({ length: 1000 }, (_, i) =>
      (start + i) % 2 === 0 ? user(`question ${start + i}`) : assistant(`answer ${start + i}`),
    );
    await tenantCall(tenant, "POST", `/v1/sessions/${key("agent:main:big")}/messages/batch`, { messages });
  }
  await settled(tenant);
}

before(async () => {
  server = await startServer({ cwd: REPO_ROOT });
});

after(async () => {
  await server?.stop();
});

describe("npm run import between two tenants of wrangler dev", { timeout: 600_000 }, () => {
  let expected;

  before(async () => {
    Object.assign(source, await createTenant(source.id));
    await fillSource(source);
    expected = await snapshot(source);
    source.messages = expected.messages;
    source.keys = expected.rows.map((r) => r.key);
  });

  test("the source holds sessions of every kind and one 5,000-message transcript", () => {
    for (const k of [
      "agent:main:main",
      "agent:main:discord:group:dev-team",
      "agent:main:slack:channel:c42",
      "agent:main:cron:nightly",
      "agent:main:hook:github:pr-7",
      "agent:main:tools",
      "agent:main:empty",
      "agent:main:big",
    ]) {
      assert.ok(source.keys.includes(k), `${k} in ${source.keys.join(", ")}`);
    }
    const child = expected.rows.find((r) => r.spawnedBy === "agent:main:main");
    assert.ok(child?.key.startsWith("agent:main:subagent:"), "a spawned sub-agent");
    assert.equal(child.spawnDepth, 1);
    assert.equal(expected.pages["agent:main:big"].at(0).totalMessages, BIG_MESSAGES);
    const tools = expected.pages["agent:main:tools"].flatMap((p) => p.messages);
    assert.ok(tools.some((m) => m.role === "toolResult"));
  });

  test("copies every session: sessions.list rows and every chat.history page equal the source's", async () => {
    const target = await createTenant(`dst-${suffix()}`);
    const summary = await importInto(target);
    assert.equal(summary.sessions.total, source.keys.length);
    assert.equal(summary.sessions.new, source.keys.length);
    assert.equal(summary.sessions.failed, 0);
    assert.equal(summary.messages.copied, source.messages);
    assert.deepEqual(summary.skippedMessages, []);
    assertSameSessions(await snapshot(target), expected);

    // A rerun finds everything there and copies nothing.
    const rerun = await importInto(target);
    assert.equal(rerun.messages.copied, 0);
    assert.equal(rerun.sessions.unchanged, source.keys.length);
    assert.equal(rerun.sessions.new + rerun.sessions.updated, 0);
    assertSameSessions(await snapshot(target), expected);
  });

  test("an import killed halfway and run again leaves nothing missing and nothing doubled", async () => {
    const target = await createTenant(`kill-${suffix()}`);
    // Small pages and one session at a time, so the kill lands in the middle.
    const { done } = runImport(importArgs(target, ["--batch-size", "10", "--concurrency", "1"]), {
      onStderr: (stderr, proc) => {
        const copied = [...stderr.matchAll(/import: \d+\/\d+ sessions, ([\d,]+) messages/g)].map((m) =>
          Number(m[1].replace(/,/g, "")),
        );
        if (copied.some((n) => n > 0)) proc.kill("SIGKILL");
      },
    });
    const killed = await done;
    assert.equal(killed.signal, "SIGKILL", `the import ended before it was killed: ${killed.stderr}`);
    const partial = await snapshot(target);
    assert.ok(partial.messages < source.messages, `${partial.messages} of ${source.messages} copied before the kill`);

    const resumed = await importInto(target);
    assert.equal(resumed.sessions.failed, 0);
    assert.ok(
      resumed.messages.copied < source.messages,
      `the rerun resumed (${resumed.messages.copied} copied of ${source.messages})`,
    );
    assertSameSessions(await snapshot(target), expected);
  });

  test("--dry-run, --sessions and --since list what would be copied and write nothing", async () => {
    const target = await createTenant(`dry-${suffix()}`);
    const all = await importInto(target, ["--dry-run"]);
    assert.equal(all.plan.length, source.keys.length);
    assert.ok(all.plan.every((p) => p.action === "new"));
    assert.equal(
      all.messages.copied,
      expected.rows.reduce((n, r) => n + r.messageCount, 0),
    );

    const some = await importInto(target, ["--dry-run", "--sessions", "agent:main:cron:*,agent:main:hook:*"]);
    assert.deepEqual(some.plan.map((p) => p.key).sort(), ["agent:main:cron:nightly", "agent:main:hook:github:pr-7"]);
    const none = await importInto(target, ["--dry-run", "--since", "2999-01-01"]);
    assert.deepEqual(none.plan, []);
    assert.deepEqual((await tenantCall(target, "GET", "/v1/sessions")).sessions, []);
  });

  test("copies the 5,000-message session alone (figure: messages per second)", async (t) => {
    const target = await createTenant(`big-${suffix()}`);
    const summary = await importInto(target, ["--sessions", "agent:main:big"]);
    assert.equal(summary.messages.copied, BIG_MESSAGES);
    t.diagnostic(`5,000 messages in ${summary.seconds} s: ${summary.messages.perSecond} messages/s`);
    const copied = await snapshot(target);
    assert.deepEqual(copied.pages["agent:main:big"], expected.pages["agent:main:big"]);
  });

  test("a wrong token or address on either side is one clear line and exit code 2", async () => {
    const target = await createTenant(`err-${suffix()}`);
    const cases = [
      [["--from-token", "wrong"], /source gateway refused the connection: unauthorized/],
      [["--to-token", "wrong"], /target refused the token \(401/],
      [["--to", `${server.baseUrl}/t/no-such-tenant`], /target refused the token \(401/],
      [["--from", `ws://127.0.0.1:${server.port}/t/no-such-tenant`], /no OpenClaw gateway at .* \(HTTP 404\)/],
    ];
    for (const [override, expectedError] of cases) {
      const args = importArgs(target);
      for (let i = 0; i < override.length; i += 2) args[args.indexOf(override[i]) + 1] = override[i + 1];
      const result = await runImport([...args, "--no-progress"]).done;
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, expectedError);
      assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
      assert.doesNotMatch(result.stderr, /\n\s+at /);
    }
  });

  test("GET /v1/export streams the tenant as JSONL with every message", async () => {
    const res = await http("GET", `/t/${source.id}/v1/export`, { token: `Bearer ${source.token}` });
    assert.equal(res.status, 200);
    const lines = res.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const end = lines.at(-1);
    assert.equal(end.type, "end");
    assert.equal(end.sessions, source.keys.length);
    const big = lines.filter((l) => l.type === "message" && l.key === "agent:main:big");
    assert.deepEqual(
      big.map((l) => l.message.__openclaw.seq),
      Array.from({ length: BIG_MESSAGES }, (_, i) => i + 1),
    );
  });
});

describe("npm run import from a gateway that hides, merges and renumbers records (like OpenClaw 2026.9)", () => {
  const TOKEN = "fake-gateway-token";
  const sessionId = crypto.randomUUID();
  const msg = (id, role, content, extra = {}) => ({
    role,
    content,
    timestamp: 1_700_000_000_000,
    __openclaw: { id },
    ...extra,
  });
  const mixed = {
    row: {
      key: "agent:main:mixed",
      sessionId,
      updatedAt: 1_700_000_100_000,
      createdAt: 1_700_000_000_000,
      label: "mixed",
      status: "running",
      pinned: true,
      visibility: "shared",
    },
    records: [
      { seq: 1, message: msg("m1", "user", "hello") },
      { seq: 2, message: msg("m2", "assistant", [{ type: "text", text: "hi" }]) },
      { seq: 3, message: msg("m3", "compactionSummary", "summary of earlier turns") },
      { seq: 4, message: msg("m4", "user", "from a robot", { provenance: { kind: "robot" } }) },
      {
        seq: 5,
        message: msg("m5", "toolResult", [{ type: "text", text: "[omitted]" }], {
          __openclaw: { id: "m5", truncated: true },
        }),
      },
      {
        seq: 6,
        message: [msg("m6", "assistant", [{ type: "text", text: "part one" }]), msg("m6b", "assistant", "part two")],
      },
      { seq: 7, message: msg("m7", "user", "last words") },
      { seq: 8, hidden: true },
    ],
  };
  const sessions = new Map([[mixed.row.key, mixed]]);
  let gateway;
  let target;

  before(async () => {
    gateway = await startFakeGateway({ token: TOKEN, sessions, refuseArchived: true });
    target = await createTenant(`fake-${suffix()}`);
  });
  after(() => gateway?.close());

  const run = async () => {
    const args = [
      "--from",
      gateway.url,
      "--from-token",
      TOKEN,
      "--to",
      `${server.baseUrl}/t/${target.id}`,
      "--to-token",
      target.token,
    ];
    const result = await runImport([...args, "--json", "--no-progress"]).done;
    assert.equal(result.code, 0, result.stderr);
    return { summary: JSON.parse(result.stdout), stderr: result.stderr };
  };

  test("copies what the target can hold, says why the rest was left out, and moves past hidden records", async () => {
    const { summary, stderr } = await run();
    assert.match(stderr, /refused offset paging or the archived filter/);
    assert.deepEqual(summary.sessions, { total: 1, new: 1, updated: 0, unchanged: 0, skipped: 0, failed: 0 });
    assert.equal(summary.messages.copied, 4);
    assert.deepEqual(Object.fromEntries(summary.skippedMessages.map((s) => [s.reason, s.count])), {
      'role "compactionSummary" has no equivalent here': 1,
      'refused by the target (provenance.kind: Invalid option: expected one of "external_user"|"inter_session"|"internal_system")': 1,
      "over the source's chat.history size limit (it shows a placeholder)": 1,
      "a second display message of one source record (the first was kept)": 1,
    });
    assert.deepEqual(summary.unmappedFields, ["pinned", "status (value not accepted)", "visibility"]);

    const history = await tenantCall(target, "GET", "/sessions/agent%3Amain%3Amixed/history?includeTools=1");
    assert.deepEqual(
      history.messages.map((m) => [m.__openclaw.seq, m.__openclaw.id]),
      [
        [1, "m1"],
        [2, "m2"],
        [6, "m6"],
        [7, "m7"],
      ],
    );
    const row = (await tenantCall(target, "GET", "/v1/sessions")).sessions[0];
    assert.equal(row.sessionId, sessionId);
    assert.equal(row.label, "mixed");
    assert.equal(row.messageCount, 8, "the hidden record 8 counts as read");
    assert.equal(row.status, undefined, "a running status does not come over");

    const rerun = await run();
    assert.equal(rerun.summary.sessions.unchanged, 1);
    assert.equal(rerun.summary.messages.copied, 0);
  });

  test("skips a session the source reset in place (same sessionId, numbered from 1 again)", async () => {
    mixed.row.updatedAt += 1000;
    mixed.records = [
      { seq: 1, message: msg("reset", "system", "Reset") },
      { seq: 2, message: msg("n2", "user", "a new start") },
    ];
    const shorter = await run();
    assert.equal(shorter.summary.sessions.skipped, 1);
    assert.match(shorter.summary.skippedSessions[0].reason, /fewer than the 8 imported: it was reset in place/);

    for (let seq = 3; seq <= 10; seq++) mixed.records.push({ seq, message: msg(`n${seq}`, "user", `new ${seq}`) });
    const longer = await run();
    assert.equal(longer.summary.sessions.skipped, 1);
    assert.match(longer.summary.skippedSessions[0].reason, /reset in place or rewritten since it was imported/);
    const history = await tenantCall(target, "GET", "/sessions/agent%3Amain%3Amixed/history");
    assert.deepEqual(
      history.messages.map((m) => m.__openclaw.id),
      ["m1", "m2", "m6", "m7"],
    );
  });
});
