import { afterEach, describe, expect, inject, it } from "vitest";
import { call, freshTenant, user } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const open: GatewayClient[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

async function uiTenant(config: Record<string, unknown> = {}) {
  const tenant = await freshTenant("ui");
  if (Object.keys(config).length > 0) expect((await tenant.config(config)).status).toBe(200);
  const client = await GatewayClient.connect({ path: tenant.prefix, token: tenant.token });
  open.push(client);
  return { tenant, client };
}

const UUID = "3f9c2a71-8d4e-4b6a-9c1f-2e7d5a8b0c43";

describe("Control UI served by the worker", () => {
  it("serves index.html with the tenant's base path for html navigations and the bootstrap config for a token", async () => {
    const tenant = await freshTenant("ui-html");
    const page = await call(`${tenant.prefix}/chat/main/demo`, { token: null, headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    const html = page.text;
    expect(html).toContain(`data-openclaw-control-ui-base-path="${tenant.prefix}"`);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const anonymous = await call(`${tenant.prefix}/control-ui-config.json`, { token: null });
    expect(anonymous.status).toBe(401);
    const config = await call(`${tenant.prefix}/control-ui-config.json`, { token: tenant.token });
    expect(config.status).toBe(200);
    expect(config.data).toMatchObject({ basePath: tenant.prefix, assistantAgentId: "main" });
    // The API is untouched by the UI: JSON clients still get JSON at the same paths.
    const api = await tenant.call("/v1/sessions");
    expect(api.headers.get("content-type")).toContain("application/json");
  });
});

describe("Control UI gateway methods", () => {
  it("describes a session by key (null when it does not exist) and lists agents with their model", async () => {
    const runner = { type: "openai", baseUrl: `${peer}/v1`, model: "echo-model" };
    const { tenant, client } = await uiTenant({
      agents: { list: [{ id: "main", default: true, name: "Tide", runner }] },
    });
    await tenant.append("agent:main:demo", user("hello"));
    const described = await client.request("sessions.describe", { key: "agent:main:demo", includeLastMessage: true });
    expect(described.payload.session).toMatchObject({ key: "agent:main:demo", agentId: "main", unread: true });
    const missing = await client.request("sessions.describe", { key: "agent:main:nope" });
    expect(missing.payload).toEqual({ session: null });
    const agents = await client.request("agents.list", { includeIdentity: true });
    expect(agents.payload.agents[0]).toMatchObject({ id: "main", model: { primary: "openai/echo-model" } });
    const identity = await client.request("agent.identity.get", { agentId: "main" });
    expect(identity.payload).toMatchObject({ agentId: "main", name: "Tide", avatar: "T" });
    const models = await client.request("models.list", {});
    expect(models.payload.models).toEqual([expect.objectContaining({ id: "echo-model", provider: "openai" })]);
  });

  it("opens a chat pane in one call: history, the session's row and model, the agent's defaults", async () => {
    const runner = { type: "openai", baseUrl: `${peer}/v1`, model: "echo-model" };
    const { tenant, client } = await uiTenant({ agents: { list: [{ id: "main", default: true, runner }] } });
    await tenant.append("agent:main:pane", user("first"));
    await tenant.append("agent:main:pane", user("second"));
    const startup = await client.request("chat.startup", { sessionKey: "agent:main:pane", limit: 1 });
    expect(startup.payload.messages.map((m: { content: unknown }) => m.content)).toEqual(["second"]);
    expect(startup.payload.sessionInfo).toMatchObject({
      key: "agent:main:pane",
      model: "echo-model",
      modelProvider: "openai",
    });
    expect(startup.payload.defaults).toMatchObject({ model: "echo-model", modelProvider: "openai" });
    expect(startup.payload.pendingInputs).toEqual({ items: [], total: 0 });
    const fresh = await client.request("chat.startup", { sessionKey: "agent:main:never" });
    expect(fresh.payload).toMatchObject({ messages: [], sessionInfo: { key: "agent:main:never", agentId: "main" } });
  });

  it("resolves a chat URL by the short id of a UUID key and by reference, and a miss with allowMissing is ok:false", async () => {
    const { tenant, client } = await uiTenant();
    const key = `agent:main:dashboard:${UUID}`;
    await tenant.append(key, user("note"));
    const shortId = UUID.replace(/-/g, "").slice(0, 8);
    expect((await client.request("sessions.resolve", { shortId })).payload).toMatchObject({ ok: true, key });
    const byReference = await client.request("sessions.resolve", { reference: { key } });
    expect(byReference.payload).toMatchObject({ ok: true, key });
    const miss = await client.request("sessions.resolve", { shortId: "0badc0de", allowMissing: true });
    expect(miss.payload).toEqual({ ok: false });
    // Two UUID keys sharing the short id: both offered, as OpenClaw does.
    const twin = `agent:main:dashboard:${UUID.slice(0, 9)}ffff-4b6a-9c1f-2e7d5a8b0c44`;
    await tenant.append(twin, user("twin"));
    const ambiguous = await client.request("sessions.resolve", { shortId });
    expect(ambiguous.payload).toMatchObject({ ok: true, ambiguous: true });
    expect(ambiguous.payload.candidates.map((c: { key: string }) => c.key).sort()).toEqual([key, twin].sort());
    const error = await client.request("sessions.resolve", { shortId: "0badc0de" });
    expect(error.ok).toBe(false);
    expect(error.error.message).toBe("No session found: 0badc0de");
  });

  it("marks a session read, pinned and archived, and refuses pinning an archived one", async () => {
    const { tenant, client } = await uiTenant();
    await tenant.append("agent:main:marks", user("hi"));
    const unread = await client.request("sessions.describe", { key: "agent:main:marks" });
    expect(unread.payload.session.unread).toBe(true);
    expect((await client.request("sessions.patch", { key: "agent:main:marks", unread: false })).ok).toBe(true);
    expect((await client.request("sessions.patch", { key: "agent:main:marks", pinned: true })).ok).toBe(true);
    const marked = await client.request("sessions.describe", { key: "agent:main:marks" });
    expect(marked.payload.session).toMatchObject({ unread: false, pinned: true, archived: false });
    const sessionId = marked.payload.session.sessionId;
    expect(
      (
        await client.request("sessions.patch", {
          key: "agent:main:marks",
          archived: true,
          expectedSessionId: sessionId,
        })
      ).ok,
    ).toBe(true);
    const archived = await client.request("sessions.describe", { key: "agent:main:marks" });
    expect(archived.payload.session).toMatchObject({ archived: true, pinned: false });
    const refused = await client.request("sessions.patch", { key: "agent:main:marks", pinned: true });
    expect(refused.error.message).toBe("cannot pin an archived session; restore it first");
  });

  it("runs a session's turns with the model chosen for it on the openai runner", async () => {
    const runner = { type: "openai", baseUrl: `${peer}/v1`, model: "echo-model" };
    // `system-echo` is offered to main: another agent's runner at the same endpoint has it.
    const sys = { ...runner, model: "system-echo" };
    const { client } = await uiTenant({
      agents: {
        list: [
          { id: "main", default: true, runner },
          { id: "sys", runner: sys },
        ],
      },
    });
    const patched = await client.request("sessions.patch", { key: "agent:main:picked", model: "openai/system-echo" });
    expect(patched.ok, JSON.stringify(patched.error)).toBe(true);
    await client.request("chat.send", { sessionKey: "agent:main:picked", message: "hi", idempotencyKey: "pick-1" });
    const picked = await client.waitFor(
      (f) => f.event === "chat" && f.payload.runId === "pick-1" && f.payload.state === "final",
      10_000,
    );
    // The peer's `system-echo` model answers with the system prompt, `echo-model` would echo.
    expect(picked.payload.message.content[0].text).toMatch(/^SYSTEM:/);
    await client.request("chat.send", { sessionKey: "agent:main:other", message: "hi", idempotencyKey: "pick-2" });
    const other = await client.waitFor(
      (f) => f.event === "chat" && f.payload.runId === "pick-2" && f.payload.state === "final",
      10_000,
    );
    expect(other.payload.message.content[0].text).toBe("ECHO: hi");
  });

  it("answers the UI's start-up calls for features this service lacks with empty lists in the real shapes", async () => {
    const tenant = await freshTenant("ui-empty");
    const client = await GatewayClient.open(tenant.prefix);
    open.push(client);
    const hello = await client.handshake({ token: tenant.token });
    expect((await client.request("question.list", {})).payload).toEqual({ questions: [] });
    expect((await client.request("tasks.list", { limit: 5 })).payload).toEqual({ tasks: [] });
    expect((await client.request("exec.approval.list", {})).payload).toEqual([]);
    // The Automations page refuses an inventory page without a (non-empty) snapshot revision.
    const cronList = (await client.request("cron.list", { limit: 50 })).payload;
    expect(cronList).toMatchObject({ jobs: [], total: 0 });
    expect(cronList.snapshotRevision).toMatch(/^r\d+$/);
    expect((await client.request("plugins.catalog.browse", { intent: "all" })).payload).toEqual({ items: [] });
    expect((await client.request("config.get", {})).payload).toMatchObject({ exists: true, valid: true, issues: [] });
    const methods: string[] = hello.payload.features.methods;
    for (const method of ["chat.startup", "sessions.describe", "models.list", "question.list", "config.get"]) {
      expect(methods).toContain(method);
    }
  });
});

describe("Control UI paths that cannot name a tenant", () => {
  it("answers a malformed percent escape in /t/… with a client error, never a 500", async () => {
    expect((await call("/t/%E0%A4%A/", { token: null, headers: { accept: "text/html" } })).status).toBeLessThan(500);
    expect((await call("/t/%ZZ/v1/sessions")).status).toBeLessThan(500);
  });
});
