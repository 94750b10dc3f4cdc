import { evictDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, inject, it } from "vitest";
import { freshTenant, grantDeploymentKey } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * What the Control UI reads must be true for this service (issue 40): its tool catalog and
 * effective tools, its slash commands, the uptime, the models a session may pick, the agents'
 * names and their changes, and the features this service does not have.
 */

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const open: GatewayClient[] = [];
afterEach(() => {
  for (const client of open.splice(0)) client.close();
});

async function ui(label: string, config: Record<string, unknown> = {}, grants: string[] = []) {
  const tenant = await freshTenant(label);
  for (const name of grants) await grantDeploymentKey(tenant.id, name);
  if (Object.keys(config).length > 0) expect((await tenant.config(config)).status).toBe(200);
  const client = await GatewayClient.connect({ path: tenant.prefix, token: tenant.token });
  open.push(client);
  return { tenant, client };
}

const ids = (groups: { tools: { id: string }[] }[]) => groups.flatMap((group) => group.tools.map((tool) => tool.id));

describe("tools.catalog and tools.effective", () => {
  it("list the six session tools and the offer a run of the session gets, not OpenClaw's 58", async () => {
    const { client } = await ui("tools", {
      agents: { list: [{ id: "main", default: true, tools: { profile: "coding" } }, { id: "scout" }] },
    });
    const catalog = await client.request("tools.catalog", { agentId: "main", includePlugins: true });
    expect(catalog.ok, JSON.stringify(catalog.error)).toBe(true);
    expect(catalog.payload.agentId).toBe("main");
    expect(catalog.payload.profiles.map((p: { id: string }) => p.id)).toEqual([
      "minimal",
      "coding",
      "messaging",
      "full",
    ]);
    expect(ids(catalog.payload.groups).sort()).toEqual(
      ["agents_list", "session_status", "sessions_history", "sessions_list", "sessions_send", "sessions_spawn"].sort(),
    );
    expect(catalog.payload.groups[0].tools[0]).toMatchObject({
      source: "core",
      defaultProfiles: ["coding", "messaging"],
    });

    // The coding profile leaves out agents_list, as in the tool loop's offer.
    const effective = await client.request("tools.effective", { agentId: "main", sessionKey: "agent:main:main" });
    expect(effective.ok, JSON.stringify(effective.error)).toBe(true);
    expect(effective.payload).toMatchObject({ agentId: "main", profile: "coding" });
    expect(effective.payload.groups).toHaveLength(1);
    expect(effective.payload.groups[0]).toMatchObject({ id: "core", label: "Built-in tools", source: "core" });
    expect(ids(effective.payload.groups)).not.toContain("agents_list");
    expect(ids(effective.payload.groups)).toHaveLength(5);
    const scout = await client.request("tools.effective", { sessionKey: "agent:scout:main" });
    expect(ids(scout.payload.groups)).toContain("agents_list");
    expect(scout.payload.profile).toBe("full");

    // A sub-agent at the spawn depth cap is offered none of them.
    const child = "agent:main:subagent:leaf";
    expect((await client.request("sessions.patch", { key: child, spawnDepth: 1 })).ok).toBe(true);
    const leaf = await client.request("tools.effective", { sessionKey: child });
    expect(leaf.payload.groups).toEqual([]);

    // OpenClaw's messages for an unknown agent and a session of another agent.
    expect((await client.request("tools.catalog", { agentId: "ghost" })).error.message).toBe(
      'unknown agent id "ghost"',
    );
    const mismatch = await client.request("tools.effective", { agentId: "scout", sessionKey: "agent:main:main" });
    expect(mismatch.error.message).toBe('agent id "scout" does not match session agent "main"');
  });
});

describe("commands.list", () => {
  it("lists the slash commands chat.send runs here, in OpenClaw's shape, and none it only refuses", async () => {
    const { client } = await ui("commands");
    const listed = await client.request("commands.list", { agentId: "main", includeArgs: true, scope: "text" });
    expect(listed.ok, JSON.stringify(listed.error)).toBe(true);
    const names = listed.payload.commands.map((c: { name: string }) => c.name);
    expect(names).toEqual([
      "help",
      "commands",
      "status",
      "stop",
      "reset",
      "new",
      "name",
      "think",
      "model",
      "send",
      "whoami",
    ]);
    expect(names).not.toContain("bash");
    expect(listed.payload.commands.find((c: { name: string }) => c.name === "think")).toMatchObject({
      textAliases: ["/think", "/thinking", "/t"],
      source: "native",
      scope: "both",
      acceptsArgs: true,
      category: "options",
    });
    expect((await client.request("commands.list", { agentId: "ghost" })).error.message).toBe(
      'unknown agent id "ghost"',
    );
  });
});

describe("system.info", () => {
  it("answers the gateway object's uptime, not the time since 1970", async () => {
    const { client } = await ui("uptime");
    const info = await client.request("system.info", {});
    expect(info.ok).toBe(true);
    expect(info.payload.uptimeMs).toBeGreaterThanOrEqual(0);
    expect(info.payload.uptimeMs).toBeLessThan(24 * 60 * 60 * 1000);
  });

  it("keeps counting when the tenant object restarts (as after hibernation), hello-ok too", async () => {
    const { tenant, client } = await ui("uptime-wake");
    const before = (await client.request("system.info", {})).payload.uptimeMs;
    const waitedMs = 1_000;
    await new Promise((resolve) => setTimeout(resolve, waitedMs));
    client.close();
    // A new instance of the object: a clock taken when it starts would read ~0 now.
    await evictDurableObject(env.TENANTS.getByName(tenant.id));
    const again = await GatewayClient.open(tenant.prefix);
    open.push(again);
    const hello = await again.handshake({ token: tenant.token });
    expect(hello.payload.snapshot.uptimeMs).toBeGreaterThanOrEqual(before + waitedMs);
    const after = (await again.request("system.info", {})).payload.uptimeMs;
    expect(after).toBeGreaterThanOrEqual(before + waitedMs);
  });
});

describe("a session's model", () => {
  it("is one its agent's runner offers: sessions.patch and /model refuse others with OpenClaw's words", async () => {
    const runner = { type: "openai", baseUrl: `${peer}/v1`, model: "echo-model" };
    const { client } = await ui("models", {
      agents: {
        list: [
          { id: "main", default: true, runner },
          { id: "sys", runner: { ...runner, model: "system-echo" } },
          { id: "elsewhere", runner: { ...runner, baseUrl: "http://127.0.0.1:9/v1", model: "far-model" } },
          { id: "plain", runner: { type: "echo" } },
        ],
      },
    });
    const patch = (key: string, model: string) => client.request("sessions.patch", { key, model });
    expect((await patch("agent:main:m", "/help")).error.message).toBe("invalid model: /help");
    expect((await patch("agent:main:m", " ")).error.message).toBe("invalid model: empty");
    expect((await patch("agent:main:m", "openai/far-model")).error.message).toBe("model not allowed: openai/far-model");
    expect((await patch("agent:main:m", "echo/echo")).error.message).toBe("model not allowed: echo/echo");
    // Another agent's runner at the same endpoint serves its model: offered.
    expect((await patch("agent:main:m", "openai/system-echo")).ok).toBe(true);
    expect((await patch("agent:main:m", "echo-model")).ok).toBe(true);
    expect((await patch("agent:plain:m", "echo")).ok).toBe(true);
    expect((await patch("agent:plain:m", "gpt-4o")).error.message).toBe("model not allowed: echo/gpt-4o");
    // Credentials: only a runner configured with an API key has one (here none).
    const auth = await client.request("models.authStatus", { agentId: "main" });
    expect(auth.payload.providers).toEqual([]);
    const picker = await client.request("models.list", { agentId: "main" });
    expect(picker.payload.models.map((m: { id: string }) => m.id).sort()).toEqual(["echo-model", "system-echo"]);
    const startup = await client.request("chat.startup", { sessionKey: "agent:plain:m" });
    expect(startup.payload.metadata.models.map((m: { id: string }) => m.id)).toEqual(["echo"]);
    expect(startup.payload.metadata.commands.map((c: { name: string }) => c.name)).toContain("send");

    const send = async (message: string) => {
      const idempotencyKey = crypto.randomUUID();
      await client.request("chat.send", { sessionKey: "agent:main:typed", message, idempotencyKey });
      const final = await client.waitFor(
        (f) => f.event === "chat" && f.payload.runId === idempotencyKey && f.payload.state === "final",
      );
      return final.payload.message.content[0].text as string;
    };
    expect(await send("/model /help")).toBe(
      "⚠️ invalid model: /help\nAvailable: openai/echo-model, openai/system-echo.",
    );
    expect(await send("/model openai/system-echo")).toBe(
      "Model set to openai/system-echo for this session only; configured default unchanged.",
    );
    const row = (await client.request("sessions.describe", { key: "agent:main:typed" })).payload.session;
    expect(row.model).toContain("system-echo");
  });
});

describe("a session's model after the config changed", () => {
  it("is not sent once the agent's runner no longer offers it: the run uses the runner's own", async () => {
    const runner = { type: "openai", baseUrl: `${peer}/v1`, model: "echo-model" };
    const both = {
      agents: {
        list: [
          { id: "main", default: true, runner },
          { id: "sys", runner: { ...runner, model: "system-echo" } },
        ],
      },
    };
    const { tenant, client } = await ui("stale-model", both);
    expect((await client.request("sessions.patch", { key: "agent:main:kept", model: "openai/system-echo" })).ok).toBe(
      true,
    );
    const run = async (idempotencyKey: string) => {
      await client.request("chat.send", { sessionKey: "agent:main:kept", message: "hi", idempotencyKey });
      const final = await client.waitFor(
        (f) => f.event === "chat" && f.payload.runId === idempotencyKey && f.payload.state === "final",
        10_000,
      );
      return final.payload.message.content[0].text as string;
    };
    // The peer's `system-echo` answers with the system prompt, `echo-model` echoes.
    expect(await run("stale-1")).toMatch(/^SYSTEM:/);
    expect((await tenant.config({ agents: { list: [{ id: "main", default: true, runner }] } })).status).toBe(200);
    expect(await run("stale-2")).toBe("ECHO: hi");
  });
});

describe("models.authStatus", () => {
  it("lists the API key of a runner configured with one as OpenClaw's static credential, per agent", async () => {
    const keyed = { type: "openai", baseUrl: `${peer}/v1`, model: "echo-model", apiKeySecret: "MODEL_KEY_TEST" };
    const { client } = await ui(
      "auth",
      {
        agents: {
          list: [
            { id: "main", default: true, runner: keyed },
            { id: "plain", runner: { type: "echo" } },
          ],
        },
      },
      ["MODEL_KEY_TEST"],
    );
    const main = await client.request("models.authStatus", { agentId: "main" });
    expect(main.payload.providers).toEqual([
      {
        provider: "openai",
        authProvider: "openai",
        displayName: "OpenAI",
        status: "static",
        profiles: [],
        apiKey: { source: "env", envVar: "MODEL_KEY_TEST" },
      },
    ]);
    expect((await client.request("models.authStatus", { agentId: "plain" })).payload.providers).toEqual([]);
    expect((await client.request("models.authStatus", {})).payload.providers).toHaveLength(1);
  });
});

describe("agents in the Control UI", () => {
  it("pushes config.changed to every reader after an agent is added, and leaves unnamed agents unnamed", async () => {
    const { tenant, client } = await ui("agents", { agents: { list: [{ id: "main", default: true }] } });
    const watcher = await GatewayClient.connect({ path: tenant.prefix, token: tenant.token });
    open.push(watcher);
    const created = await client.request("agents.create", { name: "Scout", workspace: "scout" });
    expect(created.ok, JSON.stringify(created.error)).toBe(true);
    const changed = await watcher.waitFor((f) => f.event === "config.changed");
    const hash = (await watcher.request("config.get", {})).payload.hash;
    expect(changed.payload).toMatchObject({ path: expect.stringMatching(/^tenant:/), hash, ts: expect.any(Number) });
    // A config written over HTTP is announced the same way.
    expect((await tenant.config({ agents: { list: [{ id: "main", default: true }, { id: "helper" }] } })).status).toBe(
      200,
    );
    await watcher.waitFor((f) => f.event === "config.changed" && f.payload.hash !== hash);
    const agents = (await watcher.request("agents.list", {})).payload.agents;
    expect(agents.map((a: { id: string }) => a.id)).toEqual(["main", "helper"]);
    // As OpenClaw's agents.list: no name and no identity for an agent without one (the UI shows its id).
    expect(agents[1]).not.toHaveProperty("name");
    expect(agents[1]).not.toHaveProperty("identity");
    expect(watcher.events("config.changed").length).toBeGreaterThanOrEqual(2);
  });
});

describe("features this service does not have", () => {
  it("refuses Ask OpenClaw and device pairing saying so, and answers Memory and Search as off", async () => {
    const { tenant, client } = await ui("absent");
    const other = await GatewayClient.open(tenant.prefix);
    open.push(other);
    const hello = await other.handshake({ token: tenant.token });
    expect(hello.payload.features.methods).toEqual(expect.arrayContaining(["openclaw.chat", "tools.effective"]));
    expect(hello.payload.features.events).toContain("config.changed");
    const ask = await client.request("openclaw.chat", { message: "set me up" });
    expect(ask.error).toMatchObject({ code: "INVALID_REQUEST" });
    expect(ask.error.message).toMatch(/^openclaw\.chat is not available on this gateway/);
    const pair = await client.request("device.pair.setupCode", {});
    expect(pair.error.message).toMatch(/^device pairing is not available on this gateway/);
    // OpenClaw's answer without a memory search manager (the Memory page says so).
    const memory = await client.request("doctor.memory.status", { agentId: "main" });
    expect(memory.payload).toEqual({
      agentId: "main",
      searchRuntimeRegistered: false,
      embedding: { ok: false, error: "agent memory is not available on this service" },
    });
    const search = await client.request("webSearch.status", { agentId: "main" });
    expect(search.payload).toMatchObject({
      enabled: false,
      model: { provider: "echo", id: "echo" },
      route: { kind: "disabled", testable: false },
    });
  });
});

describe("Labs and Privacy & Security", () => {
  it("read Tool Search, Code Mode, exec and the browser as off in config.get; writes may send that back, never on", async () => {
    const { tenant, client } = await ui("labs", { tools: { profile: "coding" } });
    const got = await client.request("config.get", {});
    expect(got.ok, JSON.stringify(got.error)).toBe(true);
    const off = {
      tools: {
        profile: "coding",
        toolSearch: { enabled: false },
        codeMode: { enabled: false },
        exec: { security: "deny" },
      },
      browser: { enabled: false },
      // Skill Workshop's self-learning, Security's "Gateway auth", Updates' checks: as they are here.
      skills: { workshop: { autonomous: { mode: "off" } } },
      gateway: { auth: { mode: "token" } },
      update: { checkOnStart: false, auto: { enabled: false } },
    };
    // Every view the pages read (Labs: the snapshot's config; Privacy & Security: the form from it).
    for (const view of ["config", "parsed", "resolved", "sourceConfig"]) expect(got.payload[view]).toEqual(off);
    expect(JSON.parse(got.payload.raw)).toEqual(off);
    // Never stored: the HTTP config and the hash stay the stored config's.
    expect((await tenant.call("/v1/config")).data.config).toEqual({ tools: { profile: "coding" } });

    // The UI's whole-config round trip is accepted and changes nothing stored, hash included.
    const set = await client.request("config.set", { raw: got.payload.raw, baseHash: got.payload.hash });
    expect(set.ok, JSON.stringify(set.error)).toBe(true);
    expect(set.payload.hash).toBe(got.payload.hash);
    const again = await client.request("config.patch", {
      raw: JSON.stringify({ tools: { toolSearch: { enabled: false } } }),
      baseHash: got.payload.hash,
    });
    expect(again.payload).toMatchObject({ ok: true, noop: true });

    // What the toggles send to turn a feature on is refused, saying why.
    const refused = async (raw: unknown) => {
      const answer = await client.request("config.patch", { raw: JSON.stringify(raw), baseHash: got.payload.hash });
      expect(answer.ok).toBe(false);
      return answer.error.message as string;
    };
    // Labs › Tool Search on: back to OpenClaw's default (null), or explicitly on.
    expect(await refused({ tools: { toolSearch: null } })).toBe(
      "invalid config: tools.toolSearch: Tool Search is not available on this service (the model is offered its tools directly); only enabled: false",
    );
    expect(await refused({ tools: { toolSearch: { enabled: true, mode: "tools" } } })).toMatch(
      /^invalid config: tools\.toolSearch(\.enabled)?: Tool Search is not available on this service/,
    );
    expect(await refused({ tools: { codeMode: { enabled: "auto" } } })).toBe(
      "invalid config: tools.codeMode.enabled: Code Mode is not available on this service; only enabled: false",
    );
    // Privacy & Security › Browser enabled: the form drops browser.enabled and sets the whole config.
    const browserOn = { ...off, browser: {} };
    const setOn = await client.request("config.set", { raw: JSON.stringify(browserOn), baseHash: got.payload.hash });
    expect(setOn.error.message).toBe(
      "invalid config: browser.enabled: the browser tool is not available on this service; only enabled: false",
    );
    expect(await refused({ browser: null })).toMatch(/^invalid config: browser: the browser tool is not available/);
    const put = await tenant.config({ tools: { exec: { security: "full" } } });
    expect(put.status).toBe(400);
    expect(put.data.error.message).toMatch(/tools\.exec\.security: exec is not available on this service/);
    expect((await client.request("config.get", {})).payload.hash).toBe(got.payload.hash);
    // Skill Workshop › Self-learning on, Updates › Check for updates on: refused, saying why.
    expect(await refused({ skills: { workshop: { autonomous: { mode: "auto" } } } })).toMatch(
      /^invalid config: skills\.workshop\.autonomous\.mode: Skill Workshop self-learning is not available on this service/,
    );
    expect(await refused({ update: { checkOnStart: true } })).toMatch(
      /^invalid config: update\.checkOnStart: updates are not the tenant's to manage/,
    );
    expect(await refused({ gateway: { auth: { mode: "none" } } })).toMatch(
      /^invalid config: gateway\.auth\.mode: gateway auth on this service is always an operator token/,
    );
    // Cloud workers: no profiles to advertise, said instead of an empty catalog.
    const profiles = await client.request("environments.list", { projection: "profiles" });
    expect(profiles.error?.message).toMatch(/^cloud workers are not available on this service/);
    expect((await client.request("environments.list", {})).payload).toEqual({ environments: [] });
  });
});
