import { afterEach, describe, expect, it } from "vitest";
import { ADMIN, call, createTenant, freshTenant, issueToken } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

const open: GatewayClient[] = [];
afterEach(() => {
  for (const client of open.splice(0)) client.close();
});

async function handshake(path: string, token: string, scopes?: string[]) {
  const client = await GatewayClient.open(path);
  open.push(client);
  return { client, hello: await client.handshake({ token, ...(scopes ? { scopes } : {}) }) };
}

describe("gateway handshake caches", () => {
  it("refuses a token revoked right after it connected, although its access was cached", async () => {
    const tenant = `tokcache-${crypto.randomUUID().slice(0, 8)}`;
    await createTenant(tenant);
    const issued = await issueToken(tenant);
    const first = await handshake(`/t/${tenant}`, issued.token);
    expect(first.hello.ok).toBe(true);
    const revoked = await call(`/v1/admin/tenants/${tenant}/tokens/${issued.tokenId}`, {
      method: "DELETE",
      token: ADMIN,
    });
    expect(revoked.status).toBeLessThan(300);
    const second = await handshake(`/t/${tenant}`, issued.token);
    expect(second.hello.ok).toBe(false);
    expect(second.hello.error).toMatchObject({ details: { code: "AUTH_TOKEN_MISMATCH" } });
  });

  it("gives each connection its own connId and the scopes it was granted from one cached hello-ok", async () => {
    const tenant = await freshTenant("hellocache");
    const a = await handshake(tenant.prefix, tenant.token);
    const b = await handshake(tenant.prefix, tenant.token);
    const reader = await handshake(tenant.prefix, tenant.token, ["operator.read"]);
    for (const { hello } of [a, b, reader]) expect(hello.payload.type).toBe("hello-ok");
    expect(a.hello.payload.server.connId).not.toBe(b.hello.payload.server.connId);
    expect(typeof a.hello.payload.snapshot.uptimeMs).toBe("number");
    expect(a.hello.payload.auth.scopes).toContain("operator.write");
    expect(reader.hello.payload.auth.scopes).toEqual(["operator.read"]);
    // Apart from the connection's own fields, two connections get the same document.
    const strip = (payload: any) => ({
      ...payload,
      server: { ...payload.server, connId: "" },
      snapshot: { ...payload.snapshot, uptimeMs: 0 },
    });
    expect(strip(b.hello.payload)).toEqual(strip(a.hello.payload));
  });

  it("builds hello-ok anew after the tenant's config changed", async () => {
    const tenant = await freshTenant("helloconfig");
    const before = await handshake(tenant.prefix, tenant.token);
    expect(before.hello.payload.snapshot.sessionDefaults.mainKey).toBe("main");
    const put = await tenant.config({ session: { mainKey: "home" } });
    expect(put.status).toBe(200);
    const after = await handshake(tenant.prefix, tenant.token);
    expect(after.hello.payload.snapshot.sessionDefaults).toMatchObject({
      mainKey: "home",
      mainSessionKey: "agent:main:home",
    });
  });
});
