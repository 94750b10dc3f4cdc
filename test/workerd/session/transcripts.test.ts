import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { append, call, history, user } from "../support/helpers";

const sessionStub = (key: string) => env.SESSIONS.getByName(`default/${key}`);

describe("ingest", () => {
  it("creates the session on the first message and numbers messages from 1", async () => {
    const first = await append("main", user("hello"));
    expect(first.status).toBe(201);
    expect(first.data).toEqual({
      sessionKey: "agent:main:main",
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      seq: 1,
      messageId: expect.any(String),
    });
    const second = await append("agent:main:main", { role: "assistant", content: [{ type: "text", text: "hi" }] });
    expect(second.data.seq).toBe(2);
    expect(second.data.sessionId).toBe(first.data.sessionId);
  });

  it("returns the first response for a repeated idempotencyKey and appends nothing", async () => {
    const a = await append("idem", user("once", { idempotencyKey: "k-1" }));
    const b = await append("idem", user("twice", { idempotencyKey: "k-1" }));
    expect(b.status).toBe(201);
    expect(b.data).toEqual(a.data);
    const page = await history("idem");
    expect(page.data.messages.map((m: any) => m.content)).toEqual(["once"]);
  });

  it("records origin and delivery fields of the first message on the session", async () => {
    await append("agent:main:telegram:group:42", {
      ...user("from a group"),
      origin: { provider: "telegram", chatType: "group" },
      deliveryContext: { channel: "telegram", to: "group:42" },
      displayName: "Team chat",
    });
    const entry = await sessionStub("agent:main:telegram:group:42").entry();
    expect(entry).toMatchObject({
      key: "agent:main:telegram:group:42",
      channel: "telegram",
      chatType: "group",
      displayName: "Team chat",
      lastChannel: "telegram",
      lastTo: "group:42",
      messageCount: 1,
    });
  });

  it("rejects malformed keys, bad roles and unknown fields with 400 naming the problem", async () => {
    const malformed = await append("agent:main", user("x"));
    expect(malformed.status).toBe(400);
    expect(malformed.data.error.message).toBe('malformed session key "agent:main"');
    const role = await append("s", { role: "robot", content: "x" });
    expect(role.status).toBe(400);
    expect(role.data.error.message).toContain("role");
    const unknown = await append("s", { role: "user", content: "x", bogus: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.data.error.message).toContain("bogus");
  });

  it("rejects invalid JSON and invalid UTF-8 with 400", async () => {
    const json = await call("/v1/sessions/s/messages", { method: "POST", body: "{nope" });
    expect(json.status).toBe(400);
    expect(json.data.error.type).toBe("invalid_json");
    const utf8 = await call("/v1/sessions/s/messages", {
      method: "POST",
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    expect(utf8.status).toBe(400);
    expect(utf8.data.error.message).toContain("UTF-8");
  });

  it("answers 413 for bodies over 2 MB and for messages over the row limit, storing nothing", async () => {
    await append("big", user("small"));
    const huge = await append("big", user("x".repeat(2 * 1024 * 1024 + 10)));
    expect(huge.status).toBe(413);
    const rowLimit = await append("big", user("é".repeat(950_000)));
    expect(rowLimit.status).toBe(413);
    expect(rowLimit.data.error.message).toContain("1800000");
    const page = await history("big");
    expect(page.data.messages).toHaveLength(1);
  });
});

describe("GET /sessions/{key}/history", () => {
  it("returns OpenClaw's shape with __openclaw positions, items and messages alike", async () => {
    await append("shape", user("one"));
    await append("shape", user("two"));
    const res = await history("shape");
    expect(res.status).toBe(200);
    expect(res.data.sessionKey).toBe("agent:main:shape");
    expect(res.data.hasMore).toBe(false);
    expect(res.data.nextCursor).toBeUndefined();
    expect(res.data.items).toEqual(res.data.messages);
    expect(res.data.messages[1]).toMatchObject({
      role: "user",
      content: "two",
      __openclaw: { seq: 2, id: expect.any(String) },
    });
    expect(typeof res.data.messages[0].timestamp).toBe("number");
  });

  it("answers 404 not_found for an unknown session and 401 without a token", async () => {
    const missing = await history("agent:main:nonexistent");
    expect(missing.status).toBe(404);
    expect(missing.data).toEqual({
      ok: false,
      error: { type: "not_found", message: "Session not found: agent:main:nonexistent" },
    });
    expect((await call("/sessions/main/history", { token: null })).status).toBe(401);
  });

  it("pages backwards with limit and cursor (seq:N or N)", async () => {
    await call("/v1/sessions/paged/messages/batch", {
      method: "POST",
      json: { messages: Array.from({ length: 25 }, (_, i) => user(`m${i + 1}`)) },
    });
    const last = await history("paged", "?limit=10");
    expect(last.data.messages.map((m: any) => m.__openclaw.seq)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    expect(last.data).toMatchObject({ hasMore: true, nextCursor: "16" });
    const older = await history("paged", `?limit=10&cursor=seq:${last.data.nextCursor}`);
    expect(older.data.messages.map((m: any) => m.__openclaw.seq)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    const oldest = await history("paged", "?limit=10&cursor=6");
    expect(oldest.data.messages.map((m: any) => m.__openclaw.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(oldest.data.hasMore).toBe(false);
    expect(oldest.data.nextCursor).toBeUndefined();
  });

  it("clamps limit like OpenClaw: absent = all, non-numeric or < 1 → 1, > 1000 → 1000", async () => {
    for (const count of [1000, 5]) {
      const seeded = await call("/v1/sessions/clamp/messages/batch", {
        method: "POST",
        json: { messages: Array.from({ length: count }, (_, i) => user(`c${i + 1}`)) },
      });
      expect(seeded.status).toBe(201);
    }
    expect((await history("clamp")).data.messages).toHaveLength(1005);
    expect((await history("clamp", "?limit=abc")).data.messages).toHaveLength(1);
    expect((await history("clamp", "?limit=0")).data.messages).toHaveLength(1);
    expect((await history("clamp", "?limit=-4")).data.messages).toHaveLength(1);
    expect((await history("clamp", "?limit=5000")).data.messages).toHaveLength(1000);
    expect((await history("clamp", "?limit=")).data.messages).toHaveLength(1005);
  });

  it("returns everything before the cursor when no limit is given", async () => {
    await call("/v1/sessions/cursor-all/messages/batch", {
      method: "POST",
      json: { messages: Array.from({ length: 7 }, (_, i) => user(`m${i + 1}`)) },
    });
    const res = await history("cursor-all", "?cursor=5");
    expect(res.data.messages.map((m: any) => m.__openclaw.seq)).toEqual([1, 2, 3, 4]);
    expect(res.data.items).toEqual(res.data.messages);
  });

  it("rejects a malformed cursor with 400", async () => {
    await append("cursor", user("x"));
    expect((await history("cursor", "?cursor=abc")).status).toBe(400);
  });

  it("leaves tool results out unless includeTools=1 (the seed's contract, as sessions_history)", async () => {
    await append("tools", user("run it"));
    await append("tools", {
      role: "toolResult",
      toolCallId: "t1",
      toolName: "exec",
      content: [{ type: "text", text: "ok" }],
      details: { big: "payload" },
    });
    await append("tools", { role: "assistant", content: [{ type: "text", text: "done" }] });
    const plain = await history("tools");
    expect(plain.data.messages.map((m: any) => m.role)).toEqual(["user", "assistant"]);
    expect((await history("tools", "?limit=2")).data.messages.map((m: any) => m.__openclaw.seq)).toEqual([1, 3]);
    expect((await history("tools", "?includeTools=0")).data.messages).toHaveLength(2);
    const all = await history("tools", "?includeTools=1");
    expect(all.data.messages.map((m: any) => m.role)).toEqual(["user", "toolResult", "assistant"]);
    expect(all.data.messages[1].content).toEqual([{ type: "text", text: "ok" }]);
    const paged = await history("tools", "?includeTools=true&limit=2");
    expect(paged.data.messages.map((m: any) => m.__openclaw.seq)).toEqual([2, 3]);
  });

  it("keeps transcripts across eviction of the session object", async () => {
    await append("evicted", user("before eviction"));
    await evictDurableObject(sessionStub("agent:main:evicted"));
    await append("evicted", user("after eviction"));
    const res = await history("evicted");
    expect(res.data.messages.map((m: any) => [m.content, m.__openclaw.seq])).toEqual([
      ["before eviction", 1],
      ["after eviction", 2],
    ]);
  });
});

describe("reset, delete and JSONL export", () => {
  it("reset keeps the key, starts a new sessionId and leaves the old transcript readable", async () => {
    const first = await append("resettable", user("old world"));
    const reset = await call("/v1/sessions/resettable/reset", { method: "POST" });
    expect(reset.status).toBe(200);
    expect(reset.data.key).toBe("agent:main:resettable");
    expect(reset.data.entry.sessionId).not.toBe(first.data.sessionId);
    expect((await history("resettable")).data.messages).toEqual([]);
    await append("resettable", user("new world"));

    const oldJsonl = await call(`/v1/transcripts/main/${first.data.sessionId}.jsonl`);
    expect(oldJsonl.status).toBe(200);
    const lines = oldJsonl.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "session", id: first.data.sessionId });
    expect(lines[1]).toMatchObject({
      type: "message",
      parentId: null,
      message: { role: "user", content: "old world" },
    });
    expect(lines).toHaveLength(2);
  });

  it("exports the current transcript as JSONL with a parentId chain", async () => {
    const a = await append("export", user("a"));
    await append("export", { role: "assistant", content: [{ type: "text", text: "b" }] });
    const res = await call(`/v1/transcripts/main/${a.data.sessionId}.jsonl`);
    expect(res.headers.get("content-type")).toContain("ndjson");
    const lines = res.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(["session", "message", "message"]);
    expect(lines[2].parentId).toBe(lines[1].id);
    expect(lines[1].message.__openclaw).toBeUndefined();
    expect((await call(`/v1/transcripts/other/${a.data.sessionId}.jsonl`)).status).toBe(404);
    expect((await call(`/v1/transcripts/main/not-a-uuid.jsonl`)).status).toBe(404);
  });

  it("refuses to delete the main session with OpenClaw's text", async () => {
    await append("main", user("keep me"));
    const res = await call("/v1/sessions/main", { method: "DELETE" });
    expect(res.status).toBe(400);
    expect(res.data.error.message).toBe("Cannot delete the main session (agent:main:main).");
  });

  it("deletes other sessions and their transcripts", async () => {
    const created = await append("doomed", user("bye"));
    const res = await call("/v1/sessions/doomed", { method: "DELETE" });
    expect(res.data).toEqual({ ok: true, key: "agent:main:doomed", deleted: true });
    expect((await history("doomed")).status).toBe(404);
    expect((await call(`/v1/transcripts/main/${created.data.sessionId}.jsonl`)).status).toBe(404);
    expect((await call("/v1/sessions/doomed", { method: "DELETE" })).status).toBe(404);
    // The key can be used again; it is a new session.
    const again = await append("doomed", user("hello again"));
    expect(again.data.seq).toBe(1);
    expect(again.data.sessionId).not.toBe(created.data.sessionId);
  });
});
