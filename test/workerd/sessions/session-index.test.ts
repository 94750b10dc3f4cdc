import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { TenantContext } from "../../../src/domain/context";
import { DomainError } from "../../../src/domain/errors";
import { resolveSession } from "../../../src/domain/session-index";
import type { SessionRow } from "../../../src/model/session-row";
import { tenantPorts } from "../../../src/stubs";
import { ADMIN, call, DEV, freshTenant, issueToken, type TestTenant, user } from "../support/helpers";

/**
 * The session index (TenantObject's) behind GET /v1/sessions (OpenClaw's
 * sessions.list) and PATCH /v1/sessions/{key} (sessions.patch). Every test owns a tenant.
 */

const tenantStub = (t: TestTenant) => env.TENANTS.getByName(t.id);
const sessionStub = (t: TestTenant, key: string) => env.SESSIONS.getByName(`${t.id}/${key}`);
const keys = (res: { data: { sessions: Array<{ key: string }> } }) => res.data.sessions.map((s) => s.key);
/** Lets the clock move so consecutive writes get distinct updatedAt values. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

/** Re-reads until `done` holds or the time is up; returns the last value. */
async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await read();
  }
  return value;
}

/** A session index row as a session object would publish it. */
function indexRow(key: string, fields: Partial<SessionRow> = {}): SessionRow {
  const agentId = /^agent:([^:]+):/.exec(key)?.[1] ?? "main";
  return {
    key,
    agentId,
    sessionId: crypto.randomUUID(),
    updatedAt: Date.now(),
    messageCount: 0,
    kind: "direct",
    ...fields,
  };
}

async function rowOf(t: TestTenant, key: string) {
  const list = await t.list(`?search=${encodeURIComponent(key)}`);
  return list.data.sessions.find((s: { key: string }) => s.key === key);
}

describe("GET /v1/sessions: OpenClaw's sessions.list shape", () => {
  it("returns { ts, path, count, defaults, sessions } with the tenant's main-key defaults", async () => {
    const t = await freshTenant("shape");
    const created = await t.append("main", user("hello"));
    const res = await t.list();
    expect(res.status).toBe(200);
    expect(res.data).toEqual({
      ts: expect.any(Number),
      path: "(multiple)",
      count: 1,
      totalCount: 1,
      limitApplied: 100,
      nextOffset: null,
      hasMore: false,
      defaults: {
        defaultAgentId: "main",
        mainKey: "main",
        mainSessionKey: "agent:main:main",
        scope: "per-sender",
        // The echo runner is the model echo/echo (clients' footers show it).
        modelProvider: "echo",
        model: "echo",
        contextTokens: 128_000,
      },
      sessions: [
        expect.objectContaining({
          key: "agent:main:main",
          agentId: "main",
          sessionId: created.data.sessionId,
          kind: "direct",
          messageCount: 1,
          updatedAt: expect.any(Number),
        }),
      ],
    });
    // The preview is only sent when asked for.
    expect(res.data.sessions[0].lastMessagePreview).toBeUndefined();
    const withPreview = await t.list("?includeLastMessage=true");
    expect(withPreview.data.sessions[0].lastMessagePreview).toBe("hello");
  });

  it("reports the configured default agent, mainKey and scope in defaults", async () => {
    const t = await freshTenant("defaults");
    await t.config({
      session: { mainKey: "home" },
      agents: { list: [{ id: "helper" }, { id: "ops", default: true }] },
    });
    const res = await t.list();
    expect(res.data.defaults).toEqual({
      defaultAgentId: "ops",
      mainKey: "home",
      mainSessionKey: "agent:ops:home",
      scope: "per-sender",
      modelProvider: "echo",
      model: "echo",
      contextTokens: 128_000,
    });
    await t.config({ session: { scope: "global" } });
    expect((await t.list()).data.defaults).toEqual({
      defaultAgentId: "main",
      mainKey: "main",
      mainSessionKey: "global",
      scope: "global",
      modelProvider: "echo",
      model: "echo",
      contextTokens: 128_000,
    });
  });

  it("requires a token with operator.read", async () => {
    const t = await freshTenant("listauth");
    expect((await call(`${t.prefix}/v1/sessions`, { token: null })).status).toBe(401);
    const reader = await issueToken(t.id, ["operator.read"]);
    expect((await call(`${t.prefix}/v1/sessions`, { token: reader.token })).status).toBe(200);
  });
});

describe("the index follows every session write", () => {
  it("create, append, patch, reset and delete each update the session's row", async () => {
    const t = await freshTenant("writes");
    const key = "agent:main:lifecycle";

    // Creation is published before the append answers.
    const created = await t.append("lifecycle", user("first"));
    expect(await rowOf(t, key)).toMatchObject({ sessionId: created.data.sessionId, messageCount: 1 });

    // Later appends reach the index in the background.
    await t.append("lifecycle", user("second"));
    const appended = await poll(
      () => rowOf(t, key),
      (row) => row?.messageCount === 2,
    );
    expect(appended).toMatchObject({ messageCount: 2 });

    const patched = await t.patch("lifecycle", { label: "tracked" });
    expect(patched.status).toBe(200);
    expect(await rowOf(t, key)).toMatchObject({ label: "tracked", messageCount: 2 });

    const reset = await t.call("/v1/sessions/lifecycle/reset", { method: "POST" });
    expect(reset.status).toBe(200);
    const afterReset = await rowOf(t, key);
    expect(afterReset.sessionId).toBe(reset.data.entry.sessionId);
    expect(afterReset.sessionId).not.toBe(created.data.sessionId);
    expect(afterReset).toMatchObject({ messageCount: 0, label: "tracked" });

    const deleted = await t.call("/v1/sessions/lifecycle", { method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect(await rowOf(t, key)).toBeUndefined();
    expect((await t.list()).data.count).toBe(0);
  });

  it("sorts rows by updatedAt, newest first, and a write moves its row to the top", async () => {
    const t = await freshTenant("order");
    for (const name of ["a", "b", "c"]) {
      await t.patch(name, { label: name });
      await tick();
    }
    expect(keys(await t.list())).toEqual(["agent:main:c", "agent:main:b", "agent:main:a"]);
    await t.patch("a", { label: "a2" });
    const res = await t.list();
    expect(keys(res)).toEqual(["agent:main:a", "agent:main:c", "agent:main:b"]);
    const stamps = res.data.sessions.map((s: { updatedAt: number }) => s.updatedAt);
    expect([...stamps].sort((x, y) => y - x)).toEqual(stamps);
  });
});

describe("GET /v1/sessions filters", () => {
  it("limit keeps the newest N rows", async () => {
    const t = await freshTenant("limit");
    for (const name of ["l1", "l2", "l3", "l4"]) {
      await t.patch(name, {});
      await tick();
    }
    const res = await t.list("?limit=2");
    expect(res.data.count).toBe(2);
    expect(keys(res)).toEqual(["agent:main:l4", "agent:main:l3"]);
    expect((await t.list("?limit=0")).status).toBe(400);
  });

  it("activeMinutes keeps only rows updated within the last N minutes", async () => {
    const t = await freshTenant("active");
    await t.patch("recent", {});
    await tenantStub(t).upsertSession(indexRow("agent:main:stale", { updatedAt: Date.now() - 2 * 60 * 60_000 }), 1);
    expect(keys(await t.list()).sort()).toEqual(["agent:main:recent", "agent:main:stale"]);
    expect(keys(await t.list("?activeMinutes=60"))).toEqual(["agent:main:recent"]);
    expect(keys(await t.list("?activeMinutes=180")).sort()).toEqual(["agent:main:recent", "agent:main:stale"]);
  });

  it("label is an exact match", async () => {
    const t = await freshTenant("label");
    await t.patch("x", { label: "alpha" });
    await t.patch("y", { label: "alphabet" });
    await t.patch("z", {});
    expect(keys(await t.list("?label=alpha"))).toEqual(["agent:main:x"]);
    expect(keys(await t.list("?label=alp"))).toEqual([]);
  });

  it("agentId keeps one agent's sessions (normalized) and never global/unknown", async () => {
    const t = await freshTenant("agentid");
    await t.patch("agent:ops:one", {});
    await t.patch("agent:main:two", {});
    await t.append("global", user("g"));
    expect(keys(await t.list("?agentId=ops"))).toEqual(["agent:ops:one"]);
    expect(keys(await t.list("?agentId=OPS"))).toEqual(["agent:ops:one"]);
    expect(keys(await t.list("?agentId=main&includeGlobal=true"))).toEqual(["agent:main:two"]);
  });

  it("spawnedBy keeps the children recorded with PATCH spawnedBy, matched on the canonical key", async () => {
    const t = await freshTenant("spawned");
    await t.patch("main", {});
    await t.patch("child-1", { spawnedBy: "main" });
    await t.patch("child-2", { spawnedBy: "agent:main:main" });
    await t.patch("grandchild", { spawnedBy: "child-1" });
    await t.patch("loner", {});
    const viaAlias = await t.list("?spawnedBy=main");
    expect(keys(viaAlias).sort()).toEqual(["agent:main:child-1", "agent:main:child-2"]);
    expect(viaAlias.data.sessions[0].spawnedBy).toBe("agent:main:main");
    expect(keys(await t.list("?spawnedBy=agent:main:main")).sort()).toEqual([
      "agent:main:child-1",
      "agent:main:child-2",
    ]);
    expect(keys(await t.list("?spawnedBy=child-1"))).toEqual(["agent:main:grandchild"]);
    // Clearing spawnedBy takes the session out of the tree.
    await t.patch("child-2", { spawnedBy: null });
    expect(keys(await t.list("?spawnedBy=main"))).toEqual(["agent:main:child-1"]);
  });

  it("search is a case-insensitive substring of displayName, label, sessionId and key", async () => {
    const t = await freshTenant("search");
    const team = await t.append("agent:main:discord:group:g1", { ...user("hi"), displayName: "Team Chat" });
    await t.patch("labelled", { label: "Quarterly Report" });
    await t.patch("plain-key-zebra", {});
    expect(keys(await t.list("?search=team%20chat"))).toEqual(["agent:main:discord:group:g1"]);
    expect(keys(await t.list("?search=QUARTERLY"))).toEqual(["agent:main:labelled"]);
    expect(keys(await t.list("?search=zebra"))).toEqual(["agent:main:plain-key-zebra"]);
    expect(keys(await t.list(`?search=${team.data.sessionId.slice(0, 13)}`))).toEqual(["agent:main:discord:group:g1"]);
    expect(keys(await t.list("?search=nothing-matches"))).toEqual([]);
  });

  it("hides global and unknown unless includeGlobal / includeUnknown is true", async () => {
    const t = await freshTenant("reserved");
    await t.append("global", user("g"));
    await t.append("unknown", user("u"));
    await t.patch("normal", {});
    expect(keys(await t.list())).toEqual(["agent:main:normal"]);
    expect(keys(await t.list("?includeGlobal=true")).sort()).toEqual(["agent:main:normal", "global"]);
    expect(keys(await t.list("?includeUnknown=true")).sort()).toEqual(["agent:main:normal", "unknown"]);
    expect(keys(await t.list("?includeGlobal=true&includeUnknown=true"))).toHaveLength(3);
    expect(keys(await t.list("?includeGlobal=false"))).toEqual(["agent:main:normal"]);
  });

  it("gives each parent row the keys of its spawned children in childSessions", async () => {
    const t = await freshTenant("children");
    await t.patch("main", {});
    await t.patch("kid-a", { spawnedBy: "main" });
    await t.patch("kid-b", { spawnedBy: "main" });
    await t.patch("kid-a-1", { spawnedBy: "kid-a" });
    const res = await t.list();
    const byKey = new Map(res.data.sessions.map((s: { key: string }) => [s.key, s]));
    expect((byKey.get("agent:main:main") as SessionRow).childSessions?.sort()).toEqual([
      "agent:main:kid-a",
      "agent:main:kid-b",
    ]);
    expect((byKey.get("agent:main:kid-a") as SessionRow).childSessions).toEqual(["agent:main:kid-a-1"]);
    expect((byKey.get("agent:main:kid-b") as SessionRow).childSessions).toBeUndefined();
    // A deleted child leaves its parent's list.
    await t.call("/v1/sessions/kid-b", { method: "DELETE" });
    expect((await rowOf(t, "agent:main:main")).childSessions).toEqual(["agent:main:kid-a"]);
  });

  it("rejects ill-typed query params with 400 and ignores unknown ones (newer clients' filters)", async () => {
    const t = await freshTenant("badquery");
    expect((await t.list("?bogus=1")).status).toBe(200);
    expect((await t.list("?limit=abc")).status).toBe(400);
    expect((await t.list("?activeMinutes=-5")).status).toBe(400);
  });

  it("passes numeric-looking search/label values as strings and accepts includeGlobal=1", async () => {
    const t = await freshTenant("numquery");
    await t.patch("release", { label: "2024" });
    await t.append("global", user("g"));
    expect((await t.list("?label=2024")).status).toBe(200);
    expect(keys(await t.list("?search=2024"))).toEqual(["agent:main:release"]);
    expect(keys(await t.list("?includeGlobal=1"))).toContain("global");
  });
});

describe("index consistency", () => {
  it("an out-of-order upsert older than the indexed row never overwrites it; a newer one wins", async () => {
    const t = await freshTenant("ooo");
    const key = "agent:main:raced";
    await t.patch("raced", { label: "fresh" });
    const snapshot = (await sessionStub(t, key).indexSnapshot())!;
    const tenant = tenantStub(t);

    // Older updatedAt loses even with a much higher version.
    expect(
      await tenant.upsertSession(
        { ...snapshot.row, label: "stale", updatedAt: snapshot.row.updatedAt - 60_000 },
        snapshot.version + 100,
      ),
    ).toBe(false);
    // Same updatedAt with a lower version loses.
    expect(await tenant.upsertSession({ ...snapshot.row, label: "stale" }, snapshot.version - 1)).toBe(false);
    expect((await rowOf(t, key)).label).toBe("fresh");

    // A strictly newer row replaces it.
    expect(
      await tenant.upsertSession(
        { ...snapshot.row, label: "newer", updatedAt: snapshot.row.updatedAt + 1 },
        snapshot.version + 1,
      ),
    ).toBe(true);
    expect((await rowOf(t, key)).label).toBe("newer");
    // And the older one still cannot come back afterwards.
    expect(await tenant.upsertSession(snapshot.row, snapshot.version)).toBe(false);
    expect((await rowOf(t, key)).label).toBe("newer");
  });

  it("a pre-reset row arriving late never replaces the reset row, even within the same millisecond", async () => {
    const t = await freshTenant("latereset");
    const key = "agent:main:renewed";
    await t.patch("renewed", { label: "v1" });
    const before = (await sessionStub(t, key).indexSnapshot())!;
    await t.call("/v1/sessions/renewed/reset", { method: "POST" });
    const after = (await sessionStub(t, key).indexSnapshot())!;
    expect(after.row.sessionId).not.toBe(before.row.sessionId);
    expect(after.version).toBeGreaterThan(before.version);

    const late = { ...before.row, updatedAt: after.row.updatedAt };
    expect(await tenantStub(t).upsertSession(late, before.version)).toBe(false);
    expect((await rowOf(t, key)).sessionId).toBe(after.row.sessionId);
  });

  it("evicting a session object right after an append still ends with the index up to date", async () => {
    const t = await freshTenant("evict");
    const key = "agent:main:evicted";
    await t.append("evicted", user("one"));
    await t.append("evicted", user("two"));
    await evictDurableObject(sessionStub(t, key));
    const row = await poll(
      () => rowOf(t, key),
      (r) => r?.messageCount === 2,
    );
    expect(row).toMatchObject({ messageCount: 2 });
  });

  it("a change committed but not yet published before eviction is published when the object wakes", async () => {
    const t = await freshTenant("wake");
    const key = "agent:main:unpublished";
    await t.append("unpublished", user("one"));
    // What a crash between the commit and the background publish leaves behind.
    await runInDurableObject(sessionStub(t, key), (_instance, state) => {
      state.storage.sql.exec("UPDATE entry SET json = json_set(json, '$.label', 'late-label'), version = version + 1");
    });
    await evictDurableObject(sessionStub(t, key));
    expect((await rowOf(t, key)).label).toBeUndefined();
    // Any request that wakes the object publishes the pending change.
    expect((await t.call("/sessions/unpublished/history")).status).toBe(200);
    const row = await poll(
      () => rowOf(t, key),
      (r) => r?.label === "late-label",
    );
    expect(row?.label).toBe("late-label");
  });

  // A commit writes its publish-retry alarm in the same turn; a crash before the publish
  // leaves exactly this state: the change and a due alarm, and nothing else waking the object.
  it("a committed but unpublished change reaches the index without another request to the session", async () => {
    const t = await freshTenant("nowake");
    const key = "agent:main:orphaned";
    await t.append("orphaned", user("one"));
    await runInDurableObject(sessionStub(t, key), async (_instance, state) => {
      state.storage.sql.exec("UPDATE entry SET json = json_set(json, '$.label', 'orphan'), version = version + 1");
      await state.storage.setAlarm(Date.now() + 200);
    });
    await evictDurableObject(sessionStub(t, key));
    const row = await poll(
      () => rowOf(t, key),
      (r) => r?.label === "orphan",
      2500,
    );
    expect(row?.label).toBe("orphan");
  });

  it("a late upsert for a deleted session does not resurrect it, even after the key is reused", async () => {
    const t = await freshTenant("zombie");
    const key = "agent:main:doomed";
    await t.append("doomed", user("bye"));
    const snapshot = (await sessionStub(t, key).indexSnapshot())!;
    expect((await t.call("/v1/sessions/doomed", { method: "DELETE" })).status).toBe(200);

    const late = { ...snapshot.row, messageCount: 9, updatedAt: snapshot.row.updatedAt + 60_000 };
    expect(await tenantStub(t).upsertSession(late, snapshot.version + 10)).toBe(false);
    expect(await rowOf(t, key)).toBeUndefined();
    expect(await tenantStub(t).keyForSessionId(snapshot.row.sessionId)).toBeNull();

    // The key comes back as a new session; the old row still cannot overwrite it.
    const again = await t.append("doomed", user("hello again"));
    expect(await tenantStub(t).upsertSession(late, snapshot.version + 10)).toBe(false);
    expect(await rowOf(t, key)).toMatchObject({ sessionId: again.data.sessionId, messageCount: 1 });
  });

  it("POST /v1/admin/tenants/{id}/reindex rebuilds a cleared index from the session objects", async () => {
    const t = await freshTenant("reindex");
    await t.append("main", user("hi"));
    await t.patch("child", { spawnedBy: "main", label: "kid" });
    await t.append("agent:ops:work", user("ops work"));
    await t.append("renewed", user("before reset"));
    await t.call("/v1/sessions/renewed/reset", { method: "POST" });
    await t.append("gone", user("deleted soon"));
    await t.call("/v1/sessions/gone", { method: "DELETE" });
    const before = await t.list();
    expect(before.data.count).toBe(4);

    await runInDurableObject(tenantStub(t), (_instance, state) => {
      state.storage.sql.exec("DELETE FROM sessions");
    });
    expect((await t.list()).data.count).toBe(0);

    expect((await call(`/v1/admin/tenants/${t.id}/reindex`, { method: "POST", token: DEV })).status).toBe(401);
    const rebuilt = await call(`/v1/admin/tenants/${t.id}/reindex`, { method: "POST", token: ADMIN });
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.data).toEqual({ ok: true, sessions: 4 });
    const byKey = (rows: Array<{ key: string }>) => [...rows].sort((a, b) => a.key.localeCompare(b.key));
    const after = await t.list();
    expect(byKey(after.data.sessions)).toEqual(byKey(before.data.sessions));
    // Tool reads go through the rebuilt index too: the child is still in main's tree.
    const listed = await t.invoke("sessions_list", {});
    expect(listed.data.result.details.sessions.map((s: { key: string }) => s.key).sort()).toEqual([
      "agent:main:child",
      "main",
    ]);
  });

  it("reindex answers 404 for a tenant that does not exist", async () => {
    const res = await call("/v1/admin/tenants/no-such-tenant/reindex", { method: "POST", token: ADMIN });
    expect(res.status).toBe(404);
  });
});

describe("PATCH /v1/sessions/{key} (sessions.patch)", () => {
  it("creates the session when absent and answers { ok, path, key, entry, resolved }", async () => {
    const t = await freshTenant("patchnew");
    // main's runner offers its own model and the one of another runner at the same endpoint.
    const endpoint = "http://127.0.0.1:9/v1";
    await t.config({
      agents: {
        defaults: { model: "gpt-test", runner: { type: "openai", baseUrl: endpoint, model: "gpt-test" } },
        list: [
          { id: "main", default: true },
          { id: "alt", runner: { type: "openai", baseUrl: endpoint, model: "override-model" } },
        ],
      },
    });
    const res = await t.patch("brand-new", { label: "fresh", thinkingLevel: "high" });
    expect(res.status).toBe(200);
    expect(res.data).toEqual({
      ok: true,
      path: "(multiple)",
      key: "agent:main:brand-new",
      entry: expect.objectContaining({
        key: "agent:main:brand-new",
        agentId: "main",
        sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        label: "fresh",
        thinkingLevel: "high",
        messageCount: 0,
      }),
      resolved: { model: "gpt-test" },
    });
    // A second patch updates the same session.
    const again = await t.patch("agent:main:brand-new", { model: "override-model" });
    expect(again.data.entry.sessionId).toBe(res.data.entry.sessionId);
    expect(again.data.resolved).toEqual({ model: "override-model" });
    expect(await rowOf(t, "agent:main:brand-new")).toMatchObject({ label: "fresh", model: "override-model" });
  });

  it("null clears a field and undefined leaves it alone", async () => {
    const t = await freshTenant("patchnull");
    await t.patch("clearable", { label: "keep-or-clear", model: "echo", verboseLevel: "on" });
    const cleared = await t.patch("clearable", { label: null, model: null });
    expect(cleared.status).toBe(200);
    expect(cleared.data.entry.label).toBeUndefined();
    expect(cleared.data.entry.model).toBeUndefined();
    expect(cleared.data.entry.verboseLevel).toBe("on");
    const row = await rowOf(t, "agent:main:clearable");
    expect(row.label).toBeUndefined();
    expect(row.model).toBeUndefined();
    expect(row.verboseLevel).toBe("on");
  });

  it("sendPolicy takes allow, deny or null (inherit) and nothing else", async () => {
    const t = await freshTenant("sendpolicy");
    expect((await t.patch("gated", { sendPolicy: "deny" })).data.entry.sendPolicy).toBe("deny");
    expect((await rowOf(t, "agent:main:gated")).sendPolicy).toBe("deny");
    expect((await t.patch("gated", { sendPolicy: "allow" })).data.entry.sendPolicy).toBe("allow");
    expect((await t.patch("gated", { sendPolicy: null })).data.entry.sendPolicy).toBeUndefined();
    const bad = await t.patch("gated", { sendPolicy: "inherit" });
    expect(bad.status).toBe(400);
    expect(bad.data.error).toMatchObject({ type: "invalid_request", message: expect.stringContaining("sendPolicy") });
  });

  it("rejects unknown fields, bad values and malformed keys with 400 and creates nothing", async () => {
    const t = await freshTenant("patchbad");
    const cases: Array<[string, unknown, string]> = [
      ["p1", { bogus: 1 }, "bogus"],
      ["p2", { label: "" }, "label"],
      ["p3", { label: "x".repeat(513) }, "label"],
      ["p4", { spawnDepth: -1 }, "spawnDepth"],
      ["p5", { fastMode: "yes" }, "fastMode"],
      ["p6", { responseUsage: "loud" }, "responseUsage"],
      ["p7", { subagentRole: "boss" }, "subagentRole"],
      ["p8", ["label"], ""],
    ];
    for (const [key, body, field] of cases) {
      const res = await t.call(`/v1/sessions/${key}`, { method: "PATCH", json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.data.error.type).toBe("invalid_request");
      expect(res.data.error.message).toContain(field);
    }
    const malformed = await t.patch("agent:main", { label: "x" });
    expect(malformed.status).toBe(400);
    expect(malformed.data.error.message).toBe('malformed session key "agent:main"');
    expect((await t.list()).data.count).toBe(0);
  });

  it("requires operator.write", async () => {
    const t = await freshTenant("patchscope");
    const reader = await issueToken(t.id, ["operator.read"]);
    const res = await call(`${t.prefix}/v1/sessions/x`, { method: "PATCH", token: reader.token, json: { label: "x" } });
    expect(res.status).toBe(403);
    expect(res.data).toEqual({ ok: false, error: { type: "forbidden", message: "missing scope: operator.write" } });
  });
});

describe("sessions.resolve (domain, as the gateway will call it)", () => {
  const ctxOf = (t: TestTenant): TenantContext => ({
    ...tenantPorts(env, t.id),
    tenantId: t.id,
    config: {},
    principal: { kind: "operator", scopes: ["operator.admin"] },
  });
  async function failure(promise: Promise<unknown>): Promise<DomainError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }

  it("takes exactly one of key, sessionId or label", async () => {
    const t = await freshTenant("resolve1");
    const ctx = ctxOf(t);
    expect((await failure(resolveSession(ctx, { key: "main", label: "x" }))).message).toBe(
      "Provide either key, sessionId, or label (not multiple)",
    );
    expect((await failure(resolveSession(ctx, {}))).message).toBe("Either key, sessionId, or label is required");
    expect((await failure(resolveSession(ctx, { key: "  " }))).message).toBe(
      "Either key, sessionId, or label is required",
    );
  });

  it("resolves a key, a sessionId (current or from before a reset) and a unique label to the canonical key", async () => {
    const t = await freshTenant("resolve2");
    const ctx = ctxOf(t);
    const created = await t.append("main", user("x"));
    await t.patch("labelled", { label: "Build Bot" });
    expect(await resolveSession(ctx, { key: "main" })).toBe("agent:main:main");
    expect(await resolveSession(ctx, { sessionId: created.data.sessionId })).toBe("agent:main:main");
    await t.call("/v1/sessions/main/reset", { method: "POST" });
    expect(await resolveSession(ctx, { sessionId: created.data.sessionId })).toBe("agent:main:main");
    expect(await resolveSession(ctx, { label: "Build Bot" })).toBe("agent:main:labelled");
    // A blank field next to a real one does not count as given.
    expect(await resolveSession(ctx, { key: " ", sessionId: created.data.sessionId })).toBe("agent:main:main");
    expect(await resolveSession(ctx, { sessionId: "", label: "Build Bot" })).toBe("agent:main:labelled");
  });

  it("answers OpenClaw's not-found and ambiguity texts", async () => {
    const t = await freshTenant("resolve3");
    const ctx = ctxOf(t);
    await t.patch("one", { label: "dup" });
    await tick();
    await t.patch("two", { label: "dup" });
    await t.patch("agent:ops:three", { label: "solo" });
    const missingKey = await failure(resolveSession(ctx, { key: "nope" }));
    expect([missingKey.code, missingKey.message]).toEqual(["not_found", "No session found: nope"]);
    const id = "0f8fad5b-d9cb-469f-a165-70867728950e";
    expect((await failure(resolveSession(ctx, { sessionId: id }))).message).toBe(`No session found: ${id}`);
    expect((await failure(resolveSession(ctx, { label: "none" }))).message).toBe("No session found with label: none");
    const ambiguous = await failure(resolveSession(ctx, { label: "dup" }));
    expect([ambiguous.code, ambiguous.message]).toEqual([
      "invalid",
      "Multiple sessions found with label: dup (agent:main:two, agent:main:one)",
    ]);
    expect(await resolveSession(ctx, { label: "solo", agentId: "OPS" })).toBe("agent:ops:three");
    expect((await failure(resolveSession(ctx, { label: "solo", agentId: "main" }))).code).toBe("not_found");
  });

  it("spawnedBy limits matches to the given parent's children; global/unknown need their include flag", async () => {
    const t = await freshTenant("resolve4");
    const ctx = ctxOf(t);
    await t.patch("kid", { spawnedBy: "main", label: "kid" });
    await t.patch("other", { label: "other" });
    await t.append("global", user("g"));
    expect(await resolveSession(ctx, { key: "kid", spawnedBy: "main" })).toBe("agent:main:kid");
    expect((await failure(resolveSession(ctx, { key: "other", spawnedBy: "main" }))).code).toBe("not_found");
    expect((await failure(resolveSession(ctx, { label: "other", spawnedBy: "main" }))).code).toBe("not_found");
    expect((await failure(resolveSession(ctx, { key: "global" }))).message).toBe("No session found: global");
    expect(await resolveSession(ctx, { key: "global", includeGlobal: true })).toBe("global");
  });
});
