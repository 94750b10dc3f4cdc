import { afterEach, describe, expect, it } from "vitest";
import { GATEWAY_METHODS } from "../../../src/slices";
import { createTenant, issueToken } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/** Params refusals in the real OpenClaw gateway's exact words (observed on 2026.9.6). */

const open: GatewayClient[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

async function connect(options?: Parameters<typeof GatewayClient.connect>[0]) {
  const client = await GatewayClient.connect(options);
  open.push(client);
  return client;
}

const OBSERVED: Array<[string, unknown, string]> = [
  ["sessions.list", { limit: "x" }, "at /limit: must be integer"],
  ["sessions.list", { limit: 0 }, "at /limit: must be >= 1"],
  ["sessions.list", { limit: 1.5 }, "at /limit: must be integer"],
  ["sessions.list", { offset: -1 }, "at /offset: must be >= 0"],
  ["sessions.list", { limit: "x", bogus: 1 }, "at /limit: must be integer"],
  ["sessions.list", { offset: "y", limit: "x" }, "at /limit: must be integer; at /offset: must be integer"],
  ["sessions.list", [], "must be object"],
  ["sessions.messages.subscribe", { key: 5 }, "at /key: must be string"],
  ["sessions.messages.subscribe", { key: "" }, "at /key: must not have fewer than 1 characters"],
  ["sessions.preview", { keys: [] }, "at /keys: must not have fewer than 1 items"],
  ["sessions.preview", { keys: ["a", ""] }, "at /keys/1: must not have fewer than 1 characters"],
  [
    "sessions.patch",
    { key: "main", sendPolicy: "maybe" },
    "at /sendPolicy: must be equal to constant; at /sendPolicy: must be null; at /sendPolicy: must match a schema in anyOf",
  ],
  [
    "sessions.patch",
    { key: "main", label: "" },
    "at /label: must not have fewer than 1 characters; at /label: must be null; at /label: must match a schema in anyOf",
  ],
  ["sessions.patch", { bogus: 1 }, "must have required property 'key'"],
  [
    "sessions.reset",
    { key: "main", reason: "bogus" },
    "at /reason: must be equal to constant; at /reason: must match a schema in anyOf",
  ],
  ["chat.send", { sessionKey: "main" }, "must have required property 'message'"],
  [
    "chat.send",
    { message: "m", bogus: 2, sessionKey: "main", idempotency: 1 },
    "must have required property 'idempotencyKey'",
  ],
  [
    "chat.send",
    { sessionKey: "x".repeat(600), message: "m", idempotencyKey: "i" },
    "at /sessionKey: must not have more than 512 characters",
  ],
  ["chat.history", { sessionKey: "main", limit: 5000 }, "at /limit: must be <= 1000"],
  ["chat.history", { sessionKey: "main", maxBytes: 1023 }, "at /maxBytes: must be >= 1024"],
  ["agent", { message: "", idempotencyKey: "i" }, "at /message: must not have fewer than 1 characters"],
  ["agent.wait", { runId: "x", timeoutMs: -1 }, "at /timeoutMs: must be >= 0"],
];

describe("params validation in OpenClaw's words", () => {
  it.each(OBSERVED)("%s %j → %s", async (method, params, expected) => {
    const client = await connect();
    const res = await client.request(method, params);
    expect(res.error).toEqual({ code: "INVALID_REQUEST", message: `invalid ${method} params: ${expected}` });
  });

  it("accepts the properties OpenClaw clients send that have no feature here (the TUI's chat.send sessionId)", async () => {
    const client = await connect();
    const res = await client.request("chat.send", {
      sessionKey: "agent:main:tui-fields",
      sessionId: "whatever",
      agentId: "main",
      message: "hello",
      deliver: false,
      idempotencyKey: crypto.randomUUID(),
    });
    expect(res.ok).toBe(true);
    const list = await client.request("sessions.list", { configuredAgentsOnly: true, ownerFirst: true, limit: 5 });
    expect(list.ok).toBe(true);
  });

  it("treats absent or null params as {} and accepts any health params", async () => {
    const client = await connect();
    expect((await client.request("sessions.list", null)).ok).toBe(true);
    expect((await client.request("sessions.list")).ok).toBe(true);
    expect((await client.request("health", { bogus: 1 })).ok).toBe(true);
  });

  it("refuses a session mutation without a usable target with SESSION_MUTATION_TARGET_REQUIRED", async () => {
    const admin = await connect();
    expect((await admin.request("chat.send", { sessionKey: "   ", message: "m", idempotencyKey: "i" })).error).toEqual({
      code: "INVALID_REQUEST",
      message: "session mutation target is unavailable",
      details: { code: "SESSION_MUTATION_TARGET_REQUIRED", method: "chat.send" },
    });
    const tenant = `target-${crypto.randomUUID().slice(0, 8)}`;
    await createTenant(tenant);
    const writer = await issueToken(tenant, ["operator.read", "operator.write"]);
    const client = await connect({ path: `/t/${tenant}`, token: writer.token });
    // Every method declaring the session it changes (defineMethod's mutatesSession) that a writer may call.
    const mutations = Object.entries(GATEWAY_METHODS)
      .filter(([, method]) => method.mutatesSession && method.scope !== "operator.admin")
      .map(([name]) => name);
    expect(mutations).toEqual(expect.arrayContaining(["chat.send", "chat.abort", "sessions.patch", "sessions.abort"]));
    for (const method of mutations) {
      expect((await client.request(method, {})).error.details).toEqual({
        code: "SESSION_MUTATION_TARGET_REQUIRED",
        method,
      });
    }
  });

  it("answers a malformed request frame with its id (or 'invalid') and ignores non-JSON after the handshake", async () => {
    const client = await connect();
    client.send("not json");
    client.send({ type: "req", id: "f1", method: 5 });
    client.send({ type: "req", method: "health" });
    const named = await client.waitFor((f) => f.type === "res" && f.id === "f1");
    expect(named.error).toEqual({
      code: "INVALID_REQUEST",
      message: "invalid request frame: at /method: must be string",
    });
    const anonymous = await client.waitFor((f) => f.type === "res" && f.id === "invalid");
    expect(anonymous.error.message).toBe("invalid request frame: must have required property 'id'");
    // The non-JSON frame got no answer: only the two malformed frames did (besides hello-ok).
    expect(client.frames.filter((f) => f.type === "res" && f.payload?.type !== "hello-ok")).toHaveLength(2);
  });

  it("refuses an ill-typed connect property in OpenClaw's words and closes with the message", async () => {
    const client = await GatewayClient.open();
    open.push(client);
    const res = await client.handshake({ extra: { caps: "all" } });
    expect(res.error.message).toBe("invalid connect params: at /caps: must be array");
    expect(await client.waitForClose()).toMatchObject({ code: 1008, reason: res.error.message });
  });

  it("ignores properties it does not know, as clients newer than the service send them: in params, connect and the frame", async () => {
    const client = await GatewayClient.open();
    open.push(client);
    const hello = await client.handshake({
      extra: {
        bogus: 1,
        client: { id: "test", version: "1.0.0", platform: "workerd", mode: "test", futureField: "x" },
      },
    });
    expect(hello.ok).toBe(true);
    client.send({ type: "req", id: "f2", method: "health", futureEnvelope: 1 });
    expect((await client.waitFor((f) => f.type === "res" && f.id === "f2")).ok).toBe(true);
    const list = await client.request("sessions.list", { limit: 1, futureFilter: true });
    expect(list.ok).toBe(true);
    expect((await client.request("agents.list", { bogus: 1 })).ok).toBe(true);
  });
});
