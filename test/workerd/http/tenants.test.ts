import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, append, call, createTenant, DEV, history, issueToken, user } from "../support/helpers";

describe("admin API", () => {
  it("refuses requests without the admin token", async () => {
    expect((await call("/v1/admin/tenants", { method: "POST", token: null, json: { id: "x" } })).status).toBe(401);
    expect((await call("/v1/admin/tenants", { method: "POST", token: DEV, json: { id: "x" } })).status).toBe(401);
  });

  it("creates a tenant once and answers 409 after", async () => {
    const first = await call("/v1/admin/tenants", { method: "POST", token: ADMIN, json: { id: "acme" } });
    expect(first.status).toBe(201);
    expect(first.data).toEqual({ id: "acme" });
    const again = await call("/v1/admin/tenants", { method: "POST", token: ADMIN, json: { id: "acme" } });
    expect(again.status).toBe(409);
    expect(again.data.ok).toBe(false);
  });

  it("rejects tenant ids outside [a-z0-9][a-z0-9-]{0,62}", async () => {
    for (const id of ["", "-x", "Acme", "a_b", "a".repeat(64), "a/b"]) {
      const res = await call("/v1/admin/tenants", { method: "POST", token: ADMIN, json: { id } });
      expect(res.status, id).toBe(400);
      expect(res.data.error.type).toBe("invalid_request");
    }
  });

  it("issues a token shown once and stores only its hash", async () => {
    await createTenant("hashy");
    const issued = await issueToken("hashy", ["operator.read"]);
    expect(issued.token).toMatch(/^ocs_[0-9a-f]{16}\./);
    expect(issued.scopes).toEqual(["operator.read"]);
    const stored = await runInDurableObject(env.TENANTS.getByName("hashy"), (_i, state) =>
      state.storage.sql.exec("SELECT hash FROM tokens").toArray(),
    );
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(issued.token.split(".")[1]);
  });

  it("refuses unknown scopes and unknown tenants", async () => {
    await createTenant("scopes");
    const bad = await call("/v1/admin/tenants/scopes/tokens", {
      method: "POST",
      token: ADMIN,
      json: { scopes: ["root"] },
    });
    expect(bad.status).toBe(400);
    const missing = await call("/v1/admin/tenants/nope/tokens", {
      method: "POST",
      token: ADMIN,
      json: { scopes: ["operator.read"] },
    });
    expect(missing.status).toBe(404);
  });

  it("revokes a token so it stops working at once", async () => {
    await createTenant("revoke");
    const { tokenId, token } = await issueToken("revoke");
    expect((await append("main", user("hi"), { token, prefix: "/t/revoke" })).status).toBe(201);
    const revoked = await call(`/v1/admin/tenants/revoke/tokens/${tokenId}`, { method: "DELETE", token: ADMIN });
    expect(revoked.status).toBe(200);
    expect((await history("main", "", { token, prefix: "/t/revoke" })).status).toBe(401);
    expect((await call(`/v1/admin/tenants/revoke/tokens/${tokenId}`, { method: "DELETE", token: ADMIN })).status).toBe(
      404,
    );
  });
});

describe("tenant isolation", () => {
  it("answers 401 for a token of tenant A used on tenant B, leaking nothing of B", async () => {
    await createTenant("alpha");
    await createTenant("beta");
    const a = await issueToken("alpha");
    const b = await issueToken("beta");
    await append("secret-session", user("beta secret"), { token: b.token, prefix: "/t/beta" });
    const res = await history("secret-session", "", { token: a.token, prefix: "/t/beta" });
    expect(res.status).toBe(401);
    expect(res.data).toEqual({ ok: false, error: { type: "unauthorized", message: "Unauthorized" } });
    // The same key on tenant A is a different (missing) session.
    expect((await history("secret-session", "", { token: a.token, prefix: "/t/alpha" })).status).toBe(404);
  });

  it("answers 401 the same way for a tenant that does not exist", async () => {
    await createTenant("gamma");
    const a = await issueToken("gamma");
    const res = await history("main", "", { token: a.token, prefix: "/t/ghost" });
    expect(res.status).toBe(401);
    expect(res.data.error.type).toBe("unauthorized");
  });

  it("serves the default tenant both at the root and under /t/default", async () => {
    expect((await append("main", user("root"))).status).toBe(201);
    const viaPrefix = await history("main", "", { prefix: "/t/default" });
    expect(viaPrefix.status).toBe(200);
    expect(viaPrefix.data.messages.map((m: any) => m.content)).toContain("root");
  });

  it("does not accept the dev operator token on other tenants", async () => {
    await createTenant("devless");
    expect((await history("main", "", { token: DEV, prefix: "/t/devless" })).status).toBe(401);
  });
});

describe("scopes", () => {
  it("lets a read-only token read but not write", async () => {
    await createTenant("readonly");
    const writer = await issueToken("readonly", ["operator.write"]);
    const reader = await issueToken("readonly", ["operator.read"]);
    expect((await append("s1", user("x"), { token: writer.token, prefix: "/t/readonly" })).status).toBe(201);
    const denied = await append("s1", user("y"), { token: reader.token, prefix: "/t/readonly" });
    expect(denied.status).toBe(403);
    expect(denied.data).toEqual({ ok: false, error: { type: "forbidden", message: "missing scope: operator.write" } });
    expect((await history("s1", "", { token: reader.token, prefix: "/t/readonly" })).status).toBe(200);
    // operator.write implies read.
    expect((await history("s1", "", { token: writer.token, prefix: "/t/readonly" })).status).toBe(200);
  });
});
