import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import type { TenantContext } from "../../../src/domain/context";
import { tenantApi, tenantPorts } from "../../../src/stubs";
import { sessionsSend } from "../../../src/tools/sessions-send";
import { call, createTenant, issueToken, until } from "../support/helpers";

const peer = `http://127.0.0.1:${inject("peerPort")}`;

type Setup = { id: string; token: string; send(args: Record<string, unknown>, sessionKey?: string): Promise<any> };

/** A tenant allowing sessions_send over HTTP, same-agent visibility, with the given runner. */
async function tenant(
  id: string,
  options: { runner?: Record<string, unknown>; config?: Record<string, unknown> } = {},
): Promise<Setup> {
  await createTenant(id);
  const { token } = await issueToken(id);
  const config = {
    gateway: { tools: { allow: ["sessions_send"] } },
    tools: { sessions: { visibility: "agent" } },
    ...(options.runner ? { agents: { list: [{ id: "main", default: true, runner: options.runner }] } } : {}),
    ...options.config,
  };
  expect((await call(`/t/${id}/v1/config`, { method: "PUT", token, json: config })).status).toBe(200);
  return {
    id,
    token,
    send: async (args, sessionKey = "main") => {
      const res = await call(`/t/${id}/tools/invoke`, {
        method: "POST",
        token,
        json: { tool: "sessions_send", args, sessionKey },
      });
      expect(res.status, res.text).toBe(200);
      return res.data.result.details;
    },
  };
}

async function script(
  scenario: string,
  replies: { primary?: string; turns?: string[]; announce?: string; delayMs?: number },
) {
  await fetch(`${peer}/control/script`, { method: "POST", body: JSON.stringify({ scenario, ...replies }) });
}

const scripted = (scenario: string) => ({ type: "openai", baseUrl: `${peer}/v1`, model: `scripted:${scenario}` });

async function seed(t: Setup, key: string, extra: Record<string, unknown> = {}) {
  const res = await call(`/t/${t.id}/v1/sessions/${encodeURIComponent(key)}/messages`, {
    method: "POST",
    token: t.token,
    json: { role: "user", content: "seed", ...extra },
  });
  expect(res.status).toBe(201);
}

const flowOf = (t: Setup, key: string, runId: string) => env.SESSIONS.getByName(`${t.id}/${key}`).flow(runId);

const history = async (t: Setup, key: string) =>
  (await call(`/t/${t.id}/sessions/${encodeURIComponent(key)}/history`, { token: t.token })).data.messages as any[];
const deliveries = async (t: Setup, key: string) =>
  (await call(`/t/${t.id}/v1/sessions/${encodeURIComponent(key)}/deliveries`, { token: t.token })).data
    .deliveries as any[];
const text = (m: any) => (typeof m.content === "string" ? m.content : m.content[0]?.text);

describe("sessions_send: parameters and access", () => {
  it("is not available over HTTP unless gateway.tools.allow lists it", async () => {
    const res = await call("/tools/invoke", {
      method: "POST",
      json: { tool: "sessions_send", args: { sessionKey: "main", message: "x" } },
    });
    expect(res.status).toBe(404);
    expect(res.data.error.message).toBe("Tool not available: sessions_send");
  });

  it("needs exactly one of sessionKey and label, with OpenClaw's texts and a runId", async () => {
    const t = await tenant("send-params");
    expect(await t.send({ sessionKey: "a", label: "b", message: "x" })).toMatchObject({
      status: "error",
      error: "Provide either sessionKey or label (not both).",
      runId: expect.any(String),
    });
    expect(await t.send({ message: "x" })).toMatchObject({
      status: "error",
      error: "Either sessionKey or label is required",
    });
    expect(await t.send({ label: "nobody", message: "x" })).toMatchObject({
      status: "error",
      error: "No session found with label: nobody",
    });
  });

  it("applies tree visibility and cross-agent rules with OpenClaw's texts", async () => {
    const t = await tenant("send-visibility", {
      config: {
        tools: { sessions: { visibility: "tree" } },
        agents: { list: [{ id: "main", default: true }, { id: "ops" }] },
      },
    });
    await seed(t, "agent:main:other");
    expect(await t.send({ sessionKey: "agent:main:other", message: "x" })).toMatchObject({
      status: "forbidden",
      error: "Session send visibility is restricted to the current session tree (tools.sessions.visibility=tree).",
      sessionKey: "agent:main:other",
    });
    expect((await t.send({ sessionKey: "agent:ops:main", message: "x" })).error).toBe(
      "Session send visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access.",
    );
  });

  it("refuses when the target's send policy denies", async () => {
    const t = await tenant("send-policy");
    await seed(t, "agent:main:quiet");
    await call(`/t/${t.id}/v1/sessions/agent:main:quiet`, {
      method: "PATCH",
      token: t.token,
      json: { sendPolicy: "deny" },
    });
    expect(await t.send({ sessionKey: "agent:main:quiet", message: "x" })).toMatchObject({
      status: "error",
      error: "send blocked by session policy",
    });
    expect((await history(t, "agent:main:quiet")).length).toBe(1);
  });

  it("resolves a label", async () => {
    const t = await tenant("send-label");
    await seed(t, "agent:main:labelled", { label: "helper" });
    const result = await t.send({ label: "helper", message: "hello by label" });
    expect(result).toMatchObject({ status: "ok", reply: "ECHO: hello by label", sessionKey: "agent:main:labelled" });
  });
});

describe("sessions_send: results", () => {
  it("waits server-side and returns the reply with pending delivery", async () => {
    const t = await tenant("send-ok");
    await seed(t, "agent:main:target");
    const result = await t.send({ sessionKey: "agent:main:target", message: "hi" });
    expect(result).toEqual({
      runId: expect.any(String),
      status: "ok",
      reply: "ECHO: hi",
      sessionKey: "agent:main:target",
      delivery: { status: "pending", mode: "announce" },
    });
    const messages = await history(t, "agent:main:target");
    expect(messages[1]).toMatchObject({
      role: "user",
      content: "hi",
      provenance: { kind: "inter_session", sourceSessionKey: "agent:main:main", sourceTool: "sessions_send" },
    });
  });

  it("fire-and-forget with timeoutSeconds 0 returns accepted", async () => {
    const t = await tenant("send-accepted");
    await seed(t, "agent:main:target");
    const result = await t.send({ sessionKey: "agent:main:target", message: "later", timeoutSeconds: 0 });
    expect(result).toEqual({
      runId: expect.any(String),
      status: "accepted",
      sessionKey: "agent:main:target",
      delivery: { status: "pending", mode: "announce" },
    });
    const messages = await until(
      () => history(t, "agent:main:target"),
      (m) => m.some((x) => text(x) === "ECHO: later"),
    );
    expect(messages.filter((x) => text(x) === "ECHO: later")).toHaveLength(1);
  });

  it("on a timed-out wait the run continues: the reply lands and the announce is still delivered", async () => {
    await script("slow", {
      primary: "slow answer",
      turns: ["REPLY_SKIP"],
      announce: "Done: slow answer",
      delayMs: 1500,
    });
    const t = await tenant("send-timeout", { runner: scripted("slow") });
    await seed(t, "agent:main:target", { deliveryContext: { channel: "telegram", to: "chat:7" } });
    const result = await t.send({ sessionKey: "agent:main:target", message: "take a while", timeoutSeconds: 1 });
    expect(result).toMatchObject({
      status: "timeout",
      error: expect.stringContaining("continues"),
      sessionKey: "agent:main:target",
    });
    const flow = await until(
      () => flowOf(t, "agent:main:target", result.runId),
      (f) => f?.state === "done",
      20_000,
    );
    expect(flow?.outcome).toBe("announced");
    const sent = await until(
      () => deliveries(t, "agent:main:target"),
      (d) => d.length === 1 && d[0].status === "delivered",
    );
    expect(sent[0]).toMatchObject({
      kind: "a2a-announce",
      message: "Done: slow answer",
      deliveredTo: "log",
      target: { channel: "telegram", to: "chat:7" },
    });
  });

  it("reports a failed run as status error", async () => {
    await script("broken", { primary: "!error" });
    const t = await tenant("send-error", { runner: scripted("broken") });
    await seed(t, "agent:main:target");
    expect(await t.send({ sessionKey: "agent:main:target", message: "x" })).toMatchObject({
      status: "error",
      error: expect.stringContaining("500"),
    });
  });
});

describe("sessions_send: ping-pong and announce", () => {
  it("alternates requester and target until REPLY_SKIP, then announces to the target's channel", async () => {
    await script("pingpong", { primary: "P", turns: ["R1", "T2", "REPLY_SKIP"], announce: "Summary for the channel" });
    const t = await tenant("flow-skip", { runner: scripted("pingpong") });
    await seed(t, "agent:main:target", { deliveryContext: { channel: "slack", to: "C1" } });
    const result = await t.send({ sessionKey: "agent:main:target", message: "start" });
    expect(result.reply).toBe("P");
    await until(
      () => flowOf(t, "agent:main:target", result.runId),
      (f) => f?.state === "done",
    );
    const requester = await history(t, "main");
    const target = await history(t, "agent:main:target");
    // Turn 1 and 3 ran in the requester, turn 2 in the target, then the announce in the target.
    expect(requester.filter((m) => m.role === "user" && m.provenance?.kind === "inter_session").map(text)).toEqual([
      "P",
      "T2",
    ]);
    expect(requester.filter((m) => m.role === "assistant").map(text)).toEqual(["R1", "REPLY_SKIP"]);
    expect(target.filter((m) => m.role === "assistant").map(text)).toEqual(["P", "T2", "Summary for the channel"]);
    expect(target.some((m) => text(m) === "Agent-to-agent announce step.")).toBe(true);
    const sent = await until(
      () => deliveries(t, "agent:main:target"),
      (d) => d[0]?.status === "delivered",
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ message: "Summary for the channel", target: { channel: "slack", to: "C1" } });
  });

  it("stops at maxPingPongTurns and on an empty reply; ANNOUNCE_SKIP stays silent", async () => {
    await script("long", { primary: "P", turns: ["a", "b", "c", "d", "e"], announce: "ANNOUNCE_SKIP" });
    const t = await tenant("flow-max", {
      runner: scripted("long"),
      config: { session: { agentToAgent: { maxPingPongTurns: 2 } } },
    });
    await seed(t, "agent:main:target", { deliveryContext: { channel: "slack", to: "C1" } });
    const result = await t.send({ sessionKey: "agent:main:target", message: "go" });
    const flow = await until(
      () => flowOf(t, "agent:main:target", result.runId),
      (f) => f?.state === "done",
    );
    expect(flow).toMatchObject({ turn: 2, outcome: "silent" });
    expect((await history(t, "main")).filter((m) => m.role === "assistant").map(text)).toEqual(["a"]);
    expect(await deliveries(t, "agent:main:target")).toEqual([]);
  });

  it("skips the ping-pong with maxPingPongTurns 0 or when the requester is the target", async () => {
    await script("direct", { primary: "P", turns: ["never"], announce: "Posted" });
    const t = await tenant("flow-zero", {
      runner: scripted("direct"),
      config: { session: { agentToAgent: { maxPingPongTurns: 0 } } },
    });
    await seed(t, "agent:main:target", { deliveryContext: { channel: "slack", to: "C1" } });
    const result = await t.send({ sessionKey: "agent:main:target", message: "go" });
    await until(
      () => flowOf(t, "agent:main:target", result.runId),
      (f) => f?.state === "done",
    );
    // No ping-pong: nothing was ever sent into the requester's session.
    expect((await call(`/t/${t.id}/sessions/main/history`, { token: t.token })).status).toBe(404);
    const self = await t.send({ sessionKey: "agent:main:target", message: "to myself" }, "agent:main:target");
    await until(
      () => flowOf(t, "agent:main:target", self.runId),
      (f) => f?.state === "done",
    );
    expect((await history(t, "agent:main:target")).filter((m) => text(m) === "never")).toHaveLength(0);
  });

  it("a failing delivery webhook (500 twice, then 200) delivers exactly once", async () => {
    await script("deliver", { primary: "P", turns: ["REPLY_SKIP"], announce: "Important news" });
    const path = "/delivery/retry-once";
    await fetch(`${peer}/control/fail`, { method: "POST", body: JSON.stringify({ path, times: 2 }) });
    const t = await tenant("flow-retry", {
      runner: scripted("deliver"),
      config: { delivery: { webhookUrl: `${peer}${path}`, maxAttempts: 5 } },
    });
    await seed(t, "agent:main:target", { deliveryContext: { channel: "slack", to: "C9" } });
    await t.send({ sessionKey: "agent:main:target", message: "go" });
    const sent = await until(
      () => deliveries(t, "agent:main:target"),
      (d) => d[0]?.status === "delivered",
      20_000,
    );
    expect(sent[0]).toMatchObject({ attempts: 3, deliveredTo: `${peer}${path}` });
    const recorded = (await (await fetch(`${peer}/control/recorded?path=${path}`)).json()) as any[];
    expect(recorded).toHaveLength(3);
    expect(new Set(recorded.map((r) => r.body.idempotencyKey)).size).toBe(1);
    expect(recorded[0].body).toMatchObject({ message: "Important news", channel: "slack", to: "C9" });
  });

  it("dead-letters a delivery after the configured attempts", async () => {
    await script("dead", { primary: "P", turns: ["REPLY_SKIP"], announce: "Nobody hears this" });
    const path = "/delivery/always-down";
    await fetch(`${peer}/control/fail`, { method: "POST", body: JSON.stringify({ path, times: 100 }) });
    const t = await tenant("flow-dead", {
      runner: scripted("dead"),
      config: { delivery: { webhookUrl: `${peer}${path}`, maxAttempts: 2 } },
    });
    await seed(t, "agent:main:target", { deliveryContext: { channel: "slack", to: "C9" } });
    await t.send({ sessionKey: "agent:main:target", message: "go" });
    const sent = await until(
      () => deliveries(t, "agent:main:target"),
      (d) => d[0]?.status === "dead",
      20_000,
    );
    expect(sent[0]).toMatchObject({ attempts: 2, lastError: "delivery webhook answered 500" });
  });
});

describe("sessions_send: durability", () => {
  for (const step of ["primary", "pingpong", "announce"] as const) {
    it(`resumes exactly once after both objects are evicted during the ${step} step`, async () => {
      const scenario = `evict-${step}`;
      await script(scenario, { primary: "P", turns: ["R1", "REPLY_SKIP"], announce: "Final word", delayMs: 400 });
      const t = await tenant(`flow-evict-${step}`, { runner: scripted(scenario) });
      await seed(t, "agent:main:target", { deliveryContext: { channel: "slack", to: "C1" } });
      const result = await t.send({ sessionKey: "agent:main:target", message: "go", timeoutSeconds: 0 });
      await until(
        () => flowOf(t, "agent:main:target", result.runId),
        (f) => f?.state === step,
        10_000,
      );
      await evictDurableObject(env.SESSIONS.getByName(`${t.id}/agent:main:target`));
      await evictDurableObject(env.SESSIONS.getByName(`${t.id}/agent:main:main`));
      // Waking the target is all it takes; nothing else drives the flow.
      const flow = await until(
        () => flowOf(t, "agent:main:target", result.runId),
        (f) => f?.state === "done",
        20_000,
      );
      expect(flow?.outcome).toBe("announced");
      const target = await history(t, "agent:main:target");
      const requester = await history(t, "main");
      // Turn 1 ran in the requester (R1), turn 2 in the target (REPLY_SKIP ends it), then the announce.
      expect(target.filter((m) => m.role === "assistant").map(text)).toEqual(["P", "REPLY_SKIP", "Final word"]);
      expect(requester.filter((m) => m.role === "assistant").map(text)).toEqual(["R1"]);
      const sent = await until(
        () => deliveries(t, "agent:main:target"),
        (d) => d[0]?.status === "delivered",
      );
      expect(sent).toHaveLength(1);
    });
  }
});

describe("sessions_send: round trips", () => {
  /** Ports that record every RPC the tool makes (the objects behind them are the real ones). */
  function countingPorts(tenantId: string, calls: string[]): Pick<TenantContext, "tenant" | "sessions"> {
    const counted = <T extends object>(name: string, stub: T): T =>
      new Proxy(stub, {
        get(target, prop) {
          const value = Reflect.get(target, prop);
          if (typeof value !== "function" || typeof prop !== "string") return value;
          return (...args: unknown[]) => {
            calls.push(`${name}.${prop}`);
            // An RPC stub's methods are themselves stubs (`.apply` would be a remote call).
            return (target as Record<string, (...a: unknown[]) => unknown>)[prop]!(...args);
          };
        },
      });
    const ports = tenantPorts(env, tenantId);
    return { tenant: counted("tenant", ports.tenant), sessions: (key) => counted("session", ports.sessions(key)) };
  }

  it("reads both rows in one round, admits the run, then starts and waits: four calls", async () => {
    const t = await tenant("send-trips");
    await seed(t, "agent:main:target");
    const calls: string[] = [];
    const ctx: TenantContext = {
      ...tenantPorts(env, t.id),
      ...countingPorts(t.id, calls),
      tenantId: t.id,
      config: await tenantApi(env, t.id).config(),
      principal: { kind: "operator", scopes: ["operator.write"] },
    };
    const requester = { key: "agent:main:main", agentId: "main", sandboxed: false, spawnDepth: 0, isSubagent: false };
    const result = await sessionsSend(ctx, requester, {
      sessionKey: "agent:main:target",
      message: "counted",
      timeoutSeconds: 30,
    });
    expect(result.details).toMatchObject({ status: "ok", reply: "ECHO: counted" });
    expect(calls.sort()).toEqual([
      "session.sendInterSession",
      "tenant.recordRunStart",
      "tenant.session",
      "tenant.session",
    ]);
  });
});
