import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { freshTenant, issueToken, type TestTenant, until, user } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

const open: GatewayClient[] = [];
async function gateway(tenant: TestTenant) {
  const client = await GatewayClient.connect({ path: `/t/${tenant.id}`, token: tenant.token });
  open.push(client);
  return client;
}
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

const SOURCE_ID = "0f5c2d1e-9a7b-4c3d-8e2f-1a2b3c4d5e6f";

/** A message as chat.history returns it from the source. */
function sourceMessage(seq: number, extra: Record<string, unknown> = {}) {
  return {
    role: seq % 2 === 1 ? "user" : "assistant",
    content: seq % 2 === 1 ? `question ${seq}` : [{ type: "text", text: `answer ${seq}` }],
    timestamp: 1_700_000_000_000 + seq * 1000,
    __openclaw: { id: `src-${seq}`, seq, recordTimestampMs: 1_700_000_000_500 + seq * 1000, runId: "dropped" },
    ...extra,
  };
}

const importPage = (tenant: TestTenant, key: string, body: Record<string, unknown>) =>
  tenant.call(`/v1/sessions/${encodeURIComponent(key)}/import`, { method: "POST", json: body });

async function chatHistory(client: GatewayClient, sessionKey: string, params: Record<string, unknown> = {}) {
  const res = await client.request("chat.history", { sessionKey, ...params });
  expect(res.ok, JSON.stringify(res.error)).toBe(true);
  return res.payload;
}

const seqs = (messages: Array<{ __openclaw: { seq: number } }>) => messages.map((m) => m.__openclaw.seq);

describe("chat.history offset paging (OpenClaw's protocol 4 fields)", () => {
  it("pages backwards from the newest message with offset, nextOffset, hasMore and totalMessages", async () => {
    const tenant = await freshTenant("page");
    for (let i = 1; i <= 25; i++) await tenant.append("agent:main:paged", user(`m${i}`));
    const client = await gateway(tenant);

    const newest = await chatHistory(client, "agent:main:paged", { limit: 10 });
    expect(seqs(newest.messages)).toEqual([16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    expect(newest).toMatchObject({ hasMore: true, nextOffset: 10, totalMessages: 25 });
    expect(newest.offset).toBeUndefined();

    const middle = await chatHistory(client, "agent:main:paged", { limit: 10, offset: 10 });
    expect(seqs(middle.messages)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(middle).toMatchObject({ offset: 10, hasMore: true, nextOffset: 20, totalMessages: 25 });

    const oldest = await chatHistory(client, "agent:main:paged", { limit: 10, offset: 20 });
    expect(seqs(oldest.messages)).toEqual([1, 2, 3, 4, 5]);
    expect(oldest).toMatchObject({ offset: 20, hasMore: false, totalMessages: 25 });
    expect(oldest.nextOffset).toBeUndefined();

    const beyond = await chatHistory(client, "agent:main:paged", { limit: 10, offset: 25 });
    expect(beyond).toMatchObject({ messages: [], hasMore: false, totalMessages: 25 });
    const bad = await client.request("chat.history", { sessionKey: "agent:main:paged", offset: -1 });
    expect(bad.ok).toBe(false);
    expect(bad.error.code).toBe("INVALID_REQUEST");
  });
});

describe("sessions.list offset paging and the archived filter", () => {
  it("returns every row exactly once across offset pages, in updatedAt order", async () => {
    const tenant = await freshTenant("list");
    for (let i = 1; i <= 5; i++) await tenant.append(`agent:main:s${i}`, user(`hello ${i}`));
    const client = await gateway(tenant);
    const whole = (await client.request("sessions.list", {})).payload.sessions.map((r: { key: string }) => r.key);
    const paged: string[] = [];
    const offsets: Array<number | null> = [];
    for (let offset: number | null = 0; offset !== null; ) {
      const res = await client.request("sessions.list", { limit: 2, offset });
      expect(res.ok, JSON.stringify(res.error)).toBe(true);
      paged.push(...res.payload.sessions.map((r: { key: string }) => r.key));
      offset = res.payload.nextOffset;
      offsets.push(offset);
    }
    expect(offsets).toEqual([2, 4, null]);
    expect(paged).toEqual(whole);
    expect(new Set(paged).size).toBe(5);
  });

  it('lists archived sessions with archived: true and everything with archived: "all"', async () => {
    const tenant = await freshTenant("arch");
    await importPage(tenant, "agent:main:old", { sessionId: SOURCE_ID, entry: { archivedAt: 1_700_000_000_000 } });
    await tenant.append("agent:main:live", user("still here"));
    const client = await gateway(tenant);
    const keys = async (params: Record<string, unknown>) =>
      (await client.request("sessions.list", params)).payload.sessions.map((r: { key: string }) => r.key).sort();
    expect(await keys({})).toEqual(["agent:main:live"]);
    expect(await keys({ archived: true })).toEqual(["agent:main:old"]);
    expect(await keys({ archived: "all" })).toEqual(["agent:main:live", "agent:main:old"]);
  });
});

describe("POST /v1/sessions/{key}/import", () => {
  it("creates the session with the source's sessionId, message ids, seqs, timestamps and entry fields", async () => {
    const tenant = await freshTenant("imp");
    const key = "agent:main:discord:group:42";
    const toolResult = {
      role: "toolResult",
      toolCallId: "call-1",
      toolName: "exec",
      content: [{ type: "text", text: "ok" }],
      details: { exitCode: 0 },
      timestamp: 1_700_000_003_000,
      __openclaw: { id: "src-3", seq: 3 },
    };
    const res = await importPage(tenant, key, {
      sessionId: SOURCE_ID,
      entry: {
        createdAt: 1_600_000_000_000,
        updatedAt: 1_700_000_009_000,
        label: "ops room",
        displayName: "Ops",
        channel: "discord",
        chatType: "group",
        deliveryContext: { channel: "discord", to: "channel:42" },
        lastChannel: "discord",
        lastTo: "channel:42",
        model: "gpt-x",
        inputTokens: 120,
        outputTokens: 30,
        totalTokens: 150,
        sendPolicy: "deny",
        spawnedBy: "agent:main:main",
        spawnDepth: 1,
      },
      messages: [
        sourceMessage(1, { provenance: { kind: "inter_session", sourceSessionKey: "agent:main:main" } }),
        sourceMessage(2, { usage: { input: 999, output: 999 } }),
        toolResult,
        sourceMessage(5),
      ],
    });
    expect(res.status).toBe(201);
    expect(res.data).toEqual({
      ok: true,
      sessionKey: key,
      sessionId: SOURCE_ID,
      created: true,
      imported: 4,
      skipped: 0,
      lastSeq: 5,
    });

    const client = await gateway(tenant);
    const history = await chatHistory(client, key);
    expect(history.sessionId).toBe(SOURCE_ID);
    expect(history.messages.map((m: any) => m.__openclaw)).toEqual(
      [1, 2, 3, 5].map((seq) => ({ id: `src-${seq}`, seq, recordTimestampMs: expect.any(Number) })),
    );
    expect(history.messages[0]).toMatchObject({
      role: "user",
      content: "question 1",
      timestamp: 1_700_000_001_000,
      provenance: { kind: "inter_session", sourceSessionKey: "agent:main:main" },
    });
    expect(history.messages[2]).toMatchObject({ role: "toolResult", toolCallId: "call-1", toolName: "exec" });
    // The HTTP history keeps what chat.history's display rules drop (tool details).
    const raw = await tenant.call(`/sessions/${encodeURIComponent(key)}/history?includeTools=1`);
    expect(raw.data.messages[2].details).toEqual({ exitCode: 0 });

    const row = (await tenant.list("?includeLastMessage=1")).data.sessions[0];
    expect(row).toMatchObject({
      key,
      sessionId: SOURCE_ID,
      updatedAt: 1_700_000_009_000,
      label: "ops room",
      displayName: "Ops",
      channel: "discord",
      chatType: "group",
      kind: "group",
      deliveryContext: { channel: "discord", to: "channel:42" },
      model: "gpt-x",
      // The source's counters, not the sum of the imported messages' usage.
      inputTokens: 120,
      outputTokens: 30,
      totalTokens: 150,
      sendPolicy: "deny",
      spawnedBy: "agent:main:main",
      spawnDepth: 1,
      messageCount: 5,
      lastMessagePreview: "question 5",
    });
    expect((await tenant.list(`?spawnedBy=agent:main:main`)).data.sessions.map((r: any) => r.key)).toEqual([key]);

    // The JSONL transcript is reachable by the source's sessionId, with the source's times.
    const jsonl = await tenant.call(`/v1/transcripts/main/${SOURCE_ID}.jsonl`);
    const lines = jsonl.text
      .trim()
      .split("\n")
      .map((l: string) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      type: "session",
      id: SOURCE_ID,
      timestamp: new Date(1_600_000_000_000).toISOString(),
    });
    expect(lines[1]).toMatchObject({ id: "src-1", timestamp: new Date(1_700_000_001_500).toISOString() });
  });

  it("skips the seqs it holds, so a repeated or overlapping page writes nothing twice", async () => {
    const tenant = await freshTenant("idem");
    const key = "agent:main:resume";
    const page = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => sourceMessage(from + i));
    expect((await importPage(tenant, key, { sessionId: SOURCE_ID, messages: page(1, 4) })).data).toMatchObject({
      imported: 4,
      skipped: 0,
      lastSeq: 4,
    });
    const again = await importPage(tenant, key, { sessionId: SOURCE_ID, messages: page(1, 4) });
    expect(again.status).toBe(200);
    expect(again.data).toMatchObject({ created: false, imported: 0, skipped: 4, lastSeq: 4 });
    // An interrupted run resumes with a page overlapping what was written.
    await evictDurableObject(env.SESSIONS.getByName(`${tenant.id}/${key}`));
    expect((await importPage(tenant, key, { sessionId: SOURCE_ID, messages: page(3, 8) })).data).toMatchObject({
      imported: 4,
      skipped: 2,
      lastSeq: 8,
    });
    const history = await tenant.call(`/sessions/${encodeURIComponent(key)}/history`);
    expect(history.data.messages.map((m: any) => m.__openclaw.id)).toEqual(page(1, 8).map((m) => m.__openclaw.id));
  });

  it("refuses with 409 a page whose held seqs carry other message ids (a source reset in place)", async () => {
    const tenant = await freshTenant("rewr");
    const key = "agent:main:rewritten";
    await importPage(tenant, key, { sessionId: SOURCE_ID, messages: [sourceMessage(1), sourceMessage(2)] });
    // OpenClaw resets in place: the same sessionId, numbering from 1 again.
    const reset = sourceMessage(1, { role: "system", content: "Reset", __openclaw: { id: "reset-marker", seq: 1 } });
    const refused = await importPage(tenant, key, { sessionId: SOURCE_ID, messages: [reset, sourceMessage(3)] });
    expect(refused.status).toBe(409);
    expect(refused.data.error.message).toContain("reset in place or rewritten");
    const gap = await importPage(tenant, key, {
      sessionId: SOURCE_ID,
      messages: [sourceMessage(2), sourceMessage(3)],
      throughSeq: 4,
    });
    expect(gap.data).toMatchObject({ imported: 1, skipped: 1, lastSeq: 4 });
    // A message where the session holds none (a seq the source had hidden) is a rewrite too.
    const hidden = await importPage(tenant, key, { sessionId: SOURCE_ID, messages: [sourceMessage(4)] });
    expect(hidden.status).toBe(409);
    const history = await tenant.call(`/sessions/${encodeURIComponent(key)}/history`);
    expect(history.data.messages.map((m: any) => m.__openclaw.id)).toEqual(["src-1", "src-2", "src-3"]);
  });

  it("moves past seqs the source hid (throughSeq) and publishes them as done", async () => {
    const tenant = await freshTenant("thru");
    const key = "agent:main:silent";
    const res = await importPage(tenant, key, {
      sessionId: SOURCE_ID,
      messages: [sourceMessage(1), sourceMessage(2)],
      throughSeq: 3,
    });
    expect(res.data).toMatchObject({ imported: 2, lastSeq: 3 });
    const stub = env.SESSIONS.getByName(`${tenant.id}/${key}`);
    // Nothing stays pending for the tenant: the missing seq 3 is not waited for.
    const published = () =>
      runInDurableObject(stub, (_instance, state) => {
        const row = state.storage.sql
          .exec<{ seq: number; count: number }>(
            "SELECT published_seq AS seq, json ->> '$.messageCount' AS count FROM entry",
          )
          .one();
        return `${row.seq}/${row.count}`;
      });
    await until(published, (value) => value === "3/3");
    expect((await tenant.list()).data.sessions[0]).toMatchObject({ key, messageCount: 3 });
    // A native append afterwards takes seq 4.
    expect((await tenant.append(key, user("here now"))).data.seq).toBe(4);
    const below = await importPage(tenant, "agent:main:other", {
      sessionId: crypto.randomUUID(),
      messages: [sourceMessage(5)],
      throughSeq: 4,
    });
    expect(below.status).toBe(400);
    expect(below.data.error.message).toContain("throughSeq");
  });

  it("recreates a session deleted here, under its source sessionId, when imported again", async () => {
    const tenant = await freshTenant("again");
    const key = "agent:main:again";
    await importPage(tenant, key, { sessionId: SOURCE_ID, messages: [sourceMessage(1)] });
    expect((await tenant.call(`/v1/sessions/${encodeURIComponent(key)}`, { method: "DELETE" })).status).toBe(200);
    const again = await importPage(tenant, key, {
      sessionId: SOURCE_ID,
      messages: [sourceMessage(1), sourceMessage(2)],
    });
    expect(again.data).toMatchObject({ created: true, imported: 2 });
    expect((await tenant.list()).data.sessions.map((r: any) => [r.key, r.sessionId, r.messageCount])).toEqual([
      [key, SOURCE_ID, 2],
    ]);
  });

  it("creates a session without messages from its entry alone", async () => {
    const tenant = await freshTenant("empty");
    const res = await importPage(tenant, "agent:main:cron:nightly", {
      sessionId: SOURCE_ID,
      entry: { label: "nightly", updatedAt: 1_700_000_000_000 },
      messages: [],
    });
    expect(res.data).toMatchObject({ created: true, imported: 0, lastSeq: 0 });
    const row = (await tenant.list()).data.sessions[0];
    expect(row).toMatchObject({ key: "agent:main:cron:nightly", label: "nightly", messageCount: 0 });
  });

  it("refuses with 409 to write into a session it did not create or that moved on since", async () => {
    const tenant = await freshTenant("conf");
    await tenant.append("agent:main:native", user("written here"));
    const native = await importPage(tenant, "agent:main:native", {
      sessionId: SOURCE_ID,
      messages: [sourceMessage(1)],
    });
    expect(native.status).toBe(409);
    expect(native.data.error).toMatchObject({ type: "conflict" });
    expect(native.data.error.message).toContain("already exists here with another transcript");

    await importPage(tenant, "agent:main:moved", { sessionId: SOURCE_ID, messages: [sourceMessage(1)] });
    await tenant.append("agent:main:moved", user("continued here"));
    const moved = await importPage(tenant, "agent:main:moved", { sessionId: SOURCE_ID, messages: [sourceMessage(2)] });
    expect(moved.status).toBe(409);
    expect(moved.data.error.message).toContain("new messages since it was imported");
    const history = await tenant.call("/sessions/agent%3Amain%3Amoved/history");
    expect(history.data.messages.map((m: any) => m.content)).toEqual(["question 1", "continued here"]);

    const taken = await importPage(tenant, "agent:main:other", { sessionId: SOURCE_ID, messages: [] });
    expect(taken.status).toBe(409);
    expect(taken.data.error.message).toBe(`sessionId ${SOURCE_ID} already belongs to session agent:main:moved`);
  });

  it("rejects malformed pages with 400 naming the field, and read-only tokens with 403", async () => {
    const tenant = await freshTenant("bad");
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ sessionId: SOURCE_ID, messages: [sourceMessage(2), sourceMessage(1)] }, "messages.1.__openclaw.seq"],
      [{ sessionId: SOURCE_ID, messages: [{ role: "user", content: "x" }] }, "messages.0.__openclaw"],
      [{ sessionId: SOURCE_ID, messages: [sourceMessage(1, { role: "robot" })] }, "messages.0.role"],
      [{ sessionId: "../etc", messages: [] }, "sessionId"],
      [{ sessionId: SOURCE_ID, messages: [], entry: { bogus: 1 } }, "entry"],
      [{ sessionId: SOURCE_ID, messages: Array.from({ length: 1001 }, (_, i) => sourceMessage(i + 1)) }, "messages"],
    ];
    for (const [body, path] of cases) {
      const res = await importPage(tenant, "agent:main:x", body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      expect(res.data.error.message).toContain(path);
    }
    expect((await tenant.list()).data.sessions).toEqual([]);

    const { token } = await issueToken(tenant.id, ["operator.read"]);
    const readOnly = await tenant.call("/v1/sessions/agent%3Amain%3Ax/import", {
      method: "POST",
      token,
      json: { sessionId: SOURCE_ID, messages: [] },
    });
    expect(readOnly.status).toBe(403);
  });
});

describe("GET /v1/export", () => {
  it("streams every session's entry, transcripts and messages as JSONL, closed by the counts", async () => {
    const tenant = await freshTenant("exp");
    await tenant.append("agent:main:a", user("a1"));
    await tenant.append("agent:main:a", { role: "assistant", content: [{ type: "text", text: "a2" }] });
    await tenant.call("/v1/sessions/agent%3Amain%3Aa/reset", { method: "POST" });
    await tenant.append("agent:main:a", user("a3 after reset"));
    await importPage(tenant, "agent:main:b", { sessionId: SOURCE_ID, messages: [sourceMessage(1), sourceMessage(2)] });
    await tenant.patch("agent:main:c", { label: "empty one" });

    const { token } = await issueToken(tenant.id, ["operator.read"]);
    const res = await tenant.call("/v1/export", { token });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = res.text
      .trim()
      .split("\n")
      .map((l: string) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "export", version: 2, tenantId: tenant.id });
    expect(lines.at(-1)).toEqual({ type: "end", sessions: 3, transcripts: 4, messages: 5, files: 0, fileBytes: 0 });

    const shape = lines
      .slice(1, -1)
      .map((l: any) =>
        l.type === "message"
          ? `message ${l.key} ${l.message.__openclaw.seq} ${JSON.stringify(l.message.content)}`
          : `${l.type} ${l.key}`,
      );
    expect(shape).toEqual([
      "session agent:main:a",
      "transcript agent:main:a",
      'message agent:main:a 1 "a1"',
      'message agent:main:a 2 [{"type":"text","text":"a2"}]',
      "transcript agent:main:a",
      'message agent:main:a 1 "a3 after reset"',
      "session agent:main:b",
      "transcript agent:main:b",
      'message agent:main:b 1 "question 1"',
      'message agent:main:b 2 [{"type":"text","text":"answer 2"}]',
      "session agent:main:c",
      "transcript agent:main:c",
    ]);
    const sessionA = lines.find((l: any) => l.type === "session" && l.key === "agent:main:a");
    const transcriptsA = lines.filter((l: any) => l.type === "transcript" && l.key === "agent:main:a");
    expect(transcriptsA.map((t: any) => t.current)).toEqual([false, true]);
    expect(transcriptsA[1].sessionId).toBe(sessionA.entry.sessionId);
    expect(transcriptsA[0].endedAt).toEqual(expect.any(Number));
    const b = lines.find((l: any) => l.type === "session" && l.key === "agent:main:b");
    expect(b.entry).toMatchObject({ sessionId: SOURCE_ID, messageCount: 2 });
    expect(lines.find((l: any) => l.type === "session" && l.key === "agent:main:c").entry.label).toBe("empty one");
  });

  it("pages through more sessions than one index page holds", async () => {
    const tenant = await freshTenant("many");
    const keys = Array.from({ length: 105 }, (_, i) => `agent:main:k${String(i).padStart(3, "0")}`);
    for (const key of keys) {
      await importPage(tenant, key, { sessionId: crypto.randomUUID(), messages: [sourceMessage(1)] });
    }
    const res = await tenant.call("/v1/export");
    const lines = res.text
      .trim()
      .split("\n")
      .map((l: string) => JSON.parse(l));
    expect(lines.filter((l: any) => l.type === "session").map((l: any) => l.key)).toEqual(keys);
    expect(lines.at(-1)).toEqual({
      type: "end",
      sessions: 105,
      transcripts: 105,
      messages: 105,
      files: 0,
      fileBytes: 0,
    });
    // 105 imports one after another: 20 s did not suffice on a loaded machine.
  }, 90_000);

  it("answers 401 without a token", async () => {
    const tenant = await freshTenant("auth");
    expect((await tenant.call("/v1/export", { token: null })).status).toBe(401);
  });
});
