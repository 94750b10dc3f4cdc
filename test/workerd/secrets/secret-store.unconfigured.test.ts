import { describe, expect, it, vi } from "vitest";
import { ADMIN, call, createTenant, issueToken } from "../support/helpers";

// A deployment made without SECRET_STORE_KEY (vitest.config.ts runs *.unconfigured.test.ts so):
// the operator is told which secret is missing and what breaks; tenants get a 503 naming nothing
// of the deployment.
const REFUSAL = {
  ok: false,
  error: {
    type: "unavailable",
    message: "secret storage is not configured on this deployment; the operator has been told",
  },
};

describe("a deployment without SECRET_STORE_KEY", () => {
  it("tells the operator by name in GET /v1/admin/health and the log, the tenant only that it is unavailable", {
    timeout: 60_000,
  }, async () => {
    const logged = vi.spyOn(console, "warn");
    await createTenant("acme");
    const { token } = await issueToken("acme");

    const secret = await call("/t/acme/v1/secrets/HOOK_TOKEN", { method: "PUT", token, json: { value: "abc" } });
    expect(secret.status, secret.text).toBe(503);
    expect(secret.data).toEqual(REFUSAL);

    const telegram = await call("/t/acme/v1/config", {
      method: "PUT",
      token,
      json: { channels: { telegram: { enabled: true, botToken: "123:abc" } } },
    });
    expect(telegram.status, telegram.text).toBe(503);
    expect(telegram.data).toEqual(REFUSAL);
    for (const answer of [secret.text, telegram.text]) expect(answer).not.toMatch(/SECRET_STORE|KEY/);
    // The config was not half-written.
    expect((await call("/t/acme/v1/config", { token })).data.config?.channels).toBeUndefined();

    const health = await call("/v1/admin/health", { token: ADMIN });
    expect(health.status).toBe(200);
    expect(health.data).toMatchObject({
      ok: true,
      healthy: false,
      problems: [{ name: "SECRET_STORE_KEY", problem: "not set", breaks: expect.stringMatching(/secret store/) }],
    });
    expect((await call("/v1/admin/health", { token })).status).toBe(401);

    // The operator's log line names the variable and carries no tenant (so no tenant's logs.tail shows it).
    const lines = logged.mock.calls
      .map(([line]) => String(line))
      .filter((line) => line.includes("deployment.misconfigured"));
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      event: "deployment.misconfigured",
      variable: "SECRET_STORE_KEY",
      error: "not set",
    });
    expect(lines[0]).not.toContain('"tenant"');
  });
});
