import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SessionRow } from "../../../src/model/session-row";
import type { TenantObject } from "../../../src/tenant/tenant-object";
import { call, freshTenant, issueToken, type TestTenant, user } from "../support/helpers";

/** POST /tools/invoke and the read tools: sessions_list, sessions_history, session_status, agents_list. */

type Row = Record<string, any> & { key: string };
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const assistant = (text: string, extra: Record<string, unknown> = {}) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  ...extra,
});
const toolResult = (text: string) => ({
  role: "toolResult",
  toolCallId: "c1",
  toolName: "exec",
  content: [{ type: "text", text }],
});

/** Invokes a tool and returns its details (asserting the 200 envelope). */
async function details(t: TestTenant, tool: string, args?: unknown, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await t.invoke(tool, args, extra);
  expect(res.status, res.text).toBe(200);
  return res.data.result.details;
}
const listKeys = async (t: TestTenant, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  ((await details(t, "sessions_list", args, extra)).sessions as Row[]).map((s) => s.key).sort();

async function batch(t: TestTenant, key: string, messages: unknown[]) {
  const res = await t.call(`/v1/sessions/${encodeURIComponent(key)}/messages/batch`, {
    method: "POST",
    json: { messages },
  });
  expect(res.status, res.text).toBe(201);
  return res.data as { sessionId: string };
}

/** Main, two spawned children, a grandchild, a same-agent stranger and another agent's sessions. */
async function family(t: TestTenant) {
  await t.append("main", user("root"));
  await t.patch("kid-a", { spawnedBy: "main" });
  await t.patch("kid-b", { spawnedBy: "main" });
  await t.patch("grandkid", { spawnedBy: "kid-a" });
  await t.patch("stranger", {});
  await t.append("agent:ops:main", user("ops root"));
  await t.append("agent:ops:work", user("ops work"));
}

describe("POST /tools/invoke", () => {
  it("answers { ok, result: { content: [{ type: text, text }], details } } with text = JSON.stringify(details, null, 2)", async () => {
    const t = await freshTenant("envelope");
    await t.append("main", user("hi"));
    const res = await t.invoke("sessions_list", {});
    expect(res.status).toBe(200);
    expect(res.data).toEqual({
      ok: true,
      result: { content: [{ type: "text", text: expect.any(String) }], details: expect.any(Object) },
    });
    expect(res.data.result.content[0].text).toBe(JSON.stringify(res.data.result.details, null, 2));
    expect(res.data.result.details).toMatchObject({ count: 1, sessions: [{ key: "main" }] });
  });

  it("answers 404 not_found 'Tool not available: <name>' for unknown tools", async () => {
    const t = await freshTenant("unknown");
    const res = await t.invoke("no_such_tool", {});
    expect(res.status).toBe(404);
    expect(res.data).toEqual({ ok: false, error: { type: "not_found", message: "Tool not available: no_such_tool" } });
  });

  it("treats Object.prototype names (valueOf, constructor, __proto__, toString) as unknown tools", async () => {
    const t = await freshTenant("proto");
    for (const tool of ["valueOf", "constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const res = await t.invoke(tool, {});
      expect(res.status, tool).toBe(404);
      expect(res.data).toEqual({ ok: false, error: { type: "not_found", message: `Tool not available: ${tool}` } });
    }
  });

  it("never serves sessions_send or sessions_spawn over HTTP by default", async () => {
    const t = await freshTenant("denied");
    for (const tool of ["sessions_send", "sessions_spawn", "exec", "gateway"]) {
      const res = await t.invoke(tool, { sessionKey: "main", message: "hi", task: "x" });
      expect(res.status, tool).toBe(404);
      expect(res.data.error).toEqual({ type: "not_found", message: `Tool not available: ${tool}` });
    }
  });

  it("hides a tool listed in gateway.tools.deny", async () => {
    const t = await freshTenant("gwdeny");
    await t.config({ gateway: { tools: { deny: ["sessions_list"] } } });
    const res = await t.invoke("sessions_list", {});
    expect(res.status).toBe(404);
    expect(res.data.error.message).toBe("Tool not available: sessions_list");
    expect((await t.invoke("agents_list", {})).status).toBe(200);
  });

  it("answers 400 'tools.invoke requires body.tool' when tool is missing or not a string", async () => {
    const t = await freshTenant("notool");
    for (const body of [{}, { args: {} }, { tool: 5 }, { tool: null }]) {
      const res = await t.call("/tools/invoke", { method: "POST", json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.data).toEqual({
        ok: false,
        error: { type: "invalid_request", message: "tools.invoke requires body.tool" },
      });
    }
    const notJson = await t.call("/tools/invoke", { method: "POST", body: "{tool" });
    expect(notJson.status).toBe(400);
  });

  it("trims the tool name like OpenClaw", async () => {
    const t = await freshTenant("trim");
    const res = await t.invoke(" sessions_list\n", {});
    expect(res.status).toBe(200);
    expect(res.data.result.details).toEqual({ count: 0, sessions: [], hasMore: false, limitApplied: 100 });
  });

  it("answers 'tools.invoke requires body.tool' for a blank tool and ignores non-string action/sessionKey", async () => {
    const t = await freshTenant("blanktool");
    for (const tool of ["", "   "]) {
      const res = await t.call("/tools/invoke", { method: "POST", json: { tool } });
      expect(res.status, JSON.stringify(tool)).toBe(400);
      expect(res.data.error.message).toBe("tools.invoke requires body.tool");
    }
    expect(
      (await t.call("/tools/invoke", { method: "POST", json: { tool: "agents_list", action: 5, sessionKey: 7 } }))
        .status,
    ).toBe(200);
  });

  it("answers 400 tool_error for arguments the tool's schema rejects", async () => {
    const t = await freshTenant("badargs");
    const cases: Array<[string, unknown]> = [
      ["sessions_history", {}],
      ["sessions_history", { sessionKey: "" }],
      ["sessions_history", { sessionKey: "main", limit: "many" }],
      ["sessions_list", { kinds: "group" }],
      ["sessions_list", { limit: "abc" }],
      ["sessions_history", { sessionKey: "main", includeTools: "maybe" }],
      ["session_status", { sessionKey: 7 }],
    ];
    for (const [tool, args] of cases) {
      const res = await t.invoke(tool, args);
      expect(res.status, `${tool} ${JSON.stringify(args)}`).toBe(400);
      expect(res.data).toEqual({ ok: false, error: { type: "tool_error", message: expect.any(String) } });
    }
  });

  it("treats non-object args as {} and accepts numeric strings for numbers", async () => {
    const t = await freshTenant("looseargs");
    await t.append("main", user("hi"));
    for (const args of ["text", [1, 2], 42, null]) {
      const res = await t.invoke("sessions_list", args);
      expect(res.status, JSON.stringify(args)).toBe(200);
    }
    expect((await details(t, "sessions_history", { sessionKey: "main", limit: "1" })).messages).toHaveLength(1);
  });

  it("answers sessions_history of a key or sessionId that names no session with OpenClaw's error", async () => {
    const t = await freshTenant("history-missing");
    await t.append("main", user("hi"));
    const res = await t.invoke("sessions_history", { sessionKey: "agent:main:never9" }, { sessionKey: "main" });
    expect(res.status).toBe(200);
    const missing = { status: "error", error: "No session found: agent:main:never9" };
    expect(res.data).toEqual({
      ok: true,
      result: { content: [{ type: "text", text: JSON.stringify(missing, null, 2) }], details: missing },
    });
    // A bare word is tried as a key, then as a sessionId: OpenClaw's sessionId text.
    expect(await details(t, "sessions_history", { sessionKey: "never9" })).toEqual({
      status: "error",
      error: "Session not found: never9 (use the full sessionKey from sessions_list)",
    });
    // An existing session still answers its page.
    expect((await details(t, "sessions_history", { sessionKey: "main" })).messages).toHaveLength(1);
  });

  it("answers 403 for a token without operator.write and 401 without a token", async () => {
    const t = await freshTenant("toolauth");
    const reader = await issueToken(t.id, ["operator.read"]);
    const forbidden = await call(`${t.prefix}/tools/invoke`, {
      method: "POST",
      token: reader.token,
      json: { tool: "sessions_list" },
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.data).toEqual({
      ok: false,
      error: { type: "forbidden", message: "missing scope: operator.write" },
    });
    const anonymous = await call(`${t.prefix}/tools/invoke`, {
      method: "POST",
      token: null,
      json: { tool: "sessions_list" },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.data.error.type).toBe("unauthorized");
  });

  it("answers 413 for a body over 2 MB", async () => {
    const t = await freshTenant("toolbig");
    const res = await t.invoke("sessions_list", { padding: "x".repeat(2 * 1024 * 1024 + 1) });
    expect(res.status).toBe(413);
    expect(res.data.error.type).toBe("payload_too_large");
  });

  it("answers 429 with Retry-After once rateLimit.toolsPerMinute is used up, per tenant", async () => {
    const t = await freshTenant("ratelimit");
    const other = await freshTenant("ratefree");
    await t.config({ rateLimit: { toolsPerMinute: 3 } });
    await other.config({ rateLimit: { toolsPerMinute: 3 } });
    for (let i = 0; i < 3; i++) expect((await t.invoke("agents_list", {})).status).toBe(200);
    const limited = await t.invoke("agents_list", {});
    expect(limited.status).toBe(429);
    expect(limited.data).toEqual({
      ok: false,
      error: { type: "rate_limited", message: expect.stringContaining("3 per minute") },
    });
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another tenant's budget is its own.
    expect((await other.invoke("agents_list", {})).status).toBe(200);
  });
});

describe("sessions_list", () => {
  it("filters by kinds (lowercased, unknown kinds dropped, none left = no filter)", async () => {
    const t = await freshTenant("kinds");
    await t.config({ tools: { sessions: { visibility: "agent" } } });
    await t.append("main", user("m"));
    await t.append("agent:main:discord:group:g1", user("g"));
    await t.patch("plain", {});
    expect(await listKeys(t, { kinds: ["group"] })).toEqual(["agent:main:discord:group:g1"]);
    expect(await listKeys(t, { kinds: [" GROUP ", "Main"] })).toEqual(["agent:main:discord:group:g1", "main"]);
    expect(await listKeys(t, { kinds: ["bogus", "other"] })).toEqual(["agent:main:plain"]);
    expect(await listKeys(t, { kinds: ["bogus"] })).toHaveLength(3);
    expect(await listKeys(t, { kinds: [] })).toHaveLength(3);
  });

  it("floors limit, raises it to at least 1, defaults it to 100 and clamps it to 200", async () => {
    const t = await freshTenant("clamp");
    await t.config({ tools: { sessions: { visibility: "agent" } } });
    const now = Date.now();
    await runInDurableObject(env.TENANTS.getByName(t.id), (tenant: TenantObject) => {
      for (let i = 0; i < 205; i++) {
        const row: SessionRow = {
          key: `agent:main:bulk-${i}`,
          agentId: "main",
          sessionId: crypto.randomUUID(),
          updatedAt: now - i,
          messageCount: 0,
          kind: "direct",
        };
        tenant.upsertSession(row, 1);
      }
    });
    expect((await details(t, "sessions_list", { limit: 500 })).count).toBe(200);
    expect((await details(t, "sessions_list", {})).count).toBe(100);
    const three = await details(t, "sessions_list", { limit: 3.9 });
    expect(three.sessions.map((s: Row) => s.key)).toEqual([
      "agent:main:bulk-0",
      "agent:main:bulk-1",
      "agent:main:bulk-2",
    ]);
    expect((await details(t, "sessions_list", { limit: 0 })).count).toBe(1);
    expect((await details(t, "sessions_list", { limit: -7 })).count).toBe(1);
  });

  it("activeMinutes keeps sessions updated within N minutes (floored, at least 1)", async () => {
    const t = await freshTenant("toolactive");
    await t.config({ tools: { sessions: { visibility: "agent" } } });
    await t.patch("recent", {});
    const old: SessionRow = {
      key: "agent:main:old",
      agentId: "main",
      sessionId: crypto.randomUUID(),
      updatedAt: Date.now() - 3 * 60_000,
      messageCount: 0,
      kind: "direct",
    };
    await env.TENANTS.getByName(t.id).upsertSession(old, 1);
    expect(await listKeys(t, {})).toEqual(["agent:main:old", "agent:main:recent"]);
    expect(await listKeys(t, { activeMinutes: 2.9 })).toEqual(["agent:main:recent"]);
    expect(await listKeys(t, { activeMinutes: 0 })).toEqual(["agent:main:recent"]);
    expect(await listKeys(t, { activeMinutes: 4 })).toEqual(["agent:main:old", "agent:main:recent"]);
  });

  it("messageLimit adds the last N messages without tool results, clamped to 0..20", async () => {
    const t = await freshTenant("msglimit");
    await batch(t, "main", [user("u1"), assistant("a1"), toolResult("secret tool output"), user("u2")]);
    const two = await details(t, "sessions_list", { messageLimit: 2 });
    expect(two.sessions[0].messages.map((m: any) => m.role)).toEqual(["assistant", "user"]);
    expect(JSON.stringify(two.sessions[0].messages)).not.toContain("secret tool output");
    expect((await details(t, "sessions_list", {})).sessions[0].messages).toBeUndefined();
    expect((await details(t, "sessions_list", { messageLimit: 0 })).sessions[0].messages).toBeUndefined();
    expect((await details(t, "sessions_list", { messageLimit: -3 })).sessions[0].messages).toBeUndefined();

    await batch(
      t,
      "main",
      Array.from({ length: 25 }, (_, i) => user(`bulk ${i}`)),
    );
    const capped = await details(t, "sessions_list", { messageLimit: 50 });
    expect(capped.sessions[0].messages).toHaveLength(20);
    expect(capped.sessions[0].messages.at(-1).content).toBe("bulk 24");
    expect((await details(t, "sessions_list", { messageLimit: 1.8 })).sessions[0].messages).toHaveLength(1);
  });

  it("shows the main session as 'main' with kind main; groups, channels and delivery fields as OpenClaw derives them", async () => {
    const t = await freshTenant("rows");
    await t.config({ tools: { sessions: { visibility: "agent" } } });
    await t.append("main", user("root"));
    await t.append("agent:main:discord:group:g1", user("group"));
    // Created without a channel; the channel then comes from the delivery context.
    await t.patch("dm-alice", {});
    await t.append("dm-alice", {
      ...user("hi"),
      deliveryContext: { channel: "telegram", to: "alice", accountId: "acct-1" },
    });
    await t.patch("quiet", { sendPolicy: "deny", label: "Quiet one" });

    const listed = await details(t, "sessions_list", {});
    const rows = new Map<string, Row>(listed.sessions.map((s: Row) => [s.key, s]));
    expect(rows.get("main")).toMatchObject({
      key: "main",
      kind: "main",
      channel: "unknown",
      sessionId: expect.stringMatching(UUID_RE),
    });
    expect(rows.get("agent:main:discord:group:g1")).toMatchObject({ kind: "group", channel: "discord" });
    const dm = await (async () => {
      // The delivery context of a later append reaches the index in the background.
      for (let i = 0; i < 100; i++) {
        const row = (await details(t, "sessions_list", {})).sessions.find((s: Row) => s.key === "agent:main:dm-alice");
        if (row?.deliveryContext) return row;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return undefined;
    })();
    expect(dm).toMatchObject({
      kind: "other",
      channel: "telegram",
      deliveryContext: { channel: "telegram", to: "alice", accountId: "acct-1" },
      lastChannel: "telegram",
      lastTo: "alice",
      lastAccountId: "acct-1",
    });
    expect(rows.get("agent:main:quiet")).toMatchObject({
      sendPolicy: "deny",
      label: "Quiet one",
      displayName: "Quiet one",
      channel: "unknown",
    });
  });

  it("gives each row a transcriptPath that GET serves as the session's JSONL", async () => {
    const t = await freshTenant("jsonl");
    const created = await t.append("main", user("line one"));
    await t.append("main", assistant("line two"));
    const [row] = (await details(t, "sessions_list", {})).sessions;
    expect(row.transcriptPath).toBe(`/t/${t.id}/v1/transcripts/main/${created.data.sessionId}.jsonl`);
    const file = await call(row.transcriptPath, { token: t.token });
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toContain("ndjson");
    const lines = file.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "session", id: created.data.sessionId });
    expect(lines.slice(1).map((l) => l.message.role)).toEqual(["user", "assistant"]);
  });

  it("lists cron: and hook: sessions with kinds cron/hook and channel internal", async () => {
    const t = await freshTenant("internal");
    await t.config({ tools: { sessions: { visibility: "agent" } } });
    await t.append("cron:nightly", user("run"));
    await t.append("hook:0f8fad5b-d9cb-469f-a165-70867728950e", user("hooked"));
    const listed = await details(t, "sessions_list", {});
    for (const row of listed.sessions as Row[]) expect(row.channel, row.key).toBe("internal");
    expect(listed.sessions.map((s: Row) => s.kind).sort()).toEqual(["cron", "hook"]);
    expect((await details(t, "sessions_list", { kinds: ["cron"] })).count).toBe(1);
  });

  it("with session.scope global, shows the global session as 'main' and never as 'global'", async () => {
    const t = await freshTenant("globalscope");
    await t.config({ session: { scope: "global" } });
    await t.append("main", user("shared"));
    const listed = await details(t, "sessions_list", {});
    expect(listed.sessions).toMatchObject([{ key: "main", kind: "main" }]);
    const history = await details(t, "sessions_history", { sessionKey: "main" });
    expect(history.sessionKey).toBe("main");
    expect(history.messages.map((m: any) => m.content)).toEqual(["shared"]);
  });

  it("never lists global or unknown", async () => {
    const t = await freshTenant("noglobal");
    await t.config({ tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true } } });
    await t.append("global", user("g"));
    await t.append("unknown", user("u"));
    await t.append("main", user("m"));
    expect(await listKeys(t, {})).toEqual(["main"]);
    expect(await listKeys(t, { kinds: ["other", "main", "group"] })).toEqual(["main"]);
  });

  describe("visibility", () => {
    it("defaults to tree: the requester and the sessions it spawned, not grandchildren or strangers", async () => {
      const t = await freshTenant("tree");
      await family(t);
      expect(await listKeys(t, {})).toEqual(["agent:main:kid-a", "agent:main:kid-b", "main"]);
      // From a child's point of view the tree is the child and its own children.
      expect(await listKeys(t, {}, { sessionKey: "agent:main:kid-a" })).toEqual([
        "agent:main:grandkid",
        "agent:main:kid-a",
      ]);
      const mainRow = (await details(t, "sessions_list", {})).sessions.find((s: Row) => s.key === "main");
      expect(mainRow.childSessions.sort()).toEqual(["agent:main:kid-a", "agent:main:kid-b"]);
      const kid = (await details(t, "sessions_list", {})).sessions.find((s: Row) => s.key === "agent:main:kid-a");
      expect(kid.spawnedBy).toBe("main");
    });

    it("tree also covers children linked by parentSessionKey (sessions.list spawnedBy semantics)", async () => {
      const t = await freshTenant("parent");
      await t.append("main", user("root"));
      const child: SessionRow = {
        key: "agent:main:dashboard:child",
        agentId: "main",
        sessionId: crypto.randomUUID(),
        updatedAt: Date.now(),
        messageCount: 0,
        kind: "direct",
        parentSessionKey: "agent:main:main",
      };
      await env.TENANTS.getByName(t.id).upsertSession(child, 1);
      expect(await listKeys(t, {})).toEqual(["agent:main:dashboard:child", "main"]);
      // sessions_history already treats it as part of the tree; the list must agree.
      expect(
        (await details(t, "sessions_history", { sessionKey: "agent:main:dashboard:child" })).status,
      ).toBeUndefined();
    });

    it("self shows only the requester", async () => {
      const t = await freshTenant("self");
      await t.config({ tools: { sessions: { visibility: "self" } } });
      await family(t);
      expect(await listKeys(t, {})).toEqual(["main"]);
      expect(await listKeys(t, {}, { sessionKey: "agent:main:stranger" })).toEqual(["agent:main:stranger"]);
    });

    it("agent shows every session of the requester's agent and none of another agent's", async () => {
      const t = await freshTenant("agentvis");
      await t.config({ tools: { sessions: { visibility: "agent" } } });
      await family(t);
      expect(await listKeys(t, {})).toEqual([
        "agent:main:grandkid",
        "agent:main:kid-a",
        "agent:main:kid-b",
        "agent:main:stranger",
        "main",
      ]);
      // For an ops requester, "main" is ops' own main session.
      expect(await listKeys(t, {}, { sessionKey: "agent:ops:work" })).toEqual(["agent:ops:work", "main"]);
    });

    it("all reaches other agents only with tools.agentToAgent.enabled and both ids allowed", async () => {
      const t = await freshTenant("allvis");
      await family(t);
      const sameAgent = ["agent:main:grandkid", "agent:main:kid-a", "agent:main:kid-b", "agent:main:stranger", "main"];

      await t.config({ tools: { sessions: { visibility: "all" } } });
      expect(await listKeys(t, {})).toEqual(sameAgent);

      await t.config({
        tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true, allow: ["main", "ops"] } },
      });
      expect(await listKeys(t, {})).toEqual(["agent:ops:main", "agent:ops:work", ...sameAgent].sort());

      await t.config({ tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true, allow: ["main"] } } });
      expect(await listKeys(t, {})).toEqual(sameAgent);

      await t.config({ tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true, allow: ["ops"] } } });
      expect(await listKeys(t, {})).toEqual(sameAgent);

      await t.config({
        tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true, allow: ["MA*", "o*s"] } },
      });
      expect(await listKeys(t, {})).toEqual(["agent:ops:main", "agent:ops:work", ...sameAgent].sort());

      await t.config({ tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true } } });
      expect(await listKeys(t, {})).toContain("agent:ops:work");
    });

    it("shows another agent's main session under its full key, never as 'main'", async () => {
      const t = await freshTenant("othermain");
      await t.config({ tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true } } });
      await t.append("main", user("mine"));
      await t.append("agent:ops:main", user("theirs"));
      const listed = await details(t, "sessions_list", {});
      expect(listed.sessions.map((s: Row) => s.key).sort()).toEqual(["agent:ops:main", "main"]);
      // Whatever key the list shows must lead sessions_history back to that same session.
      for (const row of listed.sessions as Row[]) {
        const history = await details(t, "sessions_history", { sessionKey: row.key });
        expect(
          history.messages.map((m: any) => m.content),
          row.key,
        ).toEqual([row.key === "main" ? "mine" : "theirs"]);
      }
    });

    it("a sandboxed requester is clamped to its spawned sessions even with visibility all or self", async () => {
      const t = await freshTenant("sandbox");
      await family(t);
      for (const visibility of ["all", "self", "agent"]) {
        await t.config({
          tools: { sessions: { visibility }, agentToAgent: { enabled: true } },
          agents: { defaults: { sandbox: { mode: "all" } } },
        });
        const keys = await listKeys(t, {});
        expect(keys, visibility).toContain("agent:main:kid-a");
        expect(keys, visibility).toContain("agent:main:kid-b");
        expect(
          keys.every((k) => ["main", "agent:main:kid-a", "agent:main:kid-b"].includes(k)),
          `${visibility}: ${keys}`,
        ).toBe(true);
      }
      // sandbox.sessionToolsVisibility "all" lifts the clamp.
      await t.config({
        tools: { sessions: { visibility: "agent" } },
        agents: { defaults: { sandbox: { mode: "all", sessionToolsVisibility: "all" } } },
      });
      expect(await listKeys(t, {})).toContain("agent:main:stranger");
    });
  });
});

describe("sessions_history", () => {
  it("accepts a key, 'main', 'current' and a sessionId from sessions_list", async () => {
    const t = await freshTenant("refs");
    await t.append("main", user("in main"));
    await t.patch("kid", { spawnedBy: "main" });
    await t.append("kid", user("in kid"));

    const byKey = await details(t, "sessions_history", { sessionKey: "agent:main:kid" });
    expect(byKey).toMatchObject({
      sessionKey: "agent:main:kid",
      truncated: false,
      droppedMessages: 0,
      contentRedacted: false,
    });
    expect(byKey.messages.map((m: any) => m.content)).toEqual(["in kid"]);

    const main = await details(t, "sessions_history", { sessionKey: "main" });
    expect(main.sessionKey).toBe("main");
    expect(main.messages.map((m: any) => m.content)).toEqual(["in main"]);

    const current = await details(t, "sessions_history", { sessionKey: "current" }, { sessionKey: "agent:main:kid" });
    expect(current.sessionKey).toBe("agent:main:kid");
    expect(current.messages.map((m: any) => m.content)).toEqual(["in kid"]);

    const kidRow = (await details(t, "sessions_list", {})).sessions.find((s: Row) => s.key === "agent:main:kid");
    const bySessionId = await details(t, "sessions_history", { sessionKey: kidRow.sessionId });
    expect(bySessionId.sessionKey).toBe("agent:main:kid");
    expect(bySessionId.messages.map((m: any) => m.content)).toEqual(["in kid"]);
    // A bare key written without the agent prefix resolves too.
    expect((await details(t, "sessions_history", { sessionKey: "kid" })).sessionKey).toBe("agent:main:kid");
  });

  it("a sessionId from before a reset reads that transcript, not the key's current one", async () => {
    const t = await freshTenant("oldid");
    const before = await t.append("main", user("old world"));
    await t.call("/v1/sessions/main/reset", { method: "POST" });
    await t.append("main", user("new world"));
    const old = await details(t, "sessions_history", { sessionKey: before.data.sessionId });
    expect(old.sessionKey).toBe("main");
    expect(old.messages.map((m: any) => m.content)).toEqual(["old world"]);
    const upper = await details(t, "sessions_history", { sessionKey: before.data.sessionId.toUpperCase() });
    expect(upper.messages.map((m: any) => m.content)).toEqual(["old world"]);
    expect((await details(t, "sessions_history", { sessionKey: "main" })).messages.map((m: any) => m.content)).toEqual([
      "new world",
    ]);
  });

  it("answers status error 'Session not found: <id> (use the full sessionKey from sessions_list)' for an unknown sessionId", async () => {
    const t = await freshTenant("missing");
    await t.append("main", user("x"));
    const id = "0f8fad5b-d9cb-469f-a165-70867728950e";
    expect(await details(t, "sessions_history", { sessionKey: id })).toEqual({
      status: "error",
      error: `Session not found: ${id} (use the full sessionKey from sessions_list)`,
    });
    expect(await details(t, "sessions_history", { sessionKey: "no-such-thing" })).toEqual({
      status: "error",
      error: "Session not found: no-such-thing (use the full sessionKey from sessions_list)",
    });
  });

  it("answers status forbidden with OpenClaw's texts for cross-agent and out-of-tree targets", async () => {
    const t = await freshTenant("forbid");
    await family(t);
    const history = (sessionKey: string) => details(t, "sessions_history", { sessionKey });

    expect(await history("agent:ops:work")).toEqual({
      status: "forbidden",
      error: "Session history visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access.",
      sessionKey: "agent:ops:work",
    });
    expect(await history("agent:main:stranger")).toEqual({
      status: "forbidden",
      error: "Session history visibility is restricted to the current session tree (tools.sessions.visibility=tree).",
      sessionKey: "agent:main:stranger",
    });

    await t.config({ tools: { sessions: { visibility: "self" } } });
    expect(await history("agent:main:kid-a")).toEqual({
      status: "forbidden",
      error: "Session history visibility is restricted to the current session (tools.sessions.visibility=self).",
      sessionKey: "agent:main:kid-a",
    });

    await t.config({ tools: { sessions: { visibility: "all" } } });
    expect(await history("agent:ops:work")).toEqual({
      status: "forbidden",
      error: "Agent-to-agent history is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access.",
      sessionKey: "agent:ops:work",
    });

    await t.config({ tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true, allow: ["main"] } } });
    expect(await history("agent:ops:work")).toEqual({
      status: "forbidden",
      error: "Agent-to-agent history denied by tools.agentToAgent.allow.",
      sessionKey: "agent:ops:work",
    });

    await t.config({
      tools: { sessions: { visibility: "all" }, agentToAgent: { enabled: true, allow: ["main", "ops"] } },
    });
    const allowed = await history("agent:ops:work");
    expect(allowed.status).toBeUndefined();
    expect(allowed.messages.map((m: any) => m.content)).toEqual(["ops work"]);
    // A sessionId of another agent's session goes through the same checks.
    await t.config({ tools: { sessions: { visibility: "all" } } });
    const opsId = (await env.TENANTS.getByName(t.id).session("agent:ops:work"))!.sessionId;
    expect((await history(opsId)).status).toBe("forbidden");
  });

  it("a sandboxed requester sees only its spawned sessions, with OpenClaw's sandbox text", async () => {
    const t = await freshTenant("sbhistory");
    await family(t);
    await t.config({ tools: { sessions: { visibility: "all" } }, agents: { defaults: { sandbox: { mode: "all" } } } });
    expect((await details(t, "sessions_history", { sessionKey: "agent:main:kid-a" })).status).toBeUndefined();
    const stranger = await details(t, "sessions_history", { sessionKey: "agent:main:stranger" });
    expect(stranger).toMatchObject({
      status: "forbidden",
      error: expect.stringContaining("Session not visible from this sandboxed agent session"),
    });
    const id = "0f8fad5b-d9cb-469f-a165-70867728950e";
    expect(await details(t, "sessions_history", { sessionKey: id })).toEqual({
      status: "forbidden",
      error: `Session not visible from this sandboxed agent session: ${id}`,
    });
  });

  it("filters tool results unless includeTools, and limit keeps the newest messages", async () => {
    const t = await freshTenant("histtools");
    await batch(t, "main", [user("u1"), toolResult("tool says"), assistant("a1"), user("u2")]);
    const plain = await details(t, "sessions_history", { sessionKey: "main" });
    expect(plain.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
    const withTools = await details(t, "sessions_history", { sessionKey: "main", includeTools: true });
    expect(withTools.messages.map((m: any) => m.role)).toEqual(["user", "toolResult", "assistant", "user"]);
    const limited = await details(t, "sessions_history", { sessionKey: "main", limit: 2 });
    expect(limited.messages.map((m: any) => m.role)).toEqual(["assistant", "user"]);
    const limitedTools = await details(t, "sessions_history", { sessionKey: "main", limit: 2.7, includeTools: "true" });
    expect(limitedTools.messages.map((m: any) => m.role)).toEqual(["assistant", "user"]);
    expect(
      (await details(t, "sessions_history", { sessionKey: "main", limit: 3, includeTools: true })).messages.map(
        (m: any) => m.role,
      ),
    ).toEqual(["toolResult", "assistant", "user"]);
  });

  it("truncates long text to 4000 characters with the suffix and redacts secrets", async () => {
    const t = await freshTenant("sanitize");
    const secret = `sk-${"A1b2C3d4E5".repeat(3)}`;
    await batch(t, "main", [
      user("y".repeat(5000)),
      assistant(`the key is ${secret} keep it safe`, { usage: { input: 1, output: 2 } }),
    ]);
    const res = await details(t, "sessions_history", { sessionKey: "main" });
    expect(res.messages[0].content).toBe(`${"y".repeat(4000)}\n…(truncated)…`);
    expect(res.messages[1].content[0].text).toBe("the key is sk-A1b…d4E5 keep it safe");
    expect(JSON.stringify(res)).not.toContain(secret);
    expect(res.messages[1].usage).toBeUndefined();
    expect(res).toMatchObject({ contentTruncated: true, contentRedacted: true, truncated: true, droppedMessages: 0 });
  });

  it("caps the result at 80 KiB keeping the newest messages and reports what was dropped", async () => {
    const t = await freshTenant("cap");
    const messages = Array.from({ length: 30 }, (_, i) => user(`m${String(i).padStart(2, "0")} ${"z".repeat(3900)}`));
    await batch(t, "main", messages);
    const res = await details(t, "sessions_history", { sessionKey: "main" });
    expect(res.bytes).toBeLessThanOrEqual(80 * 1024);
    expect(res.truncated).toBe(true);
    expect(res.contentTruncated).toBe(false);
    expect(res.droppedMessages).toBe(30 - res.messages.length);
    expect(res.droppedMessages).toBeGreaterThan(0);
    expect(res.messages.at(-1).content.startsWith("m29 ")).toBe(true);
    expect(res.messages[0].content.startsWith(`m${String(res.droppedMessages).padStart(2, "0")} `)).toBe(true);
    expect(new TextEncoder().encode(JSON.stringify(res.messages)).byteLength).toBe(res.bytes);
  });
});

describe("session_status", () => {
  it("describes the requester's session by default, with the card as the text content", async () => {
    const t = await freshTenant("status");
    await t.append("main", user("hello"));
    const res = await t.invoke("session_status", {});
    expect(res.status).toBe(200);
    const d = res.data.result.details;
    expect(d).toEqual({ ok: true, sessionKey: "main", changedModel: false, statusText: expect.any(String) });
    expect(res.data.result.content).toEqual([{ type: "text", text: d.statusText }]);
    expect(d.statusText).toContain("Session: agent:main:main");
    expect(d.statusText).toContain("Messages: 1");
  });

  it("sets a model override and clears it with 'default'", async () => {
    const t = await freshTenant("statusmodel");
    // A model main's runner offers: another runner's at the same endpoint.
    const runner = { type: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "gpt-base" };
    await t.config({
      agents: {
        list: [
          { id: "main", default: true, runner },
          { id: "alt", runner: { ...runner, model: "gpt-special" } },
        ],
      },
    });
    await t.append("main", user("hello"));
    const set = await details(t, "session_status", { model: "gpt-special" });
    expect(set).toMatchObject({ ok: true, changedModel: true });
    expect(set.statusText).toContain("Model: gpt-special");
    expect((await env.TENANTS.getByName(t.id).session("agent:main:main"))?.model).toBe("gpt-special");
    const cleared = await details(t, "session_status", { model: "default" });
    expect(cleared.changedModel).toBe(true);
    expect((await env.TENANTS.getByName(t.id).session("agent:main:main"))?.model).toBeUndefined();
  });

  it("applies the same visibility rules, as 400 tool errors", async () => {
    const t = await freshTenant("statusvis");
    await family(t);
    const stranger = await t.invoke("session_status", { sessionKey: "agent:main:stranger" });
    expect(stranger.status).toBe(400);
    expect(stranger.data.error).toEqual({
      type: "tool_error",
      message: "Session status visibility is restricted to the current session tree (tools.sessions.visibility=tree).",
    });
    expect((await details(t, "session_status", { sessionKey: "agent:main:kid-a" })).sessionKey).toBe(
      "agent:main:kid-a",
    );
    const cross = await t.invoke("session_status", { sessionKey: "agent:ops:work" });
    expect(cross.data.error.message).toBe(
      "Session status visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access.",
    );
    await t.config({ tools: { sessions: { visibility: "agent" } } });
    const ghost = await t.invoke("session_status", { sessionKey: "agent:main:ghost" });
    expect(ghost.status).toBe(400);
    expect(ghost.data.error.message).toContain("agent:main:ghost");
    // A sessionId resolves like in sessions_history.
    const kidId = (await env.TENANTS.getByName(t.id).session("agent:main:kid-b"))!.sessionId;
    expect((await details(t, "session_status", { sessionKey: kidId })).sessionKey).toBe("agent:main:kid-b");
  });
});

describe("agents_list", () => {
  it("lists only the requester when no spawn allowlist is configured", async () => {
    const t = await freshTenant("agents0");
    expect(await details(t, "agents_list", {})).toEqual({
      requester: "main",
      allowAny: false,
      agents: [{ id: "main", configured: false }],
    });
  });

  it("puts the requester first, then the allowed ids sorted, with names and configured flags", async () => {
    const t = await freshTenant("agents1");
    await t.config({
      agents: {
        list: [
          { id: "main", name: "Main", subagents: { allowAgents: ["zeta", "Alpha", "ghost", "main"] } },
          { id: "zeta", name: "Zeta" },
          { id: "alpha" },
        ],
      },
    });
    expect(await details(t, "agents_list", {})).toEqual({
      requester: "main",
      allowAny: false,
      agents: [
        { id: "main", name: "Main", configured: true },
        { id: "alpha", configured: true },
        { id: "ghost", configured: false },
        { id: "zeta", name: "Zeta", configured: true },
      ],
    });
  });

  it("with '*' allows any configured agent, and the requester comes from sessionKey", async () => {
    const t = await freshTenant("agents2");
    await t.config({
      agents: { list: [{ id: "main" }, { id: "ops", subagents: { allowAgents: ["*"] } }, { id: "beta" }] },
    });
    expect(await details(t, "agents_list", {}, { sessionKey: "agent:ops:main" })).toEqual({
      requester: "ops",
      allowAny: true,
      agents: [
        { id: "ops", configured: true },
        { id: "beta", configured: true },
        { id: "main", configured: true },
      ],
    });
    // The defaults' allowlist applies to agents without their own.
    await t.config({
      agents: { defaults: { subagents: { allowAgents: ["ops"] } }, list: [{ id: "main" }, { id: "ops" }] },
    });
    expect((await details(t, "agents_list", {})).agents.map((a: { id: string }) => a.id)).toEqual(["main", "ops"]);
  });
});
