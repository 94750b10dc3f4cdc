// Acceptance test: the MCP endpoint of a real `wrangler dev`, driven by the official MCP SDK
// client (StreamableHTTPClientTransport) as Claude Code, a connector or the Inspector would.
// Run with `node --test test/e2e/`.
//
// The tests run in order and share one server; the default tenant's config (set in `before`)
// lets sessions_send and sessions_spawn through gateway.tools.allow.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { killAllServersNow, startServer } from "../../bench/lib/server.mjs";
import { httpJson } from "./http-json.mjs";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const TOKEN = "dev-operator-token";
const ADMIN = "dev-admin-token";
const STEP_MS = 15_000;
const TEST_MS = 30_000;
const RESTART_TEST_MS = 60_000;

process.once("exit", killAllServersNow);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    killAllServersNow();
    process.exit(130);
  });
}

let server;
let stateDir;
const clients = [];

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function http(method, path, body, token = TOKEN) {
  const authorization = token ? `Bearer ${token}` : null;
  return httpJson(server.baseUrl, method, path, { authorization, body, timeoutMs: STEP_MS });
}

/** An SDK client connected to `path` with a bearer token (or an OAuth provider). */
async function connect(path, { token = TOKEN, authProvider } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}${path}`), {
    ...(authProvider ? { authProvider } : { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  });
  const client = new Client({ name: "mcp-e2e", version: "1.0.0" });
  await withTimeout(client.connect(transport), STEP_MS, `connect ${path}`);
  clients.push(client);
  return { client, transport };
}

async function callTool(client, name, args = {}) {
  return withTimeout(client.callTool({ name, arguments: args }), STEP_MS + 10_000, `tools/call ${name}`);
}

/** One JSON-RPC POST with fetch, to see status codes and headers the SDK hides. */
async function rawRpc(path, token, message) {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(STEP_MS),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const textOf = (message) =>
  typeof message?.content === "string"
    ? message.content
    : (message?.content ?? []).map((part) => part?.text ?? "").join("");

/** An OAuth client as the SDK expects one: it keeps what the flow hands it, in memory. */
class ConnectorAuth {
  redirectUrl = "http://127.0.0.1:9/callback";
  clientMetadata = {
    client_name: "E2E Connector",
    redirect_uris: [this.redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The operator's part: open the authorization page, paste the operator token, allow. Returns the code. */
async function approveAsOperator(authorizationUrl, operatorToken) {
  const page = await fetch(authorizationUrl, { redirect: "manual", signal: AbortSignal.timeout(STEP_MS) });
  const html = await page.text();
  assert.equal(page.status, 200, html.slice(0, 500));
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1];
  assert.ok(handle, "the authorization page carries a form handle");
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const form = new URLSearchParams({ handle, token: operatorToken, action: "approve" });
  form.append("scope", "operator.read");
  form.append("scope", "operator.write");
  const decided = await fetch(authorizationUrl, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: form,
    signal: AbortSignal.timeout(STEP_MS),
  });
  assert.equal(decided.status, 302, await decided.text());
  const code = new URL(decided.headers.get("location")).searchParams.get("code");
  assert.ok(code, "the redirect carries an authorization code");
  return code;
}

describe("MCP endpoint against wrangler dev", { timeout: 300_000 }, () => {
  let client;

  before(async () => {
    stateDir = await mkdtemp(join(tmpdir(), "oc-mcp-e2e-state-"));
    server = await startServer({ cwd: REPO_ROOT, persistDir: stateDir, readyTimeoutMs: 60_000 });
    const config = await http("PUT", "/v1/config", {
      gateway: { tools: { allow: ["sessions_send", "sessions_spawn"] } },
      tools: { sessions: { visibility: "agent" } },
    });
    assert.equal(config.status, 200, config.text);
  });

  after(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => {});
    await server?.stop();
    if (stateDir) await rm(stateDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
  });

  test("1. initializes with the latest protocol revision and lists the tools with their schemas", {
    timeout: TEST_MS,
  }, async () => {
    ({ client } = await connect("/mcp"));
    assert.equal(client.getServerVersion().name, "openclaw-sessions");
    const init = await rawRpc("/mcp", TOKEN, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    assert.equal(JSON.parse(init.text).result.protocolVersion, LATEST_PROTOCOL_VERSION);

    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      "agents_list",
      "session_status",
      "sessions_history",
      "sessions_list",
      "sessions_send",
      "sessions_spawn",
      "sessions_wait",
    ]);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, "object", `${tool.name} schema is an object`);
      assert.ok(!("$schema" in tool.inputSchema), `${tool.name} schema is plain`);
      assert.ok(typeof tool.description === "string" && tool.description.length > 20, `${tool.name} is described`);
    }
    const list = tools.find((t) => t.name === "sessions_list");
    assert.deepEqual(list.inputSchema.properties.limit.type, "number");
    assert.deepEqual(tools.find((t) => t.name === "sessions_send").inputSchema.required, ["message"]);
  });

  test("2. calls sessions_list, sessions_history, session_status and agents_list", { timeout: TEST_MS }, async () => {
    const seeded = await http("POST", `/v1/sessions/${encodeURIComponent("agent:main:peer")}/messages`, {
      role: "user",
      content: "peer seed",
    });
    assert.equal(seeded.status, 201, seeded.text);
    const list = await callTool(client, "sessions_list", { limit: 50 });
    assert.ok(
      list.structuredContent.sessions.some((s) => s.key === "agent:main:peer"),
      JSON.stringify(list),
    );
    assert.equal(list.content[0].type, "text");
    assert.deepEqual(JSON.parse(list.content[0].text), list.structuredContent);

    const history = await callTool(client, "sessions_history", { sessionKey: "agent:main:peer" });
    assert.deepEqual(history.structuredContent.messages.map(textOf), ["peer seed"]);
    const status = await callTool(client, "session_status", { sessionKey: "agent:main:peer" });
    assert.match(status.content[0].text, /Session: agent:main:peer/);
    const agents = await callTool(client, "agents_list");
    assert.equal(agents.structuredContent.requester, "main");

    const unknown = await client.callTool({ name: "no_such_tool", arguments: {} }).then(
      () => null,
      (error) => error,
    );
    assert.equal(unknown?.code, -32602, "an unknown tool is a JSON-RPC invalid-params error");
    const bad = await callTool(client, "sessions_history", { sessionKey: 5 });
    assert.equal(bad.isError, true);
  });

  test("3. sessions_send gets the echo runner's reply", { timeout: TEST_MS }, async () => {
    const sent = await callTool(client, "sessions_send", {
      sessionKey: "agent:main:peer",
      message: "hello over mcp",
      timeoutSeconds: 10,
    });
    assert.equal(sent.isError, undefined, JSON.stringify(sent));
    assert.equal(sent.structuredContent.status, "ok");
    assert.equal(sent.structuredContent.reply, "ECHO: hello over mcp");
  });

  test("4. sessions_wait returns a message appended meanwhile", { timeout: TEST_MS }, async () => {
    const key = "agent:main:waiting";
    await http("POST", `/v1/sessions/${encodeURIComponent(key)}/messages`, { role: "user", content: "first" });
    const waiting = callTool(client, "sessions_wait", { sessionKey: key, afterSeq: 1, timeoutSeconds: 20 });
    await new Promise((r) => setTimeout(r, 300));
    const appended = await http("POST", `/v1/sessions/${encodeURIComponent(key)}/messages`, {
      role: "user",
      content: "arrived meanwhile",
    });
    assert.equal(appended.status, 201);
    const result = await waiting;
    assert.equal(result.structuredContent.timedOut, false);
    assert.deepEqual(result.structuredContent.messages.map(textOf), ["arrived meanwhile"]);
    assert.equal(result.structuredContent.nextAfterSeq, appended.json.seq);
  });

  test("4b. a long sessions_wait is kept alive by progress notifications (the client's 12 s timeout never fires)", {
    timeout: TEST_MS,
  }, async () => {
    const key = "agent:main:quiet";
    await http("POST", `/v1/sessions/${encodeURIComponent(key)}/messages`, { role: "user", content: "quiet" });
    const progress = [];
    // Without the notification at 10 s the SDK's 12 s request timeout would end the 14 s wait.
    const result = await client.callTool(
      { name: "sessions_wait", arguments: { sessionKey: key, afterSeq: 1, timeoutSeconds: 14 } },
      undefined,
      { timeout: 12_000, resetTimeoutOnProgress: true, onprogress: (p) => progress.push(p.progress) },
    );
    assert.equal(result.structuredContent.timedOut, true);
    assert.deepEqual(result.structuredContent.messages, []);
    assert.deepEqual(progress, [1]);
  });

  test("5. sessions_spawn is accepted and its announce arrives (followed with sessions_wait)", {
    timeout: 60_000,
  }, async () => {
    const before = await callTool(client, "sessions_wait", { sessionKey: "main", timeoutSeconds: 0, limit: 200 });
    let afterSeq = before.structuredContent.lastSeq;
    const spawned = await callTool(client, "sessions_spawn", { task: "say hi", label: "greeter" });
    assert.equal(spawned.structuredContent.status, "accepted", JSON.stringify(spawned));
    assert.match(spawned.structuredContent.childSessionKey, /^agent:main:subagent:/);

    const deadline = Date.now() + 45_000;
    let announce;
    while (!announce && Date.now() < deadline) {
      const page = await callTool(client, "sessions_wait", { sessionKey: "main", afterSeq, timeoutSeconds: 10 });
      announce = page.structuredContent.messages.find((m) => textOf(m).includes("[Internal task completion event]"));
      afterSeq = page.structuredContent.nextAfterSeq;
    }
    assert.ok(announce, "the sub-agent's announce reaches the requester's transcript");
    assert.match(textOf(announce), /ECHO: /);
  });

  test("6. lists the transcripts as resources and reads one", { timeout: TEST_MS }, async () => {
    const { resources } = await client.listResources();
    const peer = resources.find((r) => r.uri === "openclaw://session/agent%3Amain%3Apeer");
    assert.ok(peer, JSON.stringify(resources.map((r) => r.uri)));
    const read = await client.readResource({ uri: `${peer.uri}?limit=1` });
    const page = JSON.parse(read.contents[0].text);
    assert.equal(page.sessionKey, "agent:main:peer");
    assert.equal(page.messages.length, 1);
    assert.equal(page.hasMore, true);
    const older = JSON.parse((await client.readResource({ uri: page.nextUri })).contents[0].text);
    assert.equal(older.messages.length, 1);
    assert.notDeepEqual(older.messages, page.messages);
  });

  test("7. OAuth: registration → authorize → token → call → revoke → 401", { timeout: TEST_MS }, async () => {
    const auth = new ConnectorAuth();
    const first = await connect("/mcp", { authProvider: auth }).then(
      () => null,
      (error) => error,
    );
    assert.ok(first instanceof UnauthorizedError, `the first connect asks for authorization: ${first}`);
    assert.ok(auth.client?.client_id, "the client registered itself");
    const authorizationUrl = auth.authorizationUrl;
    assert.equal(authorizationUrl.pathname, "/t/default/oauth/authorize");
    assert.equal(authorizationUrl.searchParams.get("code_challenge_method"), "S256");
    assert.equal(authorizationUrl.searchParams.get("resource"), `${server.baseUrl}/mcp`);

    const code = await approveAsOperator(authorizationUrl, TOKEN);
    const pending = new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { authProvider: auth });
    await pending.finishAuth(code);
    assert.ok(auth.saved?.access_token, "the code was exchanged for tokens");

    const { client: connector } = await connect("/mcp", { authProvider: auth });
    const listed = await callTool(connector, "sessions_list", {});
    assert.ok(Array.isArray(listed.structuredContent.sessions));

    const revoke = await fetch(`${server.baseUrl}/t/default/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: auth.saved.refresh_token, client_id: auth.client.client_id }),
    });
    assert.equal(revoke.status, 200);
    const after = await rawRpc("/mcp", auth.saved.access_token, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    assert.equal(after.status, 401);
    assert.match(
      after.headers.get("www-authenticate"),
      /resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    const refused = await connector.listTools().then(
      () => null,
      (error) => error,
    );
    assert.ok(refused, "the SDK client is refused after the revocation");
  });

  test("8. a token of tenant A is 401 on /t/B/mcp", { timeout: TEST_MS }, async () => {
    for (const id of ["mcp-a", "mcp-b"]) {
      const created = await http("POST", "/v1/admin/tenants", { id }, ADMIN);
      assert.equal(created.status, 201, created.text);
    }
    const issued = await http("POST", "/v1/admin/tenants/mcp-a/tokens", { scopes: ["operator.read"] }, ADMIN);
    const tokenA = issued.json.token;
    const { client: clientA } = await connect("/t/mcp-a/mcp", { token: tokenA });
    assert.equal((await callTool(clientA, "sessions_list")).structuredContent.count, 0);
    const onB = await rawRpc("/t/mcp-b/mcp", tokenA, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    assert.equal(onB.status, 401);
    assert.match(onB.headers.get("www-authenticate"), /error="invalid_token"/);
    const sdkOnB = await connect("/t/mcp-b/mcp", { token: tokenA }).then(
      () => null,
      (error) => error,
    );
    assert.ok(sdkOnB, "the SDK client cannot connect to tenant B with tenant A's token");
  });

  test("9. the same client keeps working after the server restarts between calls (no session to lose)", {
    timeout: RESTART_TEST_MS,
  }, async () => {
    const { port } = server;
    await withTimeout(server.stop(), 15_000, "server stop");
    server = await startServer({ cwd: REPO_ROOT, persistDir: stateDir, port, readyTimeoutMs: 60_000 });
    const history = await callTool(client, "sessions_history", { sessionKey: "agent:main:peer" });
    assert.ok(history.structuredContent.messages.map(textOf).includes("peer seed"), JSON.stringify(history));
    const { tools } = await client.listTools();
    assert.equal(tools.length, 7);
  });
});
