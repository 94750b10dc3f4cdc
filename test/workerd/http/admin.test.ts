import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ADMIN, call, createTenant, freshTenant, issueToken, user } from "../support/helpers";

const admin = (path: string, init: Parameters<typeof call>[1] = {}) =>
  call(`/v1/admin${path}`, { token: ADMIN, ...init });

afterEach(() => vi.restoreAllMocks());

describe("admin: tenants", () => {
  it("lists tenants by id, page by page, with the default tenant", async () => {
    const prefix = `list-${crypto.randomUUID().slice(0, 6)}`;
    const ids = [`${prefix}-a`, `${prefix}-b`, `${prefix}-c`];
    for (const id of ids) await createTenant(id);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res = await admin(`/tenants?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.data.tenants.length).toBeLessThanOrEqual(2);
      seen.push(...res.data.tenants.map((t: any) => t.id));
      if (!res.data.hasMore) break;
      cursor = res.data.nextCursor;
    }
    expect(seen).toEqual([...seen].sort());
    expect(seen.filter((id) => id.startsWith(prefix))).toEqual(ids);
    expect(seen).toContain("default");
    const one = (await admin("/tenants?limit=500")).data.tenants.find((t: any) => t.id === ids[0]);
    expect(one).toMatchObject({ id: ids[0], status: "active" });
    expect(one.createdAt).toBeTypeOf("number");
  });

  it("shows one tenant with its counts, 404 for an unknown one", async () => {
    const t = await freshTenant("info");
    await t.append("main", user("hi"));
    const res = await admin(`/tenants/${t.id}`);
    expect(res.status).toBe(200);
    expect(res.data.tenant).toMatchObject({ id: t.id, status: "active", sessions: 1, tokens: 1 });
    expect((await admin("/tenants/no-such-tenant")).status).toBe(404);
    expect((await admin("/tenants/NOT_AN_ID")).status).toBe(404);
  });

  it("answers 400 for a bad list limit", async () => {
    expect((await admin("/tenants?limit=0")).status).toBe(400);
    expect((await admin("/tenants?limit=x")).status).toBe(400);
  });
});

describe("admin: tokens", () => {
  it("lists a tenant's tokens newest first with scopes, label, created and last used, never the secret", async () => {
    const id = `tokens-${crypto.randomUUID().slice(0, 8)}`;
    await createTenant(id);
    const issued: any[] = [];
    for (const [label, scopes] of [
      ["reader", ["operator.read"]],
      ["writer", ["operator.write"]],
      ["ops", ["operator.admin"]],
    ] as const) {
      const res = await admin(`/tenants/${id}/tokens`, { method: "POST", json: { scopes, label } });
      expect(res.status).toBe(201);
      issued.push(res.data);
    }
    const before = await admin(`/tenants/${id}/tokens`);
    expect(before.status).toBe(200);
    expect(before.data.tokens.map((t: any) => t.label).sort()).toEqual(["ops", "reader", "writer"]);
    for (const token of before.data.tokens) {
      expect(Object.keys(token).sort()).toEqual(["createdAt", "label", "scopes", "tokenId"]);
    }
    for (const { token } of issued) expect(before.text).not.toContain(token.split(".")[1]);

    expect((await call(`/t/${id}/v1/sessions`, { token: issued[0].token })).status).toBe(200);
    const after = await admin(`/tenants/${id}/tokens`);
    const reader = after.data.tokens.find((t: any) => t.tokenId === issued[0].tokenId);
    expect(reader).toMatchObject({ label: "reader", scopes: ["operator.read"] });
    expect(reader.lastUsedAt).toBeGreaterThanOrEqual(reader.createdAt);

    const paged: string[] = [];
    let cursor = "";
    for (let i = 0; i < 5; i++) {
      const res = await admin(`/tenants/${id}/tokens?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      paged.push(...res.data.tokens.map((t: any) => t.tokenId));
      if (!res.data.hasMore) break;
      cursor = res.data.nextCursor;
    }
    expect(paged).toEqual(after.data.tokens.map((t: any) => t.tokenId));
    expect((await admin(`/tenants/${id}/tokens?cursor=garbage`)).status).toBe(400);
    expect((await admin("/tenants/no-such-tenant/tokens")).status).toBe(404);
  });
});

describe("admin: deleting a tenant", () => {
  it("deletes sessions, transcripts, runs, attachments, tokens and config in bounded steps, safe to repeat", async () => {
    const t = await freshTenant("del");
    expect((await t.config({ session: { mainKey: "home" } })).status).toBe(200);
    const keys = Array.from({ length: 30 }, (_, i) => `agent:main:s${i}`);
    for (const key of keys) expect((await t.append(key, user(`message in ${key}`))).status).toBe(201);
    const run = await t.append("agent:main:s0", user("a run", { run: true }));
    await t.call(`/v1/runs/${run.data.runId}?wait=10`);
    await env.ATTACHMENTS.put(`${t.id}/agent:main:s1/.openclaw/attachments/x/a.txt`, "a");
    await env.ATTACHMENTS.put(`${t.id}/stray/b.txt`, "b");
    await env.ATTACHMENTS.put(`${t.id}x/other-tenant.txt`, "kept");

    const first = await admin(`/tenants/${t.id}`, { method: "DELETE" });
    expect(first.status).toBe(202);
    expect(first.data).toMatchObject({
      ok: true,
      tenantId: t.id,
      status: "deleting",
      done: false,
      sessions: { deleted: 25, failed: 0, remaining: 5 },
    });
    // Tokens are revoked at the first step.
    expect((await t.call("/v1/sessions")).status).toBe(401);
    expect((await admin("/tenants?limit=500")).data.tenants.find((x: any) => x.id === t.id)?.status).toBe("deleting");

    const second = await admin(`/tenants/${t.id}`, { method: "DELETE" });
    expect(second.status).toBe(200);
    expect(second.data).toMatchObject({ status: "deleted", done: true, sessions: { deleted: 5, remaining: 0 } });
    expect(second.data.attachments.deleted).toBeGreaterThanOrEqual(1);

    expect((await admin(`/tenants/${t.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await admin(`/tenants/${t.id}`)).status).toBe(404);
    expect((await admin("/tenants?limit=500")).data.tenants.some((x: any) => x.id === t.id)).toBe(false);
    expect((await env.ATTACHMENTS.list({ prefix: `${t.id}/` })).objects).toEqual([]);
    expect(await env.ATTACHMENTS.get(`${t.id}x/other-tenant.txt`)).not.toBeNull();
    for (const key of ["agent:main:s0", "agent:main:s29"]) {
      expect(await env.SESSIONS.getByName(`${t.id}/${key}`).entry()).toBeNull();
    }

    // The id is free again, and nothing of the old tenant comes back with it.
    await createTenant(t.id);
    const { token } = await issueToken(t.id);
    const fresh = (path: string) => call(`/t/${t.id}${path}`, { token });
    expect((await fresh("/v1/sessions")).data.sessions).toEqual([]);
    expect((await fresh("/v1/config")).data.config).toEqual({});
    expect((await fresh(`/v1/runs/${run.data.runId}`)).status).toBe(404);
  });
});

describe("admin: authentication and unknown routes", () => {
  it("answers 404 for an unknown admin route with the admin token, 401 with a bad one", async () => {
    const unknown = await admin("/no-such-thing");
    expect(unknown.status).toBe(404);
    expect(unknown.data.error.type).toBe("not_found");
    expect((await admin("/tenants/x/tokens/y/z")).status).toBe(404);
    expect((await call("/v1/admin/no-such-thing", { token: "wrong" })).status).toBe(401);
    expect((await call("/v1/admin/tenants", { token: null })).status).toBe(401);
  });

  it("logs refused requests with the route and the reason, never the token", async () => {
    const warn = vi.spyOn(console, "warn");
    await call("/v1/admin/tenants", { token: "wrong-admin-secret" });
    await call("/t/default/v1/sessions", {
      token: "ocs_0123456789abcdef.not-a-real-secret-aaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    });
    const lines = warn.mock.calls.map((args) => String(args[0])).filter((l) => l.includes('"auth.failed"'));
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed).toContainEqual(
      expect.objectContaining({ event: "auth.failed", surface: "http", path: "/v1/admin/tenants", method: "GET" }),
    );
    expect(parsed).toContainEqual(
      expect.objectContaining({
        event: "auth.failed",
        tenant: "default",
        reason: "token not valid for this tenant",
        path: "/t/default/v1/sessions",
      }),
    );
    expect(lines.join("\n")).not.toMatch(/wrong-admin-secret|not-a-real-secret/);
  });
});

describe("admin: deployment health", () => {
  it("reports a deployment with every secret set as healthy", async () => {
    expect((await admin("/health")).data).toEqual({ ok: true, healthy: true, problems: [] });
  });
});
