import { afterEach, describe, expect, inject, it } from "vitest";
import { call, freshTenant, issueToken, until } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

const open: GatewayClient[] = [];
afterEach(() => {
  for (const client of open.splice(0)) client.close();
});

async function console(label: string, config: Record<string, unknown> = {}) {
  const tenant = await freshTenant(label);
  if (Object.keys(config).length > 0) expect((await tenant.config(config)).status).toBe(200);
  const client = await GatewayClient.connect({ path: tenant.prefix, token: tenant.token });
  open.push(client);
  return { tenant, client };
}

describe("the tenant's config over the gateway (config.*)", () => {
  it("answers the real config with a hash, and writes it over that hash only", async () => {
    const { tenant, client } = await console("cfg", {
      agents: { list: [{ id: "main", default: true, name: "Ledger" }] },
    });
    const got = await client.request("config.get", {});
    expect(got.payload).toMatchObject({
      exists: true,
      valid: true,
      config: { agents: { list: [{ id: "main", name: "Ledger" }] } },
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.parse(got.payload.raw)).toEqual(got.payload.config);

    const next = { ...got.payload.config, session: { agentToAgent: { maxPingPongTurns: 2 } } };
    const set = await client.request("config.set", { raw: JSON.stringify(next), baseHash: got.payload.hash });
    expect(set.ok, JSON.stringify(set.error)).toBe(true);
    expect(set.payload.hash).not.toBe(got.payload.hash);
    expect((await tenant.call("/v1/config")).data.config.session).toEqual({ agentToAgent: { maxPingPongTurns: 2 } });

    // The hash it was loaded with is stale now; no hash at all is refused too.
    const stale = await client.request("config.set", { raw: JSON.stringify(next), baseHash: got.payload.hash });
    expect(stale.error?.message).toBe("config changed since last load; re-run config.get and retry");
    const hashless = await client.request("config.set", { raw: "{}" });
    expect(hashless.error?.message).toBe("config base hash required; re-run config.get and retry");
    const invalid = await client.request("config.set", {
      raw: JSON.stringify({ session: { scope: "everyone" } }),
      baseHash: set.payload.hash,
    });
    expect(invalid.error?.message).toMatch(/^invalid config: session\.scope: /);
    const notJson = await client.request("config.set", { raw: "{nope", baseHash: set.payload.hash });
    expect(notJson.ok).toBe(false);
  });

  it("merges a patch (agents by id, null deletes) and reports the changed paths", async () => {
    const { client } = await console("cfg-patch", {
      agents: {
        list: [
          { id: "main", default: true },
          { id: "ops", name: "Ops" },
        ],
      },
      session: { mainKey: "main" },
    });
    const { hash } = (await client.request("config.get", {})).payload;
    const patched = await client.request("config.patch", {
      raw: JSON.stringify({ agents: { list: [{ id: "ops", name: "Operations" }] }, session: { mainKey: null } }),
      baseHash: hash,
    });
    expect(patched.ok, JSON.stringify(patched.error)).toBe(true);
    expect(patched.payload.changedPaths.sort()).toEqual(["agents.list", "session.mainKey"]);
    expect(patched.payload.config.agents.list).toEqual([
      { id: "main", default: true },
      { id: "ops", name: "Operations" },
    ]);
    expect(patched.payload.config.session).toEqual({});
    const noop = await client.request("config.patch", { raw: "{}", baseHash: patched.payload.hash });
    expect(noop.payload).toMatchObject({ ok: true, noop: true, changedPaths: [] });
  });

  it("serves the JSON Schema of what it validates", async () => {
    const { client } = await console("cfg-schema");
    const schema = (await client.request("config.schema", {})).payload.schema;
    expect(schema.type).toBe("object");
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(["agents", "session", "tools", "gateway"]));
  });

  it("creates, renames and deletes agents; the only agent stays", async () => {
    const { tenant, client } = await console("agents");
    const created = await client.request("agents.create", { name: "Research Bot", emoji: "🔬" });
    expect(created.payload).toMatchObject({ ok: true, agentId: "research-bot", name: "Research Bot" });
    const list = (await tenant.call("/v1/config")).data.config.agents.list;
    expect(list).toEqual([
      { id: "main", default: true },
      { id: "research-bot", name: "Research Bot", emoji: "🔬" },
    ]);
    expect((await client.request("agents.create", { name: "research bot" })).error?.message).toBe(
      'agent "research-bot" already exists',
    );
    const updated = await client.request("agents.update", { agentId: "research-bot", name: "Researcher" });
    expect(updated.payload).toEqual({ ok: true, agentId: "research-bot" });
    const agents = await client.request("agents.list", {});
    expect(agents.payload.agents.map((a: { id: string; name?: string }) => [a.id, a.name])).toContainEqual([
      "research-bot",
      "Researcher",
    ]);
    expect((await client.request("agents.update", { agentId: "ghost", name: "x" })).error?.message).toBe(
      'agent "ghost" not found',
    );
    expect((await client.request("agents.delete", { agentId: "main" })).ok).toBe(true);
    expect((await client.request("agents.delete", { agentId: "research-bot" })).error?.message).toBe(
      'Agent "research-bot" is the only configured agent and cannot be deleted.',
    );
  });

  it("lets a read-only token read the config and nothing more", async () => {
    const { tenant } = await console("cfg-read");
    const reader = await issueToken(tenant.id, ["operator.read"]);
    const client = await GatewayClient.connect({ path: tenant.prefix, token: reader.token });
    open.push(client);
    const got = await client.request("config.get", {});
    expect(got.ok).toBe(true);
    for (const [method, params] of [
      ["config.set", { raw: "{}", baseHash: got.payload.hash }],
      ["config.patch", { raw: "{}", baseHash: got.payload.hash }],
      ["agents.create", { name: "x" }],
      ["agents.delete", { agentId: "main" }],
    ] as const) {
      const refused = await client.request(method, params);
      expect(refused.error, method).toMatchObject({ code: "FORBIDDEN", message: "missing scope: operator.admin" });
    }
    // Read as config.get reads it (redacted), never written.
    expect((await call(`${tenant.prefix}/v1/config`, { token: reader.token })).status).toBe(200);
    const put = await call(`${tenant.prefix}/v1/config`, { token: reader.token, method: "PUT", json: {} });
    expect(put.status).toBe(403);
  });
});

describe("usage and logs over the gateway (sessions.usage, logs.tail)", () => {
  const model = `http://127.0.0.1:${inject("toolModelPort")}/v1`;

  it("reports today's tokens of runs just made, per session, model and day", async () => {
    // Priced: USD 2 per million input tokens, 10 per million output tokens.
    const runner = { type: "openai", baseUrl: model, model: "mock", cost: { input: 2, output: 10 } };
    const { client } = await console("usage", { agents: { list: [{ id: "main", default: true, runner }] } });
    for (const [key, text] of [
      ["agent:main:usage-a", "one"],
      ["agent:main:usage-a", "two"],
      ["agent:main:usage-b", "three"],
    ]) {
      await client.request("chat.send", { sessionKey: key, message: text, idempotencyKey: crypto.randomUUID() });
      await client.waitFor((f) => f.event === "chat" && f.payload.sessionKey === key && f.payload.state === "final");
    }
    const today = new Date().toISOString().slice(0, 10);
    const usage = await until(
      () => client.request("sessions.usage", { startDate: today, endDate: today, limit: 100 }),
      (answer) => answer.payload?.aggregates?.daily?.[0]?.tokens > 0 && answer.payload.sessions.length === 2,
    );
    const { payload } = usage;
    expect(payload.startDate).toBe(today);
    const a = payload.sessions.find((s: { key: string }) => s.key === "agent:main:usage-a");
    expect(a.usage).toMatchObject({ messageCounts: { user: 2, assistant: 2 }, activityDates: [today] });
    expect(a.usage.input).toBeGreaterThan(0);
    expect(a.usage.output).toBeGreaterThan(0);
    expect(payload.aggregates.byModel).toEqual([
      expect.objectContaining({ provider: "openai", model: "mock", count: 3 }),
    ]);
    expect(payload.totals.totalTokens).toBe(
      payload.sessions.reduce((n: number, s: { usage: { totalTokens: number } }) => n + s.usage.totalTokens, 0),
    );
    expect(payload.aggregates.daily).toEqual([expect.objectContaining({ date: today, messages: 6 })]);
    const { input, output, totalCost, missingCostEntries } = payload.totals;
    expect(totalCost).toBeCloseTo((input * 2 + output * 10) / 1e6, 12);
    expect(missingCostEntries).toBe(0);
    const bad = await client.request("sessions.usage", { startDate: "last week" });
    expect(bad.error?.message).toBe("invalid sessions.usage params: startDate must be YYYY-MM-DD");
  });

  it("tails the tenant's own log lines: a failed run, a config change; never another tenant's", async () => {
    const runner = { type: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "nowhere" };
    const { tenant, client } = await console("logs", { agents: { list: [{ id: "main", default: true, runner }] } });
    await client.request("chat.send", { sessionKey: "main", message: "fail", idempotencyKey: crypto.randomUUID() });
    const tail = await until(
      () => client.request("logs.tail", { limit: 500, maxBytes: 250_000 }),
      (answer) => answer.payload?.lines?.some((line: string) => line.includes('"run.failed"')),
    );
    const lines = tail.payload.lines.map((line: string) => JSON.parse(line));
    expect(lines.find((line: { event: string }) => line.event === "run.failed")).toMatchObject({
      tenant: tenant.id,
      session: "agent:main:main",
      error: expect.stringContaining("model endpoint unreachable"),
    });
    expect(lines.some((line: { event: string }) => line.event === "config.changed")).toBe(true);
    // After the cursor: nothing new; another tenant sees none of these.
    const next = await client.request("logs.tail", { cursor: tail.payload.cursor });
    expect(next.payload.lines).toEqual([]);
    const other = await console("logs-other");
    const theirs = await other.client.request("logs.tail", {});
    expect(theirs.payload.lines.every((line: string) => !line.includes(tenant.id))).toBe(true);
  });
});

describe("lists that tell the truth, and transcript search", () => {
  it("finds a message by its words across sessions, newest first, with a snippet", async () => {
    const { tenant, client } = await console("search");
    await tenant.append("agent:main:notes-a", { role: "user", content: "The quarterly Budget review is on Friday." });
    await tenant.append("agent:main:notes-b", { role: "user", content: "nothing to see" });
    await tenant.append("agent:main:notes-b", { role: "assistant", content: "the budget is fine" });
    const found = await client.request("sessions.search", { query: "budget", limit: 25 });
    expect(found.ok, JSON.stringify(found.error)).toBe(true);
    expect(found.payload.hits.map((hit: { sessionKey: string; role: string }) => [hit.sessionKey, hit.role])).toEqual([
      ["agent:main:notes-b", "assistant"],
      ["agent:main:notes-a", "user"],
    ]);
    expect(found.payload.hits[1].snippet).toBe("The quarterly Budget review is on Friday.");
    expect(found.payload).toMatchObject({ indexing: false, truncated: false });
    // With a scope (the Control UI's form), the hits are `results` beside their sessions' rows.
    const scoped = await client.request("sessions.search", { query: "budget", limit: 25, scope: { agentId: "main" } });
    expect(scoped.payload.results).toHaveLength(2);
    expect(scoped.payload.sessions.map((row: { key: string }) => row.key).sort()).toEqual([
      "agent:main:notes-a",
      "agent:main:notes-b",
    ]);
    // A word only in the stored JSON (a key) is no hit; an empty query is refused in OpenClaw's words.
    expect((await client.request("sessions.search", { query: "role" })).payload.hits).toEqual([]);
    expect((await client.request("sessions.search", { query: "  " })).error?.message).toBe("query must not be empty");
  });

  it("searches the archived sessions when the scope asks for them (the UI's Archived and All tabs)", async () => {
    const { tenant, client } = await console("search-archived");
    await tenant.append("agent:main:kept", { role: "user", content: "Lisbon trip, active notes" });
    await tenant.append("agent:main:shelved", { role: "user", content: "Lisbon trip, old notes" });
    const shelved = (await client.request("sessions.describe", { key: "agent:main:shelved" })).payload.session;
    const archive = { key: "agent:main:shelved", archived: true, expectedSessionId: shelved.sessionId };
    expect((await client.request("sessions.patch", archive)).ok).toBe(true);
    // What the UI sends: its sessions.list filters as the scope (here its three tabs).
    const scope = { includeGlobal: true, includeUnknown: true, agentId: "main", search: "" };
    const keysOf = async (archived?: boolean | "all") => {
      const found = await client.request("sessions.search", {
        query: "Lisbon",
        limit: 25,
        scope: { ...scope, ...(archived === undefined ? {} : { archived }) },
      });
      expect(found.ok, JSON.stringify(found.error)).toBe(true);
      const rows = found.payload.sessions.map((row: { key: string; archived: boolean }) => [row.key, row.archived]);
      return { hits: found.payload.results.map((hit: { sessionKey: string }) => hit.sessionKey).sort(), rows };
    };
    expect((await keysOf()).hits).toEqual(["agent:main:kept"]);
    expect((await keysOf(false)).hits).toEqual(["agent:main:kept"]);
    const archivedOnly = await keysOf(true);
    expect(archivedOnly.hits).toEqual(["agent:main:shelved"]);
    expect(archivedOnly.rows).toEqual([["agent:main:shelved", true]]);
    expect((await keysOf("all")).hits).toEqual(["agent:main:kept", "agent:main:shelved"]);
  });

  it("honours hasBoard and activeOnly instead of listing every session", async () => {
    const { tenant, client } = await console("list-truth");
    await tenant.append("agent:main:idle", { role: "user", content: "hi" });
    const all = await client.request("sessions.list", { archived: "all" });
    expect(all.payload.count).toBeGreaterThan(0);
    expect((await client.request("sessions.list", { hasBoard: true, archived: "all" })).payload.count).toBe(0);
    expect((await client.request("sessions.list", { activeOnly: true, archived: "all" })).payload.count).toBe(0);
  });
});

describe("answers that were false", () => {
  it("stores a session's icon and color, refuses a fork it cannot copy and a model the runner cannot use", async () => {
    const runner = { type: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "gpt-x" };
    const { tenant, client } = await console("false", {
      agents: {
        list: [
          { id: "main", default: true, runner },
          { id: "hooks", runner: { type: "echo" } },
        ],
      },
    });
    await tenant.append("agent:main:styled", { role: "user", content: "hi" });
    const patched = await client.request("sessions.patch", { key: "agent:main:styled", icon: "🚀", color: "#ff0000" });
    expect(patched.ok, JSON.stringify(patched.error)).toBe(true);
    const row = (await client.request("sessions.describe", { key: "agent:main:styled" })).payload.session;
    expect(row).toMatchObject({ icon: "🚀", color: "#ff0000" });
    const fork = await client.request("sessions.create", { parentSessionKey: "agent:main:styled", fork: true });
    expect(fork.error?.message).toBe("fork is not available on this gateway: create the session without fork");
    const model = await client.request("sessions.patch", { key: "agent:main:styled", model: "echo/echo" });
    expect(model.error?.message).toBe("model not allowed: echo/echo");
    expect(
      (await client.request("sessions.patch", { key: "agent:main:styled", model: "openai/gpt-y" })).error?.message,
    ).toBe("model not allowed: openai/gpt-y");
    expect((await client.request("sessions.patch", { key: "agent:main:styled", model: "openai/gpt-x" })).ok).toBe(true);
    const picker = await client.request("models.list", { agentId: "main" });
    expect(picker.payload.models.map((m: { provider: string }) => m.provider)).toEqual(["openai"]);
    const all = await client.request("models.list", {});
    expect(all.payload.models.map((m: { provider: string }) => m.provider).sort()).toEqual(["echo", "openai"]);
  });
});

describe("slash commands in chat.send", () => {
  async function send(client: GatewayClient, sessionKey: string, message: string) {
    const idempotencyKey = crypto.randomUUID();
    const ack = await client.request("chat.send", { sessionKey, message, idempotencyKey });
    expect(ack.ok, JSON.stringify(ack.error)).toBe(true);
    const final = await client.waitFor(
      (f) => f.event === "chat" && f.payload.runId === idempotencyKey && ["final", "error"].includes(f.payload.state),
    );
    return final.payload.message?.content?.[0]?.text as string;
  }

  it("runs /reset, /new, /name, /think, /status and /help without the model, and announces them", async () => {
    const { client } = await console("commands");
    expect(await send(client, "main", "hello")).toBe("ECHO: hello");
    const describe = async () => (await client.request("sessions.describe", { key: "main" })).payload.session;
    const before = (await describe()).sessionId;
    expect(await send(client, "main", "/reset")).toBe("✅ Session reset.");
    expect((await describe()).sessionId).not.toBe(before);
    expect(await send(client, "main", "/new")).toBe("✅ New session started.");
    expect(await send(client, "main", "/name Quarterly plan")).toBe("✅ Session renamed to “Quarterly plan”.");
    expect((await describe()).label).toBe("Quarterly plan");
    expect(await send(client, "main", "/think high")).toBe("Thinking level set to high.");
    expect(await send(client, "main", "/status")).toContain("\n🎛️ Modes: think high · fast off");
    expect(await send(client, "main", "/help")).toMatch(/^ℹ️ Help\n\nSession\n\/new {2}\| {2}\/reset/);
    expect(await send(client, "main", "/compact")).toBe("⚠️ /compact is not available on this gateway.");
    // The same command layer as the chats': no sender through chat.send (OpenClaw's webchat).
    expect(await send(client, "main", "/whoami")).toBe("🧭 Identity\nChannel: webchat");
    expect(await send(client, "main", "/commands")).toMatch(/^ℹ️ Slash commands\n\nSession\n/);
    // Text that is no command still reaches the model.
    expect(await send(client, "main", "/etc/hosts is a file")).toBe("ECHO: /etc/hosts is a file");
    const metadata = await client.request("chat.metadata", { sessionKey: "main" });
    expect(metadata.payload.commands.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(["reset", "new", "name", "think", "stop", "help", "status", "model"]),
    );
  });
});
