import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { call, createTenant, issueToken, until } from "../support/helpers";

const peer = `http://127.0.0.1:${inject("peerPort")}`;

type Setup = {
  id: string;
  token: string;
  spawn(args: Record<string, unknown>, sessionKey?: string, token?: string): Promise<any>;
};

async function tenant(id: string, config: Record<string, unknown> = {}): Promise<Setup> {
  await createTenant(id);
  const { token } = await issueToken(id);
  const full = { gateway: { tools: { allow: ["sessions_spawn", "sessions_send"] } }, ...config };
  const put = await call(`/t/${id}/v1/config`, { method: "PUT", token, json: full });
  expect(put.status, put.text).toBe(200);
  return {
    id,
    token,
    spawn: async (args, sessionKey = "main", asToken = token) => {
      const res = await call(`/t/${id}/tools/invoke`, {
        method: "POST",
        token: asToken,
        json: { tool: "sessions_spawn", args, ...(sessionKey ? { sessionKey } : {}) },
      });
      return res.status === 200 ? res.data.result.details : res;
    },
  };
}

const history = async (t: Setup, key: string) => {
  const res = await call(`/t/${t.id}/sessions/${encodeURIComponent(key)}/history?includeTools=1`, { token: t.token });
  return res.status === 200 ? (res.data.messages as any[]) : null;
};
const text = (m: any) => (typeof m.content === "string" ? m.content : m.content.map((b: any) => b.text ?? "").join(""));
const announces = async (t: Setup, key = "main") =>
  (await history(t, key))?.filter(
    (m) =>
      m.provenance?.sourceTool === "sessions_spawn" &&
      m.role === "user" &&
      text(m).includes("[Internal task completion event]"),
  ) ?? [];

async function seedMain(t: Setup, extra: Record<string, unknown> = {}) {
  await call(`/t/${t.id}/v1/sessions/main/messages`, {
    method: "POST",
    token: t.token,
    json: { role: "user", content: "hi", ...extra },
  });
}

describe("sessions_spawn: parameters", () => {
  it("is denied over HTTP unless gateway.tools.allow lists it", async () => {
    const res = await call("/tools/invoke", { method: "POST", json: { tool: "sessions_spawn", args: { task: "x" } } });
    expect(res.data.error.message).toBe("Tool not available: sessions_spawn");
  });

  it("rejects channel-routing params with OpenClaw's text", async () => {
    const t = await tenant("spawn-routing");
    for (const param of ["channel", "to", "threadId", "thread_id", "replyTo", "target"]) {
      const res = await t.spawn({ task: "x", [param]: "y" });
      expect(res.status).toBe(400);
      expect(res.data.error).toEqual({
        type: "tool_error",
        message: `sessions_spawn does not support "${param}". Use "message" or "sessions_send" for channel delivery.`,
      });
    }
  });

  it("validates mode, agentId and model", async () => {
    const t = await tenant("spawn-params");
    expect((await t.spawn({ task: "x", mode: "session" })).data.error.message).toContain(
      'mode="session" requires thread=true',
    );
    expect((await t.spawn({ task: "x", agentId: "Bad Id!" })).data.error.message).toBe(
      'Invalid agentId "Bad Id!". Agent IDs must match [a-z0-9][a-z0-9_-]{0,63}. Use agents_list to discover valid targets.',
    );
    expect((await t.spawn({ task: "x", model: "not a model" })).data.error.message).toBe(
      'Invalid model "not a model".',
    );
    expect((await t.spawn({})).status).toBe(400);
  });

  it("accepts at once with a subagent child key and records the spawn tree", async () => {
    const t = await tenant("spawn-accept", { tools: { sessions: { visibility: "tree" } } });
    await seedMain(t);
    const result = await t.spawn({ task: "summarize", label: "summary" });
    expect(result).toEqual({
      status: "accepted",
      childSessionKey: expect.stringMatching(/^agent:main:subagent:[0-9a-f-]{36}$/),
      runId: expect.any(String),
      mode: "run",
      note: expect.any(String),
    });
    const list = await call(`/t/${t.id}/tools/invoke`, {
      method: "POST",
      token: t.token,
      json: { tool: "sessions_list" },
    });
    const rows = list.data.result.details.sessions;
    expect(rows.map((r: any) => r.key)).toContain(result.childSessionKey);
    const child = rows.find((r: any) => r.key === result.childSessionKey);
    expect(child).toMatchObject({ spawnedBy: "main", label: "summary" });
    const main = rows.find((r: any) => r.key === "main");
    expect(main.childSessions).toContain(result.childSessionKey);
    const entry = await env.SESSIONS.getByName(`${t.id}/${result.childSessionKey}`).entry();
    expect(entry).toMatchObject({
      spawnedBy: "agent:main:main",
      spawnDepth: 1,
      subagentRole: "leaf",
      subagentControlScope: "none",
    });
  });
});

describe("sessions_spawn: depth, fan-out, allowlist, sandbox", () => {
  it("refuses spawning from a sub-agent at the default depth (also through the child's run token)", async () => {
    const t = await tenant("spawn-depth", {
      agents: { list: [{ id: "main", default: true, runner: { type: "webhook", url: `${peer}/webhook/async` } }] },
    });
    const child = await t.spawn({ task: "nest" });
    const viaOperator = await t.spawn({ task: "deeper" }, child.childSessionKey);
    expect(viaOperator).toEqual({
      status: "forbidden",
      error: "sessions_spawn is not allowed at this depth (current depth: 1, max: 1)",
    });
    let request: any;
    await until(async () => {
      const recorded = (await (await fetch(`${peer}/control/recorded?path=/webhook/async`)).json()) as any[];
      request = recorded.find((r) => r.body.runId === child.runId);
      return request;
    }, Boolean);
    const viaRunToken = await t.spawn({ task: "deeper" }, undefined, request.body.runToken);
    expect(viaRunToken).toEqual({
      status: "forbidden",
      error: "sessions_spawn is not allowed at this depth (current depth: 1, max: 1)",
    });
    // Sub-agents get no session tools by default.
    const list = await call(`/t/${t.id}/tools/invoke`, {
      method: "POST",
      token: request.body.runToken,
      json: { tool: "sessions_list" },
    });
    expect(list.status).toBe(404);
  });

  it("lets an orchestrator spawn when maxSpawnDepth is 2, but not its leaf", async () => {
    const t = await tenant("spawn-depth2", { agents: { defaults: { subagents: { maxSpawnDepth: 2 } } } });
    const child = await t.spawn({ task: "orchestrate" });
    const entry = await env.SESSIONS.getByName(`${t.id}/${child.childSessionKey}`).entry();
    expect(entry?.subagentRole).toBe("orchestrator");
    const grandchild = await t.spawn({ task: "leaf work" }, child.childSessionKey);
    expect(grandchild.status).toBe("accepted");
    expect(await t.spawn({ task: "too deep" }, grandchild.childSessionKey)).toEqual({
      status: "forbidden",
      error: "sessions_spawn is not allowed at this depth (current depth: 2, max: 2)",
    });
  });

  it("caps active children per session", async () => {
    const t = await tenant("spawn-fanout", {
      agents: {
        defaults: { subagents: { maxChildrenPerAgent: 2 } },
        list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: `${peer}/v1`, model: "hang" } }],
      },
    });
    expect((await t.spawn({ task: "1" })).status).toBe("accepted");
    expect((await t.spawn({ task: "2" })).status).toBe("accepted");
    expect(await t.spawn({ task: "3" })).toEqual({
      status: "forbidden",
      error: "sessions_spawn has reached max active children for this session (2/2)",
    });
  });

  it("allows other agents only through subagents.allowAgents", async () => {
    const t = await tenant("spawn-allow", { agents: { list: [{ id: "main", default: true }, { id: "ops" }] } });
    expect(await t.spawn({ task: "x", agentId: "ops" })).toEqual({
      status: "forbidden",
      error: "agentId is not allowed for sessions_spawn (allowed: none)",
    });
    await call(`/t/${t.id}/v1/config`, {
      method: "PUT",
      token: t.token,
      json: {
        gateway: { tools: { allow: ["sessions_spawn"] } },
        agents: { list: [{ id: "main", default: true, subagents: { allowAgents: ["ops"] } }, { id: "ops" }] },
      },
    });
    const ok = await t.spawn({ task: "x", agentId: "ops" });
    expect(ok.childSessionKey).toMatch(/^agent:ops:subagent:/);
    const agents = await call(`/t/${t.id}/tools/invoke`, {
      method: "POST",
      token: t.token,
      json: { tool: "agents_list" },
    });
    expect(agents.data.result.details).toEqual({
      requester: "main",
      allowAny: false,
      agents: [
        { id: "main", configured: true },
        { id: "ops", configured: true },
      ],
    });
  });

  it("keeps sandboxed requesters from spawning unsandboxed children, and honours sandbox=require", async () => {
    const t = await tenant("spawn-sandbox", {
      agents: {
        list: [
          { id: "main", default: true, sandbox: { mode: "all" }, subagents: { allowAgents: ["*"] } },
          { id: "free" },
          { id: "boxed", sandbox: { mode: "all" } },
        ],
      },
    });
    expect((await t.spawn({ task: "x", agentId: "free" })).error).toContain(
      "Sandboxed sessions cannot spawn unsandboxed subagents.",
    );
    expect((await t.spawn({ task: "x", agentId: "boxed" })).status).toBe("accepted");
    const open = await tenant("spawn-require", { agents: { list: [{ id: "main", default: true }] } });
    expect((await open.spawn({ task: "x", sandbox: "require" })).error).toContain(
      'sessions_spawn sandbox="require" needs a sandboxed target runtime.',
    );
  });
});

describe("sessions_spawn: attachments", () => {
  it("are refused unless enabled", async () => {
    const t = await tenant("attach-off");
    expect((await t.spawn({ task: "x", attachments: [{ name: "a.txt", content: "hi" }] })).status).toBe("forbidden");
  });

  it("are validated with OpenClaw's error codes", async () => {
    const t = await tenant("attach-codes", {
      tools: { sessions_spawn: { attachments: { enabled: true, maxFiles: 2, maxFileBytes: 10, maxTotalBytes: 15 } } },
    });
    const cases: Array<[unknown[], string]> = [
      [
        [
          { name: "a", content: "1" },
          { name: "b", content: "2" },
          { name: "c", content: "3" },
        ],
        "attachments_file_count_exceeded (maxFiles=2)",
      ],
      [[{ name: "../x", content: "1" }], "attachments_invalid_name (../x)"],
      [[{ name: ".manifest.json", content: "1" }], "attachments_invalid_name (.manifest.json)"],
      [
        [
          { name: "a", content: "1" },
          { name: "a", content: "2" },
        ],
        "attachments_duplicate_name (a)",
      ],
      [[{ name: "a", content: "not base64!", encoding: "base64" }], "attachments_invalid_base64_or_too_large"],
      [[{ name: "a", content: "12345678901" }], "attachments_file_bytes_exceeded (name=a bytes=11 maxFileBytes=10)"],
      [
        [
          { name: "a", content: "1234567890" },
          { name: "b", content: "123456" },
        ],
        "attachments_total_bytes_exceeded (totalBytes=16 maxTotalBytes=15)",
      ],
    ];
    for (const [attachments, error] of cases)
      expect(await t.spawn({ task: "x", attachments })).toEqual({ status: "error", error });
  });

  it("are stored under the child's prefix with a sha256 receipt", async () => {
    const t = await tenant("attach-ok", {
      tools: { sessions_spawn: { attachments: { enabled: true, retainOnSessionKeep: true } } },
    });
    const result = await t.spawn({
      task: "read it",
      attachments: [
        { name: "notes.txt", content: "hello" },
        { name: "b.bin", content: "AAEC", encoding: "base64" },
      ],
    });
    expect(result.attachments).toEqual({
      count: 2,
      totalBytes: 8,
      relDir: expect.stringMatching(/^\.openclaw\/attachments\/[0-9a-f-]{36}$/),
      files: [
        { name: "notes.txt", bytes: 5, sha256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" },
        { name: "b.bin", bytes: 3, sha256: "ae4b3280e56e2faf83f414a6e3dabe9d5fbe18976544c05fed121accb85b53fc" },
      ],
    });
    const stored = await env.ATTACHMENTS.get(
      `${t.id}/${result.childSessionKey}/${result.attachments.relDir}/notes.txt`,
    );
    expect(await stored?.text()).toBe("hello");
    const manifest = await env.ATTACHMENTS.get(
      `${t.id}/${result.childSessionKey}/${result.attachments.relDir}/.manifest.json`,
    );
    expect(JSON.parse((await manifest?.text()) ?? "{}")).toMatchObject({ count: 2, totalBytes: 8 });
  });

  it("of a spawn refused after they were stored are deleted whole, .manifest.json included", async () => {
    const t = await tenant("attach-refused", {
      limits: { runStartsPerMinute: 1 },
      tools: { sessions_spawn: { attachments: { enabled: true, retainOnSessionKeep: true } } },
    });
    const first = await t.spawn({ task: "read", attachments: [{ name: "a.txt", content: "x" }] });
    expect(first.status).toBe("accepted");
    const refused = await t.spawn({ task: "read", attachments: [{ name: "b.txt", content: "y" }] });
    expect(refused.status, JSON.stringify(refused)).not.toBe("accepted");
    // Only the first child's files are under the tenant's prefix: nothing of the refused one.
    const listed = await env.ATTACHMENTS.list({ prefix: `${t.id}/` });
    const strays = listed.objects
      .map((o) => o.key)
      .filter((key) => !key.startsWith(`${t.id}/${first.childSessionKey}/`));
    expect(strays).toEqual([]);
  });

  it("are removed after the announce unless retainOnSessionKeep, and with the child on cleanup delete", async () => {
    const t = await tenant("attach-gone", { tools: { sessions_spawn: { attachments: { enabled: true } } } });
    await seedMain(t);
    const kept = await t.spawn({ task: "read", attachments: [{ name: "a.txt", content: "x" }] });
    const deleted = await t.spawn({ task: "read", cleanup: "delete", attachments: [{ name: "b.txt", content: "y" }] });
    await until(
      () => announces(t),
      (a) => a.length === 2,
    );
    for (const child of [kept, deleted]) {
      await until(
        async () => (await env.ATTACHMENTS.list({ prefix: `${t.id}/${child.childSessionKey}/` })).objects.length,
        (n) => n === 0,
      );
    }

    // With retainOnSessionKeep a kept child keeps its files after the announce; a deleted one does not.
    const r = await tenant("attach-keep", {
      tools: { sessions_spawn: { attachments: { enabled: true, retainOnSessionKeep: true } } },
    });
    await seedMain(r);
    const retained = await r.spawn({ task: "read", attachments: [{ name: "c.txt", content: "z" }] });
    const dropped = await r.spawn({ task: "read", cleanup: "delete", attachments: [{ name: "d.txt", content: "w" }] });
    await until(
      () => announces(r),
      (a) => a.length === 2,
    );
    const filesOf = async (child: { childSessionKey: string }) =>
      (await env.ATTACHMENTS.list({ prefix: `${r.id}/${child.childSessionKey}/` })).objects.length;
    await until(
      () => filesOf(dropped),
      (n) => n === 0,
    );
    expect(await filesOf(retained)).toBeGreaterThan(0);
  });

  it("reach a webhook runner with their content", async () => {
    const t = await tenant("attach-hook", {
      tools: { sessions_spawn: { attachments: { enabled: true } } },
      agents: { list: [{ id: "main", default: true, runner: { type: "webhook", url: `${peer}/webhook/sync` } }] },
    });
    const result = await t.spawn({ task: "use the file", attachments: [{ name: "f.txt", content: "payload" }] });
    const request: any = await until(async () => {
      const recorded = (await (await fetch(`${peer}/control/recorded?path=/webhook/sync`)).json()) as any[];
      return recorded.find((r) => r.body.runId === result.runId);
    }, Boolean);
    expect(request.body.attachments.files[0]).toMatchObject({
      name: "f.txt",
      bytes: 7,
      contentBase64: btoa("payload"),
    });
    expect(request.body.input.extraSystemPrompt).toContain("Attachments: 1 file(s), 7 bytes.");
  });
});

describe("sessions_spawn: announce and cleanup", () => {
  it("announces the child's outcome to the requester with status from the runtime and a stats line", async () => {
    const t = await tenant("announce-ok");
    await seedMain(t, { deliveryContext: { channel: "telegram", to: "chat:1" } });
    const child = await t.spawn({ task: "say hi", label: "greeter" });
    const [announce] = await until(
      () => announces(t),
      (a) => a.length === 1,
    );
    const body = text(announce);
    expect(announce.provenance).toEqual({
      kind: "internal_system",
      sourceSessionKey: child.childSessionKey,
      sourceTool: "sessions_spawn",
    });
    expect(body).toContain("Status: ok");
    expect(body).toContain("status: completed successfully");
    expect(body).toContain("task: greeter");
    expect(body).toMatch(/<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>\nECHO: \[Subagent Context\]/);
    expect(body).toMatch(
      /Stats: runtime \d+s • tokens \d+ \(in \d+ \/ out \d+\) • sessionKey agent:main:subagent:.* • sessionId [0-9a-f-]{36} • transcript \/t\/announce-ok\/v1\/transcripts\/main\/.*\.jsonl/,
    );
    const deliveries = await until(
      async () => (await call(`/t/${t.id}/v1/sessions/main/deliveries`, { token: t.token })).data.deliveries,
      (d: any[]) => d[0]?.status === "delivered",
    );
    expect(deliveries[0]).toMatchObject({ kind: "subagent-announce", target: { channel: "telegram", to: "chat:1" } });
    expect(deliveries[0].message).toContain('A background task "greeter" just completed successfully.');
  });

  it("stays silent for ANNOUNCE_SKIP and reports timeouts as such", async () => {
    await fetch(`${peer}/control/script`, {
      method: "POST",
      body: JSON.stringify({ scenario: "skip-child", primary: "ANNOUNCE_SKIP" }),
    });
    const t = await tenant("announce-skip", {
      agents: {
        list: [
          {
            id: "main",
            default: true,
            runner: { type: "openai", baseUrl: `${peer}/v1`, model: "scripted:skip-child" },
          },
        ],
      },
    });
    await seedMain(t);
    const child = await t.spawn({ task: "nothing to say" });
    await until(
      () => env.SESSIONS.getByName(`${t.id}/${child.childSessionKey}`).runSnapshot(child.runId),
      (s) => s?.status === "ok",
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(await announces(t)).toHaveLength(0);

    const slow = await tenant("announce-timeout", {
      agents: {
        list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: `${peer}/v1`, model: "hang" } }],
      },
    });
    await seedMain(slow);
    await slow.spawn({ task: "never ends", runTimeoutSeconds: 1 });
    const [announce] = await until(
      () => announces(slow),
      (a) => a.length === 1,
      10_000,
    );
    expect(text(announce)).toContain("Status: timeout");
    expect(text(announce)).toContain("status: timed out");
  });

  it("uses the latest tool result when the final reply is empty", async () => {
    const t = await tenant("announce-tool", {
      agents: { list: [{ id: "main", default: true, runner: { type: "webhook", url: `${peer}/webhook/async` } }] },
    });
    await seedMain(t);
    const child = await t.spawn({ task: "use a tool" });
    const request: any = await until(async () => {
      const recorded = (await (await fetch(`${peer}/control/recorded?path=/webhook/async`)).json()) as any[];
      return recorded.find((r) => r.body.runId === child.runId);
    }, Boolean);
    const done = await call(`/t/${t.id}/v1/runs/${child.runId}/complete`, {
      method: "POST",
      token: request.body.runToken,
      json: {
        reply: "",
        toolMessages: [
          {
            role: "toolResult",
            toolCallId: "t1",
            toolName: "search",
            content: [{ type: "text", text: "tool says hi" }],
          },
        ],
      },
    });
    expect(done.data.completed).toBe(true);
    const [announce] = await until(
      () => announces(t),
      (a) => a.length === 1,
    );
    expect(text(announce)).toContain(
      "<<<BEGIN_UNTRUSTED_CHILD_RESULT>>>\ntool says hi\n<<<END_UNTRUSTED_CHILD_RESULT>>>",
    );
  });

  it("reaches a busy requester (queued behind its run)", async () => {
    await fetch(`${peer}/control/script`, {
      method: "POST",
      body: JSON.stringify({ scenario: "busy", primary: "done", delayMs: 1500 }),
    });
    const t = await tenant("announce-busy", {
      agents: {
        list: [
          {
            id: "main",
            default: true,
            runner: { type: "openai", baseUrl: `${peer}/v1`, model: "scripted:busy" },
            subagents: { allowAgents: ["fast"] },
          },
          { id: "fast" },
        ],
      },
    });
    await call(`/t/${t.id}/v1/sessions/main/messages`, {
      method: "POST",
      token: t.token,
      json: { role: "user", content: "keep busy", run: true },
    });
    await t.spawn({ task: "quick", agentId: "fast" });
    const [announce] = await until(
      () => announces(t),
      (a) => a.length === 1,
    );
    expect(text(announce)).toContain("Status: ok");
  });

  it("falls back to the requester's requester when the requester is gone or has no route", async () => {
    await fetch(`${peer}/control/script`, {
      method: "POST",
      body: JSON.stringify({ scenario: "fallback", primary: "leaf result", delayMs: 800 }),
    });
    const t = await tenant("announce-fallback", {
      agents: {
        defaults: { subagents: { maxSpawnDepth: 2, archiveAfterMinutes: 0 } },
        list: [
          { id: "main", default: true, runner: { type: "openai", baseUrl: `${peer}/v1`, model: "scripted:fallback" } },
        ],
      },
    });
    await seedMain(t, { deliveryContext: { channel: "slack", to: "C7" } });
    const middle = await t.spawn({ task: "orchestrate" });
    const leaf = await t.spawn({ task: "leaf" }, middle.childSessionKey);
    // The middle session disappears before the leaf finishes.
    await call(`/t/${t.id}/v1/sessions/${encodeURIComponent(middle.childSessionKey)}`, {
      method: "DELETE",
      token: t.token,
    });
    const found = await until(
      async () => (await announces(t)).filter((m) => m.provenance.sourceSessionKey === leaf.childSessionKey),
      (a) => a.length === 1,
      20_000,
    );
    expect(text(found[0])).toContain("Status: ok");
  });

  it("deletes the child after the announce with cleanup delete", async () => {
    const t = await tenant("cleanup-delete");
    await seedMain(t);
    const child = await t.spawn({ task: "ephemeral", cleanup: "delete" });
    await until(
      () => announces(t),
      (a) => a.length === 1,
    );
    await until(
      () => history(t, child.childSessionKey),
      (h) => h === null,
    );
  });

  it("archives kept children after archiveAfterMinutes: hidden from lists, history still readable", async () => {
    const t = await tenant("cleanup-archive", {
      tools: { sessions: { visibility: "tree" } },
      agents: { defaults: { subagents: { archiveAfterMinutes: 1 } } },
    });
    await seedMain(t);
    const child = await t.spawn({ task: "keep me" });
    await until(
      () => announces(t),
      (a) => a.length === 1,
    );
    const stub = env.SESSIONS.getByName(`${t.id}/${child.childSessionKey}`);
    // Bring the archive timer due now and fire the alarm, as the clock would in a minute.
    await runInDurableObject(stub, (_i, state) => {
      state.storage.sql.exec("UPDATE timers SET due_at = 0 WHERE kind = 'spawn-archive'");
    });
    await runDurableObjectAlarm(stub);
    const entry = await stub.entry();
    expect(entry?.archivedAt).toEqual(expect.any(Number));
    const list = await until(
      async () =>
        (await call(`/t/${t.id}/tools/invoke`, { method: "POST", token: t.token, json: { tool: "sessions_list" } }))
          .data.result.details.sessions,
      (rows: any[]) => !rows.some((r) => r.key === child.childSessionKey),
    );
    expect(list.some((r: any) => r.key === child.childSessionKey)).toBe(false);
    expect((await history(t, child.childSessionKey))?.length).toBeGreaterThan(0);
    expect(
      (await call(`/t/${t.id}/v1/sessions?includeArchived=true`, { token: t.token })).data.sessions.some(
        (r: any) => r.key === child.childSessionKey,
      ),
    ).toBe(true);
  });

  it("announces exactly once when the child is evicted while running and after finishing", async () => {
    await fetch(`${peer}/control/script`, {
      method: "POST",
      body: JSON.stringify({ scenario: "evict-child", primary: "child result", delayMs: 1000 }),
    });
    const t = await tenant("spawn-evict", {
      agents: {
        list: [
          {
            id: "main",
            default: true,
            runner: { type: "openai", baseUrl: `${peer}/v1`, model: "scripted:evict-child" },
          },
        ],
      },
    });
    await seedMain(t);
    const child = await t.spawn({ task: "survive" });
    const stub = env.SESSIONS.getByName(`${t.id}/${child.childSessionKey}`);
    await new Promise((r) => setTimeout(r, 300));
    await evictDurableObject(stub);
    await stub.entry(); // wake: the orphaned run is retried
    await until(
      () => announces(t),
      (a) => a.length === 1,
      20_000,
    );
    await evictDurableObject(stub);
    await evictDurableObject(env.SESSIONS.getByName(`${t.id}/agent:main:main`));
    await stub.entry();
    await new Promise((r) => setTimeout(r, 500));
    expect(await announces(t)).toHaveLength(1);
  });
});
