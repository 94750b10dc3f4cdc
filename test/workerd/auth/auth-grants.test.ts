import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { forgetAccess, resetIsolateAccess } from "../../../src/auth/access-cache";
import { accessGrant, sealAccessGrant } from "../../../src/auth/access-grant";
import { authenticate } from "../../../src/auth/authenticate";
import type { TenantObject } from "../../../src/tenant/tenant-object";
import { ADMIN, call, DEV, freshTenant, type TestTenant } from "../support/helpers";

// Sealed access grants (src/auth/grant-cache.ts): an isolate whose own access cache is empty
// authenticates from the data center's cache instead of asking the tenant object. Here every
// isolate is this one: `resetIsolateAccess` empties its access state as a fresh isolate's is.

type Counted = { authCalls?: number; parts: { access: { authenticate(tokenId: string, hash: string): unknown } } };

/** Counts the tenant object's token checks (each is a round trip from a worker isolate). */
async function countTokenChecks(t: TestTenant): Promise<() => Promise<number>> {
  const tenant = env.TENANTS.getByName(t.id);
  await runInDurableObject(tenant, (object: TenantObject) => {
    const instance = object as unknown as Counted;
    const authenticate = instance.parts.access.authenticate.bind(instance.parts.access);
    instance.authCalls = 0;
    instance.parts.access.authenticate = (tokenId, hash) => {
      instance.authCalls! += 1;
      return authenticate(tokenId, hash);
    };
  });
  return () => runInDurableObject(tenant, (object: TenantObject) => (object as unknown as Counted).authCalls ?? 0);
}

/** Deletes a token in the tenant's storage only: no grant is retired, no isolate told. */
async function deleteTokenSilently(t: TestTenant) {
  const tokenId = /^ocs_([0-9a-f]{16})\./.exec(t.token)![1]!;
  await runInDurableObject(env.TENANTS.getByName(t.id), (object: TenantObject) => {
    (object as unknown as { parts: { tokens: { deleteToken(id: string): boolean } } }).parts.tokens.deleteToken(
      tokenId,
    );
  });
}

const sessions = (t: TestTenant) => t.call("/v1/sessions?limit=1");

/**
 * Stands in for a tenant object in another data center than this worker: the grants it retires
 * there are not the ones kept here (the cache is per data center).
 */
async function tenantObjectElsewhere(t: TestTenant) {
  await runInDurableObject(env.TENANTS.getByName(t.id), (object: TenantObject) => {
    (object as unknown as { parts: { access: { retireGrants(): Promise<void> } } }).parts.access.retireGrants =
      async () => {};
  });
}

describe("sealed access grants", () => {
  it("serve an isolate with an empty access cache without asking the tenant object", async () => {
    const t = await freshTenant("grant-serve");
    const checks = await countTokenChecks(t);
    expect((await sessions(t)).status).toBe(200);
    expect(await checks()).toBe(1);
    for (let i = 0; i < 5; i++) {
      resetIsolateAccess();
      expect((await sessions(t)).status).toBe(200);
    }
    expect(await checks()).toBe(1);
    // Served from the grant alone: the token is gone from the tenant, the grant still answers.
    await deleteTokenSilently(t);
    resetIsolateAccess();
    expect((await sessions(t)).status).toBe(200);
  });

  it("are retired by a revoke: the token is refused on the next request", async () => {
    const t = await freshTenant("grant-revoke");
    expect((await sessions(t)).status).toBe(200);
    const tokenId = /^ocs_([0-9a-f]{16})\./.exec(t.token)![1]!;
    const revoked = await call(`/v1/admin/tenants/${t.id}/tokens/${tokenId}`, { method: "DELETE", token: ADMIN });
    expect(revoked.status).toBe(200);
    const refused = await sessions(t);
    expect(refused.status).toBe(401);
    // Also in an isolate that did not see the revoke (its access cache never held the token).
    resetIsolateAccess();
    expect((await sessions(t)).status).toBe(401);
  });

  it("are retired by a config change made in the tenant object (a gateway config.set)", async () => {
    const t = await freshTenant("grant-config");
    const checks = await countTokenChecks(t);
    expect((await sessions(t)).status).toBe(200);
    const config = (await env.TENANTS.getByName(t.id).config()) as Record<string, unknown>;
    const written = await env.TENANTS.getByName(t.id).putConfig({ ...config, displayName: "changed" } as never);
    expect(written.ok).toBe(true);
    resetIsolateAccess();
    expect((await sessions(t)).status).toBe(200);
    expect(await checks()).toBe(2);
  });

  it("are retired in the worker's data center by a config change over HTTP, wherever the tenant object is", async () => {
    const t = await freshTenant("grant-config-http");
    const checks = await countTokenChecks(t);
    expect((await sessions(t)).status).toBe(200);
    await tenantObjectElsewhere(t);
    expect((await t.config({ agents: { list: [{ id: "main", default: true }] } })).status).toBe(200);
    // Another isolate of this data center: the grant holding the old config is not served.
    resetIsolateAccess();
    expect((await sessions(t)).status).toBe(200);
    expect(await checks()).toBe(2);
  });

  it("are retired in the worker's data center by a tenant's deletion, wherever the tenant object is", async () => {
    const t = await freshTenant("grant-delete");
    expect((await sessions(t)).status).toBe(200);
    await tenantObjectElsewhere(t);
    const deleted = await call(`/v1/admin/tenants/${t.id}`, { method: "DELETE", token: ADMIN });
    expect(deleted.status).toBeLessThan(300);
    resetIsolateAccess();
    expect((await sessions(t)).status).toBe(401);
  });

  it("are not trusted by an isolate that forgot the tenant, though the cache holds no newer epoch", async () => {
    const t = await freshTenant("grant-forgotten");
    expect((await sessions(t)).status).toBe(200);
    await deleteTokenSilently(t);
    // What this isolate does after a config change it made (the epoch may be written elsewhere).
    forgetAccess(t.id);
    expect((await sessions(t)).status).toBe(401);
  });

  it("refuse a grant not sealed with the deployment secret", async () => {
    const t = await freshTenant("grant-forged");
    expect((await sessions(t)).status).toBe(200);
    const granted = await env.TENANTS.getByName(t.id).config();
    await deleteTokenSilently(t);
    // Overwrite every grant of the tenant in the cache with one sealed with another key.
    const tokenHash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(t.token)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    const forged = await sealAccessGrant(
      "not-the-deployment-secret",
      accessGrant(
        t.id,
        tokenHash,
        { principal: { kind: "operator", scopes: ["operator.admin"] }, config: granted },
        Date.now(),
      ),
    );
    const keyHash = [
      ...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`access-grant:${tokenHash}`))),
    ]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    await caches.default.put(
      `https://access-grants.invalid/${t.id}/grant/${keyHash}`,
      new Response(forged, { headers: { "cache-control": "max-age=30" } }),
    );
    resetIsolateAccess();
    expect((await sessions(t)).status).toBe(401);
  });

  it("for the dev token serve only while it is still the dev token (a deploy that unsets or changes it)", async () => {
    const tenantId = env.DEFAULT_TENANT;
    resetIsolateAccess();
    expect(await authenticate(env, tenantId, DEV)).toMatchObject({ principal: { kind: "operator" } });
    resetIsolateAccess();
    expect(await authenticate({ ...env, DEV_OPERATOR_TOKEN: "" }, tenantId, DEV)).toBeNull();
    resetIsolateAccess();
    expect(await authenticate({ ...env, DEV_OPERATOR_TOKEN: "another-dev-token" }, tenantId, DEV)).toBeNull();
  });

  it("measure: round trips to the tenant object per 1,000 authenticated requests", async () => {
    const t = await freshTenant("grant-measure");
    const checks = await countTokenChecks(t);
    const started = Date.now();
    for (let i = 0; i < 1000; i++) expect((await sessions(t)).status).toBe(200);
    const warm = await checks();
    const warmSeconds = (Date.now() - started) / 1000;
    // Each request in an isolate of its own (its access cache empty): the many-isolate case.
    for (let i = 0; i < 1000; i++) {
      resetIsolateAccess();
      expect((await sessions(t)).status).toBe(200);
    }
    const cold = (await checks()) - warm;
    console.log(
      `round trips per 1,000 requests: one warm isolate ${warm} (${warmSeconds.toFixed(1)} s), every request in a fresh isolate ${cold}`,
    );
    expect(cold).toBeLessThanOrEqual(2);
  }, 120_000);
});
