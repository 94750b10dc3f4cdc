import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { call, freshTenant, grantDeploymentKey, issueToken, type TestTenant, until, user } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * A provider (or a proxy before it) that answers 401 with the key it was given: the run error,
 * GET /v1/runs, the console line, logs.tail and the OpenAI route's error carry no trace of it
 * (src/secrets/redact-credentials.ts). The peer's `echo-key-401` model prints the key as sent,
 * masked (`sk-ec…wxyz`) and inside Basic auth's base64.
 */

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const STORE_KEY = "sk-echo-Zq81tL0vWm3Kp7Rj5NwXhc";
const DEPLOYMENT_KEY = "sk-test-deployment-0123456789abcdef";

const open: GatewayClient[] = [];
afterEach(() => {
  for (const client of open.splice(0)) client.close();
  vi.restoreAllMocks();
});

/** Neither the key, a piece of it, its masked ends nor its base64 (the peer's forms). */
function expectNoTrace(text: string, key: string) {
  expect(text).not.toContain(key);
  expect(text).not.toContain(key.slice(6, 18));
  expect(text).not.toContain(key.slice(-4));
  expect(text).not.toContain(btoa(`user:${key}`).slice(4, 24));
}

async function echoingTenant(label: string, auth: Record<string, unknown>): Promise<TestTenant> {
  const t = await freshTenant(label);
  const runner = { type: "openai", baseUrl: `${peer}/v1`, model: "echo-key-401", ...auth };
  expect((await t.config({ agents: { list: [{ id: "main", default: true, runner }] } })).status).toBe(200);
  return t;
}

describe("secrets never echo", () => {
  it("a store key echoed in a 401 reaches no run error, run read, console line, log line or OpenAI error", async () => {
    const warn = vi.spyOn(console, "warn");
    const t = await echoingTenant("echo-store", { apiKey: { source: "store", id: "ECHO_KEY" } });
    expect((await t.call("/v1/secrets/ECHO_KEY", { method: "PUT", json: { value: STORE_KEY } })).status).toBe(200);
    const reader = await issueToken(t.id, ["operator.read"]);

    const started = await t.append("main", user("hi", { run: true }));
    const runId = started.data.runId as string;
    const read = await call(`${t.prefix}/v1/runs/${runId}?wait=10`, { token: reader.token });
    expect(read.data.run.status).toBe("error");
    // The provider's message stays readable, without the key.
    expect(read.data.run.error).toMatch(/^model endpoint answered 401: .*invalid key \[REDACTED\]/);
    expectNoTrace(read.text, STORE_KEY);
    const runs = await call(`${t.prefix}/v1/sessions/main/runs?limit=10`, { token: reader.token });
    expect(runs.status).toBe(200);
    expectNoTrace(runs.text, STORE_KEY);

    const lines = warn.mock.calls.map((args) => String(args[0])).filter((line) => line.includes(runId));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expectNoTrace(line, STORE_KEY);

    const client = await GatewayClient.connect({ path: t.prefix, token: reader.token });
    open.push(client);
    const tail = await until(
      () => client.request("logs.tail", { limit: 500, maxBytes: 250_000 }),
      (answer) => answer.payload?.lines?.some((line: string) => line.includes(runId)),
    );
    expectNoTrace(JSON.stringify(tail.payload.lines), STORE_KEY);

    const completion = await t.call("/v1/chat/completions", {
      method: "POST",
      json: { model: "openclaw", messages: [{ role: "user", content: "hello" }] },
    });
    expect(completion.status).toBe(401);
    expect(completion.data.error.type).toBe("authentication_error");
    expect(completion.data.error.message).toContain("invalid key [REDACTED]");
    expectNoTrace(completion.text, STORE_KEY);
  });

  it("a webhook host echoing the secret its run requests are signed with gets it redacted", async () => {
    const t = await freshTenant("echo-hook");
    const secret = "hook-signing-secret-Hq2Lw9XcV4";
    expect((await t.call("/v1/secrets/HOOK_SECRET", { method: "PUT", json: { value: secret } })).status).toBe(200);
    const runner = {
      type: "webhook",
      url: `${peer}/webhook/echo-path/${secret}`,
      secret: { source: "store", id: "HOOK_SECRET" },
    };
    expect((await t.config({ agents: { list: [{ id: "main", default: true, runner }] } })).status).toBe(200);
    const started = await t.append("main", user("hi", { run: true }));
    const read = await t.call(`/v1/runs/${started.data.runId}?wait=10`);
    expect(read.data.run.error).toBe('webhook answered 401: {"error":"refused [REDACTED]"}');
    expectNoTrace(read.text, secret);
  });

  it("a webhook host echoing the capability secret in its own URL's path gets it redacted", async () => {
    const t = await freshTenant("echo-capability");
    const capability = "capability-Zq81tL0vWm3Kp7Rj5NwX";
    const runner = { type: "webhook", url: `${peer}/webhook/echo-path/${capability}` };
    expect((await t.config({ agents: { list: [{ id: "main", default: true, runner }] } })).status).toBe(200);
    const reader = await issueToken(t.id, ["operator.read"]);
    const started = await t.append("main", user("hi", { run: true }));
    const read = await call(`${t.prefix}/v1/runs/${started.data.runId}?wait=10`, { token: reader.token });
    expect(read.data.run.error).toBe('webhook answered 401: {"error":"refused [REDACTED]"}');
    expect(read.text).not.toContain("Zq81tL0vWm3Kp7Rj5NwX");
  });

  it("a deployment key echoed in a 401 is redacted the same way", async () => {
    const t = await freshTenant("echo-deploy");
    await grantDeploymentKey(t.id, "MODEL_KEY_TEST");
    const runner = { type: "openai", baseUrl: `${peer}/v1`, model: "echo-key-401", apiKeySecret: "MODEL_KEY_TEST" };
    expect((await t.config({ agents: { list: [{ id: "main", default: true, runner }] } })).status).toBe(200);
    const started = await t.append("main", user("hi", { run: true }));
    const read = await t.call(`/v1/runs/${started.data.runId}?wait=10`);
    expect(read.data.run.error).toContain("invalid key [REDACTED]");
    expectNoTrace(read.text, DEPLOYMENT_KEY);
  });
});
