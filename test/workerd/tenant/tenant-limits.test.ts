import { afterEach, describe, expect, inject, it } from "vitest";
import { ADMIN, call, createTenant, issueToken, until } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/** Tenant limits (docs/operations.md "Tenant limits"): operator ceilings, tenant config under them, refusals. */

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const open: GatewayClient[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

/** A tenant whose agent calls the peer's `gauge:<gauge>` model (it counts the calls it has at once). */
async function tenantWith(id: string, gauge: string, extraConfig: Record<string, unknown> = {}) {
  await createTenant(id);
  const { token } = await issueToken(id);
  const runner = { type: "openai", baseUrl: `${peer}/v1`, model: `gauge:${gauge}` };
  const config = { agents: { list: [{ id: "main", default: true, runner }] }, ...extraConfig };
  const put = await call(`/t/${id}/v1/config`, { method: "PUT", token, json: config });
  expect(put.status).toBe(200);
  return { token, prefix: `/t/${id}` };
}

const gauge = async (name: string) =>
  (await fetch(`${peer}/control/gauge?name=${name}`)).json() as Promise<{ peak: number; now: number; calls: number }>;

const setOverride = (id: string, json: Record<string, unknown>) =>
  call(`/v1/admin/tenants/${id}/limits`, { method: "PUT", token: ADMIN, json });

/** Starts a run by HTTP ingest (`run: true`) in session `key`. */
const ingestRun = (t: { token: string; prefix: string }, key: string) =>
  call(`${t.prefix}/v1/sessions/${key}/messages`, {
    method: "POST",
    token: t.token,
    json: { role: "user", content: `hello ${key}`, run: true },
  });

const runStatus = async (t: { token: string; prefix: string }, runId: string) =>
  (await call(`${t.prefix}/v1/runs/${runId}?wait=30`, { token: t.token })).data?.run?.status;

describe("runs in flight per tenant", () => {
  it("150 runs started at once: at most the deployment's 64 at the model, every accepted run ends ok", async () => {
    const t = await tenantWith("lim-burst", "burst");
    const starts = await Promise.all(Array.from({ length: 150 }, (_, i) => ingestRun(t, `burst-${i}`)));
    // 64 in flight + 256 queued by default: the whole burst is accepted.
    expect(starts.map((s) => s.status).filter((s) => s >= 300)).toEqual([]);
    const statuses = await Promise.all(starts.map((s) => runStatus(t, s.data.runId)));
    expect(statuses.filter((s) => s !== "ok")).toEqual([]);
    const model = await gauge("burst");
    expect(model.calls).toBe(150);
    expect(model.peak).toBeLessThanOrEqual(64);
    expect(model.peak).toBeGreaterThan(1);
    // Every slot went back.
    const limits = (await call(`${t.prefix}/v1/limits`, { token: t.token })).data.limits;
    expect(limits.runsInFlight).toEqual({ limit: 64, used: 0 });
    // 72 s at load 17 on 2 cores (2026-11-28): room for a loaded machine.
  }, 240_000);

  it("a full queue refuses new runs with 429 and Retry-After; the accepted ones all end ok", async () => {
    // Each call holds the model a second: the burst arrives while the first run holds the one slot.
    const t = await tenantWith("lim-queue", "slow-queue");
    expect((await setOverride("lim-queue", { runsInFlight: 1, runsQueued: 2 })).status).toBe(200);
    const starts = await Promise.all(Array.from({ length: 8 }, (_, i) => ingestRun(t, `queue-${i}`)));
    const accepted = starts.filter((s) => s.status < 300);
    const refused = starts.filter((s) => s.status === 429);
    expect(accepted.length + refused.length).toBe(8);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(accepted.length).toBeLessThanOrEqual(3);
    for (const r of refused) {
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(r.data).toEqual({
        ok: false,
        error: { type: "rate_limited", message: expect.stringMatching(/^Too many runs/) },
      });
    }
    const statuses = await Promise.all(accepted.map((s) => runStatus(t, s.data.runId)));
    expect(statuses.every((s) => s === "ok")).toBe(true);
    expect((await gauge("slow-queue")).peak).toBe(1);
  }, 30_000);
});

describe("run starts per minute, on every door", () => {
  it("are refused past the limit in each door's shape", async () => {
    const t = await tenantWith("lim-rate", "rate", { limits: { runStartsPerMinute: 2 } });
    const first = await ingestRun(t, "a");
    expect(first.status).toBe(201);
    expect((await ingestRun(t, "b")).status).toBe(201);
    // HTTP ingest.
    const http = await ingestRun(t, "c");
    expect(http.status).toBe(429);
    expect(Number(http.headers.get("retry-after"))).toBeGreaterThan(1);
    expect(http.data).toEqual({
      ok: false,
      error: { type: "rate_limited", message: "Too many run starts: the limit is 2 per minute" },
    });
    // The gateway: chat.send and agent answer an error frame with retryAfterMs and the wait in its
    // message, not retryable (the Control UI then shows it in the chat instead of re-sending).
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    open.push(client);
    for (const [method, params] of [
      ["chat.send", { sessionKey: "main", message: "hi", idempotencyKey: "gw-1" }],
      ["agent", { sessionKey: "main", message: "hi", idempotencyKey: "gw-2" }],
    ] as const) {
      const res = await client.request(method, params);
      expect(res.ok).toBe(false);
      expect(res.error).toMatchObject({
        code: "UNAVAILABLE",
        message: expect.stringMatching(/^Too many run starts: the limit is 2 per minute; retry in \d+ s$/),
        retryable: false,
      });
      expect(res.error.retryAfterMs).toBeGreaterThan(1000);
      expect(res.error.details).toEqual({ retryAfterMs: res.error.retryAfterMs });
      expect(res.error.message).toContain(`retry in ${Math.ceil(res.error.retryAfterMs / 1000)} s`);
    }
    // chat.send's refusal is also its run's `chat` error, which the Control UI shows in the chat.
    expect(client.events("chat").map((e) => e.payload)).toEqual([
      { runId: "gw-1", sessionKey: "main", seq: 1, state: "error", errorMessage: expect.stringMatching(/; retry in/) },
    ]);
    // The OpenAI routes: OpenAI's error shape, 429 with Retry-After.
    const openai = await call(`${t.prefix}/v1/chat/completions`, {
      method: "POST",
      token: t.token,
      json: { model: "openclaw", messages: [{ role: "user", content: "hi" }] },
    });
    expect(openai.status).toBe(429);
    expect(Number(openai.headers.get("retry-after"))).toBeGreaterThan(1);
    expect(openai.data).toEqual({
      error: { message: "Too many run starts: the limit is 2 per minute", type: "rate_limit_error" },
    });
    // A run id already recorded is answered from its run (a retry), never refused.
    const retry = await client.request("chat.send", {
      sessionKey: "a",
      message: "hi",
      idempotencyKey: first.data.runId,
    });
    expect(retry.ok).toBe(true);
  });
});

describe("run starts through tools: MCP and /tools/invoke", () => {
  it("a sessions_spawn past runStartsPerMinute is an MCP tool error with retryAfterSeconds, and a 429 over HTTP", async () => {
    const t = await tenantWith("lim-mcp", "mcp", {
      limits: { runStartsPerMinute: 1 },
      gateway: { tools: { allow: ["sessions_spawn"] } },
    });
    const mcp = (id: number) =>
      call(`${t.prefix}/mcp`, {
        method: "POST",
        token: t.token,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "sessions_spawn", arguments: { task: `task ${id}` } },
        }),
      });
    const lastMessage = (res: Awaited<ReturnType<typeof mcp>>) =>
      res.headers.get("content-type")?.includes("text/event-stream")
        ? JSON.parse(
            res.text
              .split("\n")
              .filter((line) => line.startsWith("data: "))
              .at(-1)!
              .slice(6),
          )
        : res.data;
    const first = lastMessage(await mcp(1));
    expect(first.result.isError).toBeFalsy();
    const second = lastMessage(await mcp(2));
    expect(second.result.isError).toBe(true);
    expect(second.result.structuredContent).toMatchObject({
      status: "error",
      error: "Too many run starts: the limit is 1 per minute",
    });
    expect(second.result.structuredContent.retryAfterSeconds).toBeGreaterThan(1);
    const http = await call(`${t.prefix}/tools/invoke`, {
      method: "POST",
      token: t.token,
      json: { tool: "sessions_spawn", args: { task: "over http" } },
    });
    expect(http.status).toBe(429);
    expect(Number(http.headers.get("retry-after"))).toBeGreaterThan(1);
    expect(http.data.error).toEqual({
      type: "rate_limited",
      message: "Too many run starts: the limit is 1 per minute",
    });
  });
});

describe("sessions.search calls per minute", () => {
  it("are refused past the limit with the gateway's error frame", async () => {
    const t = await tenantWith("lim-search", "search", { limits: { searchesPerMinute: 2 } });
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    open.push(client);
    for (let i = 0; i < 2; i++) expect((await client.request("sessions.search", { query: "hello" })).ok).toBe(true);
    const refused = await client.request("sessions.search", { query: "hello" });
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatchObject({
      code: "UNAVAILABLE",
      message: expect.stringMatching(/^Too many searches: the limit is 2 per minute; retry in \d+ s$/),
      retryable: false,
    });
    expect(refused.error.retryAfterMs).toBeGreaterThan(1000);
  });
});

describe("gateway sockets per tenant", () => {
  it("refuses an upgrade past the limit with 429 and Retry-After; a closed socket frees its place", async () => {
    const t = await tenantWith("lim-sockets", "sockets", { limits: { sockets: 2 } });
    const first = await GatewayClient.connect({ path: t.prefix, token: t.token });
    const second = await GatewayClient.connect({ path: t.prefix, token: t.token });
    open.push(second);
    const third = await call(t.prefix, { token: null, headers: { Upgrade: "websocket" } });
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("10");
    expect(third.data).toEqual({
      ok: false,
      error: { type: "rate_limited", message: "Too many gateway connections: the limit is 2 per tenant" },
    });
    const limits = (await call(`${t.prefix}/v1/limits`, { token: t.token })).data.limits;
    expect(limits.sockets).toEqual({ limit: 2, used: 2 });
    first.close();
    await until(
      () => call(`${t.prefix}/v1/limits`, { token: t.token }),
      (res) => res.data.limits.sockets.used === 1,
    );
    open.push(await GatewayClient.connect({ path: t.prefix, token: t.token }));
  });
});

describe("automations per tenant", () => {
  it("count and interval: the tenant lowers the job count and raises the interval floor, never the reverse", async () => {
    const t = await tenantWith("lim-cron", "cron", { limits: { cronJobs: 500, cronMinIntervalMs: 60_000 } });
    expect((await setOverride("lim-cron", { cronJobs: 1, cronMinIntervalMs: 1_000 })).status).toBe(200);
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    open.push(client);
    const job = (everyMs: number) => ({
      name: `every ${everyMs}`,
      enabled: true,
      sessionTarget: "isolated",
      wakeMode: "now",
      schedule: { kind: "every", everyMs },
      payload: { kind: "agentTurn", message: "hello" },
    });
    // The operator allows every second; the tenant's own floor of a minute holds.
    const fast = await client.request("cron.add", job(30_000));
    expect(fast.error?.message).toBe(
      "invalid cron.add params: schedule.everyMs must be at least 60000 ms on this deployment",
    );
    expect((await client.request("cron.add", job(3_600_000))).ok).toBe(true);
    // The operator's one job holds over the tenant's 500.
    const second = await client.request("cron.add", job(3_600_000));
    expect(second.error?.message).toBe("invalid cron.add params: a tenant can have at most 1 automations");
    const limits = (await call(`${t.prefix}/v1/limits`, { token: t.token })).data.limits;
    expect(limits).toMatchObject({ cronJobs: { limit: 1 }, cronMinIntervalMs: { limit: 60_000 } });
  });
});

describe("tokens per day (the spend cap)", () => {
  it("refuses new runs once today's tokens reach the limit, until UTC midnight", async () => {
    const t = await tenantWith("lim-spend", "spend");
    expect((await setOverride("lim-spend", { tokensPerDay: 10 })).status).toBe(200);
    const first = await ingestRun(t, "spend-0");
    expect(first.status).toBe(201);
    expect(await runStatus(t, first.data.runId)).toBe("ok");
    // The ledger's count reaches the tenant object within SPEND_REFRESH_MS: starts are refused then.
    let refused: Awaited<ReturnType<typeof ingestRun>> | undefined;
    for (let i = 1; i <= 40 && !refused; i++) {
      const start = await ingestRun(t, `spend-${i}`);
      if (start.status === 429) refused = start;
      else await new Promise((r) => setTimeout(r, 250));
    }
    expect(refused?.data.error).toEqual({
      type: "rate_limited",
      message: expect.stringMatching(/^Token limit reached: \d+ of 10 tokens used today \(UTC\)$/),
    });
    const retryAfter = Number(refused?.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    const limits = (await call(`${t.prefix}/v1/limits`, { token: t.token })).data.limits;
    expect(limits.tokensPerDay.limit).toBe(10);
    expect(limits.tokensPerDay.used).toBeGreaterThanOrEqual(10);
  }, 30_000);
});

describe("limits: operator ceilings, tenant config under them", () => {
  it("a tenant's config lowers a limit but never raises it; the operator sees and sets them", async () => {
    const t = await tenantWith("lim-views", "views", {
      limits: { runsInFlight: 500, runStartsPerMinute: 7 },
      rateLimit: { toolsPerMinute: 1_000_000_000, completionsPerMinute: 3 },
    });
    const mine = await call(`${t.prefix}/v1/limits`, { token: t.token });
    expect(mine.status).toBe(200);
    // The same over the gateway, for a read-only token too.
    const reader = await issueToken("lim-views", ["operator.read"]);
    const client = await GatewayClient.connect({ path: t.prefix, token: reader.token });
    open.push(client);
    const overGateway = await client.request("limits.get", {});
    // As over HTTP, but with this socket counted.
    expect(overGateway.payload).toEqual({
      limits: { ...mine.data.limits, sockets: { limit: 10_000, used: mine.data.limits.sockets.used + 1 } },
    });
    expect(mine.data.limits).toMatchObject({
      runsInFlight: { limit: 64, used: 0 },
      runsQueued: { limit: 256, used: 0 },
      runStartsPerMinute: { limit: 7 },
      toolsPerMinute: { limit: 6000 },
      completionsPerMinute: { limit: 3 },
    });
    // The operator lowers the ceiling: the tenant's 500 still does not count, its 7 still does.
    const put = await setOverride("lim-views", { runsInFlight: 8, runStartsPerMinute: 100 });
    expect(put.status).toBe(200);
    expect(put.data.override).toEqual({ runsInFlight: 8, runStartsPerMinute: 100 });
    expect(put.data.limits.runsInFlight.limit).toBe(8);
    expect(put.data.limits.runStartsPerMinute.limit).toBe(7);
    expect(put.data.deployment.runsInFlight).toBe(64);
    const read = await call("/v1/admin/tenants/lim-views/limits", { token: ADMIN });
    expect(read.data.limits.runsInFlight).toEqual({ limit: 8, used: 0 });
    expect((await call(`${t.prefix}/v1/limits`, { token: t.token })).data.limits.runsInFlight.limit).toBe(8);
    // Back to the deployment's defaults.
    expect((await setOverride("lim-views", {})).data.limits.runsInFlight.limit).toBe(64);
  });

  it("the admin API refuses a bad override and an unknown tenant; the tenant route needs a token", async () => {
    await createTenant("lim-bad");
    const zero = await setOverride("lim-bad", { runsInFlight: 0 });
    expect(zero.status).toBe(400);
    expect(zero.data.ok).toBe(false);
    expect((await setOverride("lim-bad", { widgets: 5 })).status).toBe(400);
    expect((await call("/v1/admin/tenants/lim-nobody/limits", { token: ADMIN })).status).toBe(404);
    expect((await call("/t/lim-bad/v1/limits", { token: null })).status).toBe(401);
  });
});

describe("sessions per tenant", () => {
  const append = (t: { token: string; prefix: string }, key: string) =>
    call(`${t.prefix}/v1/sessions/${key}/messages`, {
      method: "POST",
      token: t.token,
      json: { role: "user", content: `hi ${key}` },
    });
  const full = "Too many sessions: the tenant has 2 and the limit is 2; delete sessions to create new ones";

  it("a new key past the limit is refused in each door's shape; existing sessions keep working", async () => {
    // The tenant's 1,000 cannot raise the operator's 2.
    const t = await tenantWith("lim-sessions", "sessions", { limits: { sessions: 1000 } });
    expect((await setOverride("lim-sessions", { sessions: 2 })).status).toBe(200);
    expect((await append(t, "s1")).status).toBe(201);
    expect((await append(t, "s2")).status).toBe(201);
    const limits = (await call(`${t.prefix}/v1/limits`, { token: t.token })).data.limits;
    expect(limits.sessions).toEqual({ limit: 2, used: 2 });
    // HTTP ingest to a new key.
    const http = await append(t, "s3");
    expect(http.status).toBe(429);
    expect(http.headers.get("retry-after")).toBe("60");
    expect(http.data).toEqual({ ok: false, error: { type: "rate_limited", message: full } });
    // The gateway: sessions.create, chat.send and agent to a new key answer the error frame.
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    open.push(client);
    for (const [method, params] of [
      ["sessions.create", { key: "s4", label: "New" }],
      ["chat.send", { sessionKey: "s5", message: "hi", idempotencyKey: "gw-s5" }],
      ["agent", { sessionKey: "s6", message: "hi", idempotencyKey: "gw-s6" }],
    ] as const) {
      const res = await client.request(method, params);
      expect(res.ok, method).toBe(false);
      expect(res.error).toMatchObject({
        code: "UNAVAILABLE",
        message: `${full}; retry in 60 s`,
        retryable: false,
        retryAfterMs: 60_000,
      });
    }
    // The OpenAI routes (a new key by OpenClaw's header): OpenAI's error shape.
    const openai = await call(`${t.prefix}/v1/chat/completions`, {
      method: "POST",
      token: t.token,
      headers: { "x-openclaw-session-key": "s7" },
      json: { model: "openclaw", messages: [{ role: "user", content: "hi" }] },
    });
    expect(openai.status).toBe(429);
    expect(openai.data).toEqual({ error: { message: full, type: "rate_limit_error" } });
    // An import into a new key.
    const imported = await call(`${t.prefix}/v1/sessions/s8/import`, {
      method: "POST",
      token: t.token,
      json: {
        sessionId: crypto.randomUUID(),
        messages: [{ role: "user", content: "q", timestamp: 1_700_000_000_000, __openclaw: { id: "src-1", seq: 1 } }],
      },
    });
    expect(imported.status).toBe(429);
    expect(imported.data.error).toEqual({ type: "rate_limited", message: full });
    // Nothing was made for the refused keys; the existing sessions take messages and runs.
    const list = await client.request("sessions.list", {});
    expect(list.payload.sessions.map((s: { key: string }) => s.key).sort()).toEqual(["agent:main:s1", "agent:main:s2"]);
    expect((await append(t, "s1")).status).toBe(201);
    const run = await ingestRun(t, "s2");
    expect(run.status).toBe(201);
    expect(await runStatus(t, run.data.runId)).toBe("ok");
  });

  it("a hook's run in a new session is refused in the hooks' shape", async () => {
    const hooks = { enabled: true, token: "hook-secret-0123456789", path: "/hooks", allowedAgentIds: ["main"] };
    const t = await tenantWith("lim-sessions-hook", "sessions-hook", { hooks, limits: { sessions: 1 } });
    expect((await append(t, "only")).status).toBe(201);
    const res = await call(`${t.prefix}/hooks/agent`, {
      method: "POST",
      token: null,
      headers: { authorization: "Bearer hook-secret-0123456789" },
      json: { message: "from a hook", deliver: false },
    });
    expect(res.status).toBe(429);
    expect(res.data).toEqual({
      ok: false,
      error: "Too many sessions: the tenant has 1 and the limit is 1; delete sessions to create new ones",
    });
  });

  it("a sessions_spawn child is refused: 429 over /tools/invoke", async () => {
    const t = await tenantWith("lim-sessions-spawn", "sessions-spawn", {
      limits: { sessions: 1 },
      gateway: { tools: { allow: ["sessions_spawn"] } },
    });
    expect((await append(t, "main")).status).toBe(201);
    const http = await call(`${t.prefix}/tools/invoke`, {
      method: "POST",
      token: t.token,
      json: { tool: "sessions_spawn", args: { task: "a child" } },
    });
    expect(http.status).toBe(429);
    expect(http.headers.get("retry-after")).toBe("60");
    expect(http.data.error).toEqual({
      type: "rate_limited",
      message: "Too many sessions: the tenant has 1 and the limit is 1; delete sessions to create new ones",
    });
  });

  it("a tenant's config lowers the limit", async () => {
    const t = await tenantWith("lim-sessions-low", "sessions-low", { limits: { sessions: 1 } });
    expect((await append(t, "only")).status).toBe(201);
    const refused = await append(t, "another");
    expect(refused.status).toBe(429);
    expect(refused.data.error.message).toBe(
      "Too many sessions: the tenant has 1 and the limit is 1; delete sessions to create new ones",
    );
  });
});

describe("transcript bytes per session and per tenant", () => {
  const append = (t: { token: string; prefix: string }, key: string, content: string) =>
    call(`${t.prefix}/v1/sessions/${key}/messages`, {
      method: "POST",
      token: t.token,
      json: { role: "user", content },
    });
  const history = async (t: { token: string; prefix: string }, key: string) =>
    (await call(`${t.prefix}/sessions/${key}/history`, { token: t.token })).data.messages.length;

  it("a session at its lowered limit refuses the next append (413) and its transcript is unchanged", async () => {
    // The tenant lowers the 8 GiB default to 4 KB (a higher value would have no effect).
    const t = await tenantWith("lim-session-bytes", "session-bytes", { limits: { transcriptBytesPerSession: 4_000 } });
    const limits = (await call(`${t.prefix}/v1/limits`, { token: t.token })).data.limits;
    expect(limits.transcriptBytesPerSession).toEqual({ limit: 4_000 });
    expect((await append(t, "big", "x".repeat(1_500))).status).toBe(201);
    expect((await append(t, "big", "x".repeat(1_500))).status).toBe(201);
    const refused = await append(t, "big", "x".repeat(1_500));
    expect(refused.status).toBe(413);
    expect(refused.data.error.message).toMatch(
      /^the session holds \d+ bytes of messages; \d+ more would pass the limit of 4000 bytes per session/,
    );
    expect(await history(t, "big")).toBe(2);
    // A run's user message meets the same bound; other sessions are not affected.
    const run = await call(`${t.prefix}/v1/sessions/big/messages`, {
      method: "POST",
      token: t.token,
      json: { role: "user", content: "x".repeat(1_500), run: true },
    });
    expect(run.status).toBe(413);
    expect(await history(t, "big")).toBe(2);
    expect((await append(t, "other", "x".repeat(1_500))).status).toBe(201);
  });

  it("a tenant whose sessions hold its transcriptBytesPerTenant refuses appends with 429 until sessions are deleted", async () => {
    const t = await tenantWith("lim-tenant-bytes", "tenant-bytes");
    expect((await setOverride("lim-tenant-bytes", { transcriptBytesPerTenant: 4_000 })).status).toBe(200);
    expect((await append(t, "one", "x".repeat(2_500))).status).toBe(201);
    expect((await append(t, "two", "x".repeat(2_500))).status).toBe(201);
    // The index's running total follows the sessions' updates (sent after each append).
    await until(
      async () => (await call(`${t.prefix}/v1/limits`, { token: t.token })).data.limits.transcriptBytesPerTenant,
      (use) => use.used >= 4_000,
    );
    // The session objects ask again at most every 5 s: wait out the answer they hold.
    await new Promise((resolve) => setTimeout(resolve, 5_100));
    await append(t, "one", "y"); // may pass: it starts the refresh
    const refused = await append(t, "one", "z");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.data.error).toEqual({
      type: "rate_limited",
      message: expect.stringMatching(/^Transcript storage full: the tenant's sessions hold \d+ bytes .* limit is 4000/),
    });
    const before = await history(t, "one");
    expect((await append(t, "one", "z")).status).toBe(429);
    expect(await history(t, "one")).toBe(before);
    // Deleting a session frees its bytes.
    expect((await call(`${t.prefix}/v1/sessions/two`, { method: "DELETE", token: t.token })).status).toBe(200);
    const limits = (await call(`${t.prefix}/v1/limits`, { token: t.token })).data.limits;
    expect(limits.transcriptBytesPerTenant.used).toBeLessThan(4_000);
  }, 30_000);
});
