import { describe, expect, it } from "vitest";
import { ADMIN, call } from "../support/helpers";

// Its own file so the default tenant starts untouched (storage is isolated per file): the admin
// API lists it as active before anyone used it, so every admin call must treat it as created.
const admin = (path: string, init: Parameters<typeof call>[1] = {}) =>
  call(`/v1/admin${path}`, { token: ADMIN, ...init });
const SCOPES = ["operator.read", "operator.write"];

describe("admin: the default tenant before its first use", () => {
  it("is listed as active and behaves as any tenant: tokens, info, limits, reindex, deletion", {
    timeout: 60_000,
  }, async () => {
    const listed = (await admin("/tenants?limit=500")).data.tenants.find((t: any) => t.id === "default");
    expect(listed).toMatchObject({ id: "default", status: "active" });

    const issued = await admin("/tenants/default/tokens", { method: "POST", json: { scopes: SCOPES, label: "first" } });
    expect(issued.status, issued.text).toBe(201);
    expect((await call("/v1/sessions", { token: issued.data.token })).status).toBe(200);
    expect((await call("/t/default/v1/sessions", { token: issued.data.token })).status).toBe(200);

    expect((await admin("/tenants/default")).data.tenant).toMatchObject({ id: "default", status: "active", tokens: 1 });
    const tokens = await admin("/tenants/default/tokens");
    expect(tokens.data.tokens.map((t: any) => t.tokenId)).toEqual([issued.data.tokenId]);
    expect((await admin("/tenants/default/limits")).status).toBe(200);
    expect((await admin("/tenants/default/reindex", { method: "POST" })).status).toBe(200);

    // Deleting it empties it (its tokens stop working); it is made again, empty, on its next use.
    let deleted: Awaited<ReturnType<typeof admin>> | undefined;
    for (let step = 0; step < 20 && !deleted?.data?.done; step++)
      deleted = await admin("/tenants/default", { method: "DELETE" });
    expect(deleted!.data).toMatchObject({ tenantId: "default", status: "deleted", done: true });
    expect((await call("/v1/sessions", { token: issued.data.token })).status).toBe(401);
    const again = await admin("/tenants/default/tokens", { method: "POST", json: { scopes: SCOPES } });
    expect(again.status, again.text).toBe(201);
    expect((await admin("/tenants/default")).data.tenant).toMatchObject({ status: "active", tokens: 1, sessions: 0 });
  });

  it("still answers 404 for a tenant nobody created", async () => {
    const res = await admin("/tenants/nobody-made-this/tokens", { method: "POST", json: { scopes: SCOPES } });
    expect(res.status).toBe(404);
    expect(res.data.error.message).toBe("Tenant not found: nobody-made-this");
  });
});
