import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { describe, expect, it } from "vitest";
import { mintRunToken } from "../../../src/auth/run-token";
import { call, freshTenant, issueToken, type TestTenant, until, user } from "../support/helpers";

/**
 * Resolves once a sessions_wait is waiting in the session object (private): what the test does
 * next must happen during the wait, and a fixed sleep lost that race on a loaded machine.
 */
async function waitingIn(t: TestTenant, key: string) {
  const stub = env.SESSIONS.getByName(`${t.id}/${key}`);
  type Parts = { parts: { seqWaiters: { waiting: Map<unknown, Set<unknown>> } } };
  await until(
    () => runInDurableObject(stub, (object) => (object as unknown as Parts).parts.seqWaiters.waiting.size),
    (size) => size > 0,
    10_000,
  );
}

/**
 * A run token of a run that is active (a webhook run waiting for its callbacks): run tokens act
 * as their session only while their run is queued or running.
 */
async function activeRunToken(
  t: TestTenant,
  claims: { sessionKey: string; runId: string; spawnDepth: number; sessionTools: boolean },
): Promise<string> {
  await t.append(claims.sessionKey, user("run input"));
  await runInDurableObject(env.SESSIONS.getByName(`${t.id}/${claims.sessionKey}`), (_instance, state) => {
    const input = { message: "run input", origin: "tool", runner: { type: "echo" }, agentId: "main", tenantId: t.id };
    state.storage.sql.exec(
      "INSERT INTO runs (run_id, seq, state, input, created_at, started_at, deferred) VALUES (?, 1, 'running', ?, ?, ?, 1)",
      claims.runId,
      JSON.stringify(input),
      Date.now(),
      Date.now(),
    );
  });
  return mintRunToken("test-run-token-secret", {
    tenantId: t.id,
    agentId: "main",
    sandboxed: false,
    exp: Date.now() + 60_000,
    ...claims,
  });
}

/** The MCP endpoint driven by the official SDK client, and raw JSON-RPC where the wire matters. */

const BASE = "http://svc.test";
const ACCEPT_BOTH = "application/json, text/event-stream";

async function connect(path: string, token: string, headers: Record<string, string> = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}${path}`), {
    fetch: (input, init) => exports.default.fetch(new Request(input, init)),
    requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
  });
  const client = new Client(
    { name: "vitest", version: "1.0.0" },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  await client.connect(transport);
  return client;
}

const connectTenant = (t: TestTenant, headers: Record<string, string> = {}) =>
  connect(`${t.prefix}/mcp`, t.token, headers);

/** One raw JSON-RPC POST; `body` is sent as is when it is a string. An SSE answer's last message is `data`. */
async function rpc(
  path: string,
  body: unknown,
  init: { token?: string | null; headers?: Record<string, string> } = {},
) {
  const res = await call(path, {
    method: "POST",
    token: init.token,
    headers: { "content-type": "application/json", accept: ACCEPT_BOTH, ...init.headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  if (!res.headers.get("content-type")?.includes("text/event-stream")) return res;
  const events = res.text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));
  return { ...res, data: events.at(-1), events };
}

/** Every session of the agent is visible (the default, "tree", shows only the caller's own and spawned ones). */
const AGENT_VISIBILITY = { tools: { sessions: { visibility: "agent" } } };

const toolCall = (name: string, args: unknown, id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

/** The JSON document a resource read returns. */
const readJson = async (client: Client, uri: string) => {
  const content = (await client.readResource({ uri })).contents[0] as { text: string };
  return JSON.parse(content.text);
};

async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as {
    content: Array<{ type: string; text: string }>;
    structuredContent?: any;
    isError?: boolean;
  };
}

describe("MCP endpoint: initialize and tools/list", () => {
  it("initializes over the SDK client with the latest protocol revision, tools and resources, and no session id", async () => {
    const t = await freshTenant("mcp-init");
    const init = await rpc(
      `${t.prefix}/mcp`,
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: LATEST_PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      },
      { token: t.token },
    );
    expect(init.status).toBe(200);
    expect(init.headers.get("content-type")).toContain("application/json");
    expect(init.headers.get("mcp-session-id")).toBeNull();
    expect(init.data.result).toMatchObject({
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: { tools: {}, resources: {} },
      serverInfo: { name: "openclaw-sessions" },
    });

    const client = await connectTenant(t);
    expect(client.getServerVersion()?.name).toBe("openclaw-sessions");
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    await client.close();
  });

  it("answers JSON, or SSE when the client accepts it and the call may wait or JSON is not accepted", async () => {
    const t = await freshTenant("mcp-sse");
    await t.append("main", user("x"));
    const wait = toolCall("sessions_wait", { sessionKey: "main", timeoutSeconds: 0 });
    const list = { jsonrpc: "2.0", id: 9, method: "tools/list" };
    const type = async (body: unknown, accept: string) =>
      (await rpc(`${t.prefix}/mcp`, body, { token: t.token, headers: { accept } })).headers.get("content-type");
    expect(await type(list, ACCEPT_BOTH)).toContain("application/json");
    expect(await type(wait, ACCEPT_BOTH)).toContain("text/event-stream");
    expect(await type(wait, "application/json")).toContain("application/json");
    expect(await type(list, "text/event-stream")).toContain("text/event-stream");
    const streamed = await rpc(`${t.prefix}/mcp`, wait, { token: t.token });
    expect(streamed.data.result.structuredContent).toMatchObject({ nextAfterSeq: 1 });
  });

  it("lists the tools this caller may call, with plain object schemas derived from the zod definitions", async () => {
    const t = await freshTenant("mcp-list");
    const client = await connectTenant(t);
    const { tools } = await client.listTools();
    // sessions_send and sessions_spawn are on OpenClaw's HTTP deny list by default.
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      "agents_list",
      "session_status",
      "sessions_history",
      "sessions_list",
      "sessions_wait",
    ]);
    const history = tools.find((tool) => tool.name === "sessions_history")!;
    expect(history.inputSchema).toMatchObject({
      type: "object",
      required: ["sessionKey"],
      properties: {
        sessionKey: { type: "string", minLength: 1, maxLength: 512 },
        limit: { type: "number" },
        includeTools: { type: "boolean" },
      },
    });
    expect(history.inputSchema).not.toHaveProperty("$schema");
    expect(history.inputSchema).not.toHaveProperty("additionalProperties");
    expect(history.annotations).toMatchObject({ readOnlyHint: true });
    expect(history.description).toMatch(/transcript/);
    const wait = tools.find((tool) => tool.name === "sessions_wait")!;
    expect(wait.inputSchema.properties).toMatchObject({
      afterSeq: { type: "number" },
      timeoutSeconds: { type: "number" },
    });

    await t.config({ gateway: { tools: { allow: ["sessions_send", "sessions_spawn"], deny: ["sessions_list"] } } });
    const allowed = (await client.listTools()).tools.map((tool) => tool.name);
    expect(allowed).toContain("sessions_send");
    expect(allowed).toContain("sessions_spawn");
    expect(allowed).not.toContain("sessions_list");
    const spawn = (await client.listTools()).tools.find((tool) => tool.name === "sessions_spawn")!;
    expect(spawn.inputSchema).toMatchObject({ type: "object", required: ["task"] });
    expect(spawn.annotations).toMatchObject({ readOnlyHint: false });
    await client.close();
  });

  it("shows an operator.read token only the read-only tools and refuses the others as a tool error", async () => {
    const t = await freshTenant("mcp-read");
    await t.config({ gateway: { tools: { allow: ["sessions_send"] } } });
    const { token } = await issueToken(t.id, ["operator.read"]);
    const client = await connect(`${t.prefix}/mcp`, token);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      "agents_list",
      "sessions_history",
      "sessions_list",
      "sessions_wait",
    ]);
    const refused = await callTool(client, "sessions_send", { sessionKey: "main", message: "hi" });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toBe("missing scope: operator.write");
    expect((await callTool(client, "sessions_list")).isError).toBeUndefined();
    await client.close();
  });
});

describe("MCP endpoint: tools/call shares /tools/invoke's implementation", () => {
  it("answers sessions_list with OpenClaw's text block and the same payload as structuredContent", async () => {
    const t = await freshTenant("mcp-same");
    await t.config(AGENT_VISIBILITY);
    await t.append("main", user("hello"));
    await t.append("agent:main:other", user("other"));
    const client = await connectTenant(t);
    const viaMcp = await callTool(client, "sessions_list", { limit: 50 });
    const viaHttp = (await t.invoke("sessions_list", { limit: 50 })).data.result;
    expect(viaMcp.structuredContent).toEqual(viaHttp.details);
    expect(viaMcp.content).toEqual(viaHttp.content);
    expect(viaMcp.structuredContent.count).toBe(2);
    expect(viaMcp.isError).toBeUndefined();
    await client.close();
  });

  it("calls sessions_history, session_status and agents_list", async () => {
    const t = await freshTenant("mcp-each");
    await t.append("main", user("first words"));
    const client = await connectTenant(t);
    const history = await callTool(client, "sessions_history", { sessionKey: "main" });
    expect(history.structuredContent.messages.map((m: any) => m.content)).toEqual(["first words"]);
    const status = await callTool(client, "session_status", {});
    expect(status.content[0]!.text).toContain("🧵 Session: agent:main:main");
    expect(status.structuredContent).toMatchObject({ ok: true, sessionKey: "main", changedModel: false });
    const agents = await callTool(client, "agents_list");
    expect(agents.structuredContent).toMatchObject({ requester: "main", agents: [{ id: "main" }] });
    await client.close();
  });

  it("answers sessions_history of a key that names no session as a tool error, OpenClaw's text", async () => {
    const t = await freshTenant("mcp-history-missing");
    const client = await connectTenant(t);
    const missing = await callTool(client, "sessions_history", { sessionKey: "agent:main:never9" });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toEqual({ status: "error", error: "No session found: agent:main:never9" });
    await client.close();
  });

  it("reports tool input errors and refused targets as tool errors with OpenClaw's texts", async () => {
    const t = await freshTenant("mcp-errors");
    await t.config({ gateway: { tools: { allow: ["sessions_send", "sessions_spawn"] } } });
    const client = await connectTenant(t);
    const routed = await callTool(client, "sessions_spawn", { task: "x", channel: "slack" });
    expect(routed).toMatchObject({ isError: true });
    expect(routed.content[0]!.text).toBe(
      'sessions_spawn does not support "channel". Use "message" or "sessions_send" for channel delivery.',
    );
    const badType = await callTool(client, "sessions_history", { sessionKey: 42 });
    expect(badType.isError).toBe(true);
    expect(badType.content[0]!.text).toMatch(/^sessionKey: /);
    const both = await callTool(client, "sessions_send", { sessionKey: "a", label: "b", message: "x" });
    expect(both.isError).toBe(true);
    expect(both.structuredContent).toMatchObject({
      status: "error",
      error: "Provide either sessionKey or label (not both).",
    });
    await client.close();
  });

  it("answers unknown, denied and prototype-named tools with a JSON-RPC invalid-params error", async () => {
    const t = await freshTenant("mcp-unknown");
    await t.config({ gateway: { tools: { deny: ["agents_list"] } } });
    for (const name of ["no_such_tool", "agents_list", "sessions_send", "constructor", "__proto__"]) {
      const res = await rpc(`${t.prefix}/mcp`, toolCall(name, {}), { token: t.token });
      expect(res.status, name).toBe(200);
      expect(res.data.error, name).toMatchObject({
        code: -32602,
        message: expect.stringContaining("Tool not available"),
      });
    }
  });

  it("sends to a session and returns the echo runner's reply", async () => {
    const t = await freshTenant("mcp-send");
    await t.config({ ...AGENT_VISIBILITY, gateway: { tools: { allow: ["sessions_send"] } } });
    await t.append("agent:main:peer", user("seed"));
    const client = await connectTenant(t);
    const sent = await callTool(client, "sessions_send", {
      sessionKey: "agent:main:peer",
      message: "ping over mcp",
      timeoutSeconds: 10,
    });
    expect(sent.isError).toBeUndefined();
    expect(sent.structuredContent).toMatchObject({ status: "ok", reply: "ECHO: ping over mcp" });
    await client.close();
  });

  it("acts as the session named by x-openclaw-session-key, and a run token as its own session", async () => {
    const t = await freshTenant("mcp-requester");
    await t.append("agent:main:work", user("work"));
    const asWork = await connectTenant(t, { "x-openclaw-session-key": "agent:main:work" });
    expect((await callTool(asWork, "session_status", {})).structuredContent.sessionKey).toBe("agent:main:work");
    await asWork.close();

    const runToken = await activeRunToken(t, {
      sessionKey: "agent:main:work",
      runId: "r1",
      spawnDepth: 0,
      sessionTools: true,
    });
    const asRun = await connect(`${t.prefix}/mcp`, runToken, { "x-openclaw-session-key": "agent:main:main" });
    expect((await callTool(asRun, "session_status", {})).structuredContent.sessionKey).toBe("agent:main:work");
    await asRun.close();
  });

  it("refuses a run token once its run has ended (401)", async () => {
    const t = await freshTenant("mcp-ended-run");
    const runToken = await activeRunToken(t, {
      sessionKey: "agent:main:job",
      runId: "r9",
      spawnDepth: 0,
      sessionTools: true,
    });
    expect((await rpc(`${t.prefix}/mcp`, toolCall("session_status", {}), { token: runToken })).status).toBe(200);
    await runInDurableObject(env.SESSIONS.getByName(`${t.id}/agent:main:job`), (_instance, state) => {
      state.storage.sql.exec("UPDATE runs SET state = 'ok', ended_at = ? WHERE run_id = 'r9'", Date.now());
    });
    expect((await rpc(`${t.prefix}/mcp`, toolCall("session_status", {}), { token: runToken })).status).toBe(401);
  });

  it("counts MCP tool calls against the tenant's tool rate limit", async () => {
    const t = await freshTenant("mcp-rate");
    await t.config({ rateLimit: { toolsPerMinute: 2 } });
    const client = await connectTenant(t);
    expect((await callTool(client, "agents_list")).isError).toBeUndefined();
    expect((await callTool(client, "agents_list")).isError).toBeUndefined();
    const limited = await callTool(client, "agents_list");
    expect(limited.isError).toBe(true);
    expect(limited.content[0]!.text).toBe("Too many tool calls: the limit is 2 per minute");
    expect(limited.structuredContent.retryAfterSeconds).toBeGreaterThan(0);
    // The same budget: /tools/invoke is refused too.
    expect((await t.invoke("agents_list")).status).toBe(429);
    await client.close();
  });

  it("keeps working when the tenant and session objects are evicted between calls", async () => {
    const t = await freshTenant("mcp-evict");
    await t.append("main", user("before eviction"));
    const client = await connectTenant(t);
    expect((await callTool(client, "sessions_list")).structuredContent.count).toBe(1);
    await evictDurableObject(env.TENANTS.getByName(t.id));
    await evictDurableObject(env.SESSIONS.getByName(`${t.id}/agent:main:main`));
    const history = await callTool(client, "sessions_history", { sessionKey: "main" });
    expect(history.structuredContent.messages.map((m: any) => m.content)).toEqual(["before eviction"]);
    await client.close();
  });
});

describe("MCP endpoint: sessions_wait", () => {
  it("returns the messages after afterSeq at once when there are some", async () => {
    const t = await freshTenant("mcp-wait-now");
    for (const text of ["one", "two", "three"]) await t.append("main", user(text));
    const client = await connectTenant(t);
    const result = await callTool(client, "sessions_wait", { sessionKey: "main", afterSeq: 1 });
    expect(result.structuredContent).toMatchObject({ afterSeq: 1, nextAfterSeq: 3, lastSeq: 3, timedOut: false });
    expect(result.structuredContent.messages.map((m: any) => m.content)).toEqual(["two", "three"]);
    await client.close();
  });

  it("waits for a message appended meanwhile and returns it", async () => {
    const t = await freshTenant("mcp-wait-live");
    await t.append("main", user("old"));
    const client = await connectTenant(t);
    const waiting = callTool(client, "sessions_wait", { sessionKey: "main", afterSeq: 1, timeoutSeconds: 20 });
    await waitingIn(t, "agent:main:main");
    await t.append("main", user("news"));
    const result = await waiting;
    expect(result.structuredContent).toMatchObject({ nextAfterSeq: 2, timedOut: false });
    expect(result.structuredContent.messages.map((m: any) => m.content)).toEqual(["news"]);
    await client.close();
  });

  it("answers at once, like a timeout, when the session object is reset during the wait", async () => {
    const t = await freshTenant("mcp-wait-evict");
    await t.append("main", user("before"));
    const client = await connectTenant(t);
    const waiting = callTool(client, "sessions_wait", { sessionKey: "main", afterSeq: 1, timeoutSeconds: 60 });
    await waitingIn(t, "agent:main:main");
    // What a deploy does to a running object: it is reset and its in-flight calls fail.
    await runInDurableObject(env.SESSIONS.getByName(`${t.id}/agent:main:main`), (_, state) => {
      state.abort("reset by the test");
    }).catch(() => undefined);
    const result = await waiting;
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ timedOut: true, nextAfterSeq: 1, lastSeq: 1 });
    // The next wait works on the fresh object.
    const next = callTool(client, "sessions_wait", { sessionKey: "main", afterSeq: 1, timeoutSeconds: 20 });
    await waitingIn(t, "agent:main:main");
    await t.append("main", user("after"));
    expect((await next).structuredContent.messages.map((m: any) => m.content)).toEqual(["after"]);
    await client.close();
  });

  it("times out with no messages and the same afterSeq when nothing arrives", async () => {
    const t = await freshTenant("mcp-wait-timeout");
    await t.append("main", user("only"));
    const client = await connectTenant(t);
    const result = await callTool(client, "sessions_wait", { sessionKey: "main", afterSeq: 1, timeoutSeconds: 0.2 });
    expect(result.structuredContent).toMatchObject({ messages: [], nextAfterSeq: 1, lastSeq: 1, timedOut: true });
    await client.close();
  });

  it("is served by /tools/invoke too, with the same answer", async () => {
    const t = await freshTenant("mcp-wait-invoke");
    await t.append("main", user("a"));
    await t.append("main", user("b"));
    const res = await t.invoke("sessions_wait", { sessionKey: "main", afterSeq: 1, timeoutSeconds: 0 });
    expect(res.status).toBe(200);
    expect(res.data.result.details).toMatchObject({ nextAfterSeq: 2, timedOut: false });
    expect(res.data.result.details.messages.map((m: any) => m.content)).toEqual(["b"]);
  });

  it("is a session tool: a sub-agent's run token without session tools does not get it", async () => {
    const t = await freshTenant("mcp-wait-sub");
    const runToken = await activeRunToken(t, {
      sessionKey: "agent:main:subagent:x",
      runId: "r",
      spawnDepth: 1,
      sessionTools: false,
    });
    const client = await connect(`${t.prefix}/mcp`, runToken);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).not.toContain("sessions_wait");
    expect(names).not.toContain("sessions_list");
    expect((await client.listResources()).resources).toEqual([]);
    await client.close();
  });

  it("moves nextAfterSeq past tool results even when they are not shown", async () => {
    const t = await freshTenant("mcp-wait-tools");
    await t.append("main", user("go"));
    await t.append("main", {
      role: "toolResult",
      toolCallId: "c",
      toolName: "exec",
      content: [{ type: "text", text: "r" }],
    });
    const client = await connectTenant(t);
    const result = await callTool(client, "sessions_wait", { sessionKey: "main", afterSeq: 1 });
    expect(result.structuredContent).toMatchObject({ messages: [], nextAfterSeq: 2, timedOut: false });
    await client.close();
  });

  it("applies sessions_history's visibility", async () => {
    const t = await freshTenant("mcp-wait-vis");
    await t.config({ tools: { sessions: { visibility: "self" } } });
    await t.append("agent:main:secret", user("hidden"));
    const client = await connectTenant(t);
    const result = await callTool(client, "sessions_wait", { sessionKey: "agent:main:secret", timeoutSeconds: 0 });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: "forbidden" });
    expect(JSON.stringify(result.structuredContent)).not.toContain("hidden");
    await client.close();
  });
});

describe("MCP endpoint: resources", () => {
  it("lists each visible session's transcript and reads it in pages", async () => {
    const t = await freshTenant("mcp-res");
    await t.config(AGENT_VISIBILITY);
    for (let i = 1; i <= 5; i++) await t.append("agent:main:log", user(`line ${i}`));
    await t.append("main", user("main line"));
    const client = await connectTenant(t);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual([
      "openclaw://session/agent%3Amain%3Alog",
      "openclaw://session/main",
    ]);
    expect(resources[0]).toMatchObject({ mimeType: "application/json" });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates[0]!.uriTemplate).toBe("openclaw://session/{sessionKey}{?beforeSeq,limit}");

    const page = await readJson(client, "openclaw://session/agent%3Amain%3Alog?limit=2");
    expect(page.messages.map((m: any) => m.content)).toEqual(["line 4", "line 5"]);
    expect(page).toMatchObject({ sessionKey: "agent:main:log", hasMore: true, nextBeforeSeq: 4 });
    const older = await readJson(client, page.nextUri);
    expect(older.messages.map((m: any) => m.content)).toEqual(["line 2", "line 3"]);
    await client.close();
  });

  it("hides transcripts the caller may not see, and answers bad URIs as JSON-RPC errors", async () => {
    const t = await freshTenant("mcp-res-vis");
    await t.config({ tools: { sessions: { visibility: "self" } } });
    await t.append("agent:main:secret", user("hidden"));
    await t.append("main", user("mine"));
    const client = await connectTenant(t);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(["openclaw://session/main"]);
    await expect(client.readResource({ uri: "openclaw://session/agent%3Amain%3Asecret" })).rejects.toMatchObject({
      code: -32002,
    });
    for (const uri of ["https://example.com/x", "openclaw://session/main?limit=-1", "openclaw://session/%E0%A4%A"]) {
      await expect(client.readResource({ uri }), uri).rejects.toMatchObject({ code: -32602 });
    }
    await client.close();
  });
});

describe("MCP endpoint: authentication", () => {
  it("answers a missing token with 401 and a WWW-Authenticate pointing at the protected-resource metadata", async () => {
    const t = await freshTenant("mcp-401");
    const res = await rpc(`${t.prefix}/mcp`, toolCall("sessions_list", {}), { token: null });
    expect(res.status).toBe(401);
    expect(res.data).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 }, id: null });
    const challenge = res.headers.get("www-authenticate")!;
    expect(challenge).toContain(`resource_metadata="${BASE}/.well-known/oauth-protected-resource/t/${t.id}/mcp"`);
    expect(challenge).not.toContain("invalid_token");

    const metadata = await call(`/.well-known/oauth-protected-resource/t/${t.id}/mcp`, { token: null });
    expect(metadata.status).toBe(200);
    expect(metadata.data).toMatchObject({
      resource: `${BASE}/t/${t.id}/mcp`,
      authorization_servers: [`${BASE}/t/${t.id}`],
      scopes_supported: ["operator.read", "operator.write"],
    });
    const root = await call("/.well-known/oauth-protected-resource/mcp", { token: null });
    expect(root.data).toMatchObject({ resource: `${BASE}/mcp`, authorization_servers: [`${BASE}/t/default`] });
  });

  it("refuses unknown tokens, revoked tokens and tokens of another tenant with 401 invalid_token", async () => {
    const a = await freshTenant("mcp-a");
    const b = await freshTenant("mcp-b");
    const list = (path: string, token: string) => rpc(path, toolCall("sessions_list", {}), { token });
    expect((await list(`${a.prefix}/mcp`, a.token)).status).toBe(200);
    const foreign = await list(`${b.prefix}/mcp`, a.token);
    expect(foreign.status).toBe(401);
    expect(foreign.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect((await list(`${a.prefix}/mcp`, "ocs_0123456789abcdef.nope")).status).toBe(401);
    expect((await list(`${a.prefix}/mcp`, "user:grant:secret")).status).toBe(401);
    const runTokenOfA = await mintRunToken("test-run-token-secret", {
      tenantId: a.id,
      agentId: "main",
      sessionKey: "agent:main:main",
      runId: "r",
      sandboxed: false,
      spawnDepth: 0,
      sessionTools: true,
      exp: Date.now() + 60_000,
    });
    expect((await list(`${b.prefix}/mcp`, runTokenOfA)).status).toBe(401);

    const { tokenId, token } = await issueToken(a.id, ["operator.read"]);
    expect((await list(`${a.prefix}/mcp`, token)).status).toBe(200);
    const revoked = await call(`/v1/admin/tenants/${a.id}/tokens/${tokenId}`, {
      method: "DELETE",
      token: "test-admin-token",
    });
    expect(revoked.status).toBe(200);
    expect((await list(`${a.prefix}/mcp`, token)).status).toBe(401);
  });

  it("serves the default tenant at /mcp with the dev operator token", async () => {
    const client = await connect("/mcp", "test-operator-token");
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});
