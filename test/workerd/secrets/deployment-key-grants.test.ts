import { describe, expect, inject, it } from "vitest";
import { ADMIN, call, freshTenant, grantDeploymentKey, type TestTenant, user } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * Deployment keys (MODEL_KEY_* secrets shared by every tenant) reach a tenant only when the
 * operator grants them, and only on the hosts DEPLOYMENT_KEY_HOSTS binds them to
 * (vitest.config.ts: MODEL_KEY_TEST on 127.0.0.1, MODEL_KEY_ELSEWHERE on api.example.com).
 */

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const TEST_KEY = "sk-test-deployment-0123456789abcdef";
const ELSEWHERE_KEY = "sk-test-elsewhere-0123456789abcdef";

const keys = (tenant: string, name = "") => `/v1/admin/tenants/${tenant}/deployment-keys${name ? `/${name}` : ""}`;

const withRunner = (t: TestTenant, runner: Record<string, unknown>) =>
  t.config({ agents: { list: [{ id: "main", default: true, runner }] } });

/** Runs one turn and answers the ended run (GET /v1/runs, read scope). */
async function runOnce(t: TestTenant, text: string) {
  const started = await t.append("main", user(text, { run: true }));
  expect(started.status).toBe(201);
  return (await t.call(`/v1/runs/${started.data.runId}?wait=10`)).data.run;
}

/** A peer path that records every request it gets: a tenant's "own host". */
async function probe() {
  const path = `/webhook/key-probe-${crypto.randomUUID().slice(0, 8)}`;
  const received = async () => (await (await fetch(`${peer}/control/recorded?path=${path}`)).json()) as unknown[];
  return { baseUrl: `${peer}${path}`, received };
}

describe("deployment keys are granted, not taken", () => {
  it("a tenant may name a key only once the operator granted it; its runs then send it to its bound host", async () => {
    const t = await freshTenant("dk-grant");
    const runner = { type: "openai", baseUrl: `${peer}/v1`, model: "auth-echo", apiKeySecret: "MODEL_KEY_TEST" };
    const refused = await withRunner(t, runner);
    expect(refused.status).toBe(400);
    expect(refused.data.error.message).toContain("deployment key MODEL_KEY_TEST not granted to this tenant");
    // The gateway's config writes go through the same check.
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    const { hash } = (await client.request("config.get", {})).payload;
    const patched = await client.request("config.patch", {
      raw: JSON.stringify({ agents: { defaults: { runner } } }),
      baseHash: hash,
    });
    client.close();
    expect(patched.ok).toBe(false);
    expect(patched.error.message).toContain("deployment key MODEL_KEY_TEST not granted to this tenant");

    const granted = await call(keys(t.id, "MODEL_KEY_TEST"), { method: "PUT", token: ADMIN });
    expect(granted.status).toBe(201);
    expect(granted.data).toEqual({
      ok: true,
      tenantId: t.id,
      created: true,
      key: {
        name: "MODEL_KEY_TEST",
        source: "admin",
        grantedAt: expect.any(Number),
        hosts: ["127.0.0.1"],
        set: true,
      },
    });
    expect(granted.text).not.toContain(TEST_KEY);
    expect((await call(keys(t.id, "MODEL_KEY_TEST"), { method: "PUT", token: ADMIN })).status).toBe(200);
    const listed = await call(keys(t.id), { token: ADMIN });
    expect(listed.data.keys.map((key: { name: string }) => key.name)).toEqual(["MODEL_KEY_TEST"]);

    expect((await withRunner(t, runner)).status).toBe(200);
    const run = await runOnce(t, "who am i");
    expect(run).toMatchObject({ status: "ok", reply: `AUTH: Bearer ${TEST_KEY}` });

    // The grant is this tenant's: another tenant still may not name the key.
    const other = await freshTenant("dk-other");
    expect((await withRunner(other, runner)).status).toBe(400);
  });

  it("a revoked grant fails the next run naming the key and the host, and nothing is sent", async () => {
    const t = await freshTenant("dk-revoke");
    await grantDeploymentKey(t.id, "MODEL_KEY_TEST");
    const host = await probe();
    expect(
      (await withRunner(t, { type: "openai", baseUrl: host.baseUrl, model: "m", apiKeySecret: "MODEL_KEY_TEST" }))
        .status,
    ).toBe(200);
    // Granted: the request reaches the host (which answers 404 here).
    expect((await runOnce(t, "granted")).error).toMatch(/^model endpoint answered 404/);
    expect(await host.received()).toHaveLength(1);

    const revoked = await call(keys(t.id, "MODEL_KEY_TEST"), { method: "DELETE", token: ADMIN });
    expect(revoked.data).toEqual({ ok: true, tenantId: t.id, name: "MODEL_KEY_TEST", revoked: true });
    const run = await runOnce(t, "revoked");
    expect(run.status).toBe("error");
    expect(run.error).toContain(
      'model API key secret MODEL_KEY_TEST is not granted to this tenant, so it is not sent to host "127.0.0.1"',
    );
    expect(JSON.stringify(run)).not.toContain(TEST_KEY);
    expect(await host.received()).toHaveLength(1);
    expect((await call(keys(t.id, "MODEL_KEY_TEST"), { method: "DELETE", token: ADMIN })).status).toBe(404);
  });

  it("a granted key is sent only to the hosts it is bound to, whatever baseUrl the tenant sets", async () => {
    const t = await freshTenant("dk-host");
    const grant = await grantDeploymentKey(t.id, "MODEL_KEY_ELSEWHERE");
    expect(grant.key.hosts).toEqual(["api.example.com"]);
    const host = await probe();
    const runner = { type: "openai", baseUrl: host.baseUrl, model: "m", apiKeySecret: "MODEL_KEY_ELSEWHERE" };
    expect((await withRunner(t, runner)).status).toBe(200);
    const run = await runOnce(t, "steal it");
    expect(run.error).toBe(
      'model API key secret MODEL_KEY_ELSEWHERE is not allowed for host "127.0.0.1" (it is bound to: api.example.com)',
    );
    expect(JSON.stringify(run)).not.toContain(ELSEWHERE_KEY);
    expect(await host.received()).toEqual([]);
    // An anthropic runner is held to the same binding.
    await withRunner(t, { type: "anthropic", baseUrl: host.baseUrl, model: "m", apiKeySecret: "MODEL_KEY_ELSEWHERE" });
    expect((await runOnce(t, "again")).error).toContain('is not allowed for host "127.0.0.1"');
    expect(await host.received()).toEqual([]);
  });

  it("a bound key (deployment key or store secret with allowedHosts) goes only over https to port 443 of its host", async () => {
    const t = await freshTenant("dk-https");
    await grantDeploymentKey(t.id, "MODEL_KEY_ELSEWHERE");
    const stored = "sk-store-bound-Zq81tL0vWm3Kp7Rj5Nw";
    const put = await t.call("/v1/secrets/BOUND_KEY", {
      method: "PUT",
      json: { value: stored, allowedHosts: ["api.example.com"] },
    });
    expect(put.status, put.text).toBe(200);
    const cases = [
      ["http://api.example.com/v1", "it is sent only over https, not to http://api.example.com (http)"],
      [
        "https://api.example.com:8960/v1",
        "it is sent only to the default port 443, not to https://api.example.com:8960",
      ],
    ] as const;
    for (const [baseUrl, why] of cases) {
      await withRunner(t, { type: "openai", baseUrl, model: "m", apiKeySecret: "MODEL_KEY_ELSEWHERE" });
      const run = await runOnce(t, "in clear text?");
      expect(run.error).toBe(`model API key secret MODEL_KEY_ELSEWHERE is bound to host "api.example.com": ${why}`);
      await withRunner(t, { type: "openai", baseUrl, model: "m", apiKey: { source: "store", id: "BOUND_KEY" } });
      const storeRun = await runOnce(t, "in clear text?");
      expect(storeRun.error).toBe(`Secret "BOUND_KEY" is bound to its allowedHosts: ${why}`);
      expect(JSON.stringify([run, storeRun])).not.toContain(ELSEWHERE_KEY);
      expect(JSON.stringify(storeRun)).not.toContain(stored);
    }
  });

  it("the default tenant has the dev grant (DEV_DEPLOYMENT_KEY_GRANTS); other tenants do not", async () => {
    const listed = await call(keys("default"), { token: ADMIN });
    expect(listed.status).toBe(200);
    expect(listed.data.keys).toEqual([{ name: "MODEL_KEY_LOCAL", source: "dev", hosts: ["127.0.0.1"], set: false }]);
    const runner = { type: "openai", baseUrl: `${peer}/v1`, model: "m", apiKeySecret: "MODEL_KEY_LOCAL" };
    const put = (prefix: string, token?: string) =>
      call(`${prefix}/v1/config`, {
        method: "PUT",
        json: { agents: { list: [{ id: "main", default: true, runner }] } },
        ...(token ? { token } : {}),
      });
    expect((await put("")).status).toBe(200);
    await call("/v1/config", { method: "PUT", json: {} });
    const t = await freshTenant("dk-dev");
    expect((await put(t.prefix, t.token)).status).toBe(400);
  });

  it("answers the admin API's errors: unknown tenant 404, a name that is no MODEL_KEY_* 400, no admin token 401", async () => {
    expect((await call(keys("no-such-tenant"), { token: ADMIN })).status).toBe(404);
    expect((await call(keys("no-such-tenant", "MODEL_KEY_TEST"), { method: "PUT", token: ADMIN })).status).toBe(404);
    const t = await freshTenant("dk-errors");
    const bad = await call(keys(t.id, "ADMIN_TOKEN"), { method: "PUT", token: ADMIN });
    expect(bad.status).toBe(400);
    expect(bad.data.error.message).toContain("MODEL_KEY_");
    expect((await call(keys(t.id, "MODEL_KEY_TEST"), { method: "PUT", token: t.token })).status).toBe(401);
    expect((await call(keys(t.id), { token: t.token })).status).toBe(401);
  });
});
