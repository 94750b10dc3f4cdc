import { describe, expect, it } from "vitest";
import { agentModels, modelProblem, runnerWithSessionModel } from "../../../src/policy/agent-models";
import { toolsCatalog, toolsEffective } from "../../../src/policy/tool-inventory";
import { MODEL_TOOLS, offeredTools } from "../../../src/policy/tool-offer";
import type { TenantConfig } from "../../../src/protocol/config";

const toolIds = (groups: { tools: { id: string }[] }[]) =>
  groups.flatMap((group) => group.tools.map((tool) => tool.id));

describe("the Control UI's tool inventory", () => {
  it("catalogs exactly the tools a model can be offered, with OpenClaw's profile membership", () => {
    const catalog = toolsCatalog("main");
    expect(toolIds(catalog.groups).sort()).toEqual([...MODEL_TOOLS].sort());
    const byId = new Map(catalog.groups.flatMap((group) => group.tools.map((tool) => [tool.id, tool])));
    // OpenClaw's minimal profile keeps session_status only; agents_list is in no profile.
    expect(byId.get("session_status")?.defaultProfiles).toEqual(["minimal", "coding", "messaging"]);
    expect(byId.get("agents_list")?.defaultProfiles).toEqual([]);
  });

  it("answers tools.effective with the tool loop's offer, for every policy and spawn depth", () => {
    const configs: TenantConfig[] = [
      {},
      { tools: { profile: "minimal" } },
      { tools: { deny: ["group:agents"] }, agents: { list: [{ id: "main", tools: { allow: ["sessions_list"] } }] } },
      { gateway: { tools: { deny: ["sessions_send"] } }, agents: { defaults: { subagents: { maxSpawnDepth: 2 } } } },
    ];
    for (const config of configs) {
      for (const spawnDepth of [0, 1, 2]) {
        const subject = { agentId: "main", spawnDepth };
        expect(toolIds(toolsEffective(config, subject).groups).sort()).toEqual(offeredTools(config, subject).sort());
      }
    }
    expect(toolsEffective({ tools: { profile: "minimal" } }, { agentId: "main", spawnDepth: 0 }).profile).toBe(
      "minimal",
    );
    const agentProfile = {
      tools: { profile: "full" as const },
      agents: { list: [{ id: "main", tools: { profile: "coding" as const } }] },
    };
    expect(toolsEffective(agentProfile, { agentId: "main", spawnDepth: 0 }).profile).toBe("coding");
    expect(toolsEffective({}, { agentId: "main", spawnDepth: 1 }).groups).toEqual([]);
  });
});

describe("the models a session may choose", () => {
  const endpoint = "http://models.test/v1";
  const config: TenantConfig = {
    agents: {
      list: [
        { id: "main", runner: { type: "openai", baseUrl: endpoint, model: "a" } },
        { id: "twin", runner: { type: "openai", baseUrl: endpoint, model: "b" } },
        { id: "far", runner: { type: "openai", baseUrl: "http://far.test/v1", model: "c" } },
        { id: "claude", runner: { type: "anthropic", model: "claude-x" } },
        { id: "plain" },
      ],
    },
  };

  it("are the runner's own model and, for openai, those of runners at the same endpoint", () => {
    expect(agentModels(config, "main").map((m) => `${m.provider}/${m.id}`)).toEqual(["openai/a", "openai/b"]);
    expect(agentModels(config, "far").map((m) => `${m.provider}/${m.id}`)).toEqual(["openai/c"]);
    expect(agentModels(config, "claude").map((m) => `${m.provider}/${m.id}`)).toEqual(["anthropic/claude-x"]);
    expect(agentModels(config, "plain").map((m) => `${m.provider}/${m.id}`)).toEqual(["echo/echo"]);
  });

  it("are the only session choices a run sends", () => {
    const runner = { type: "openai" as const, baseUrl: endpoint, model: "a" };
    const offered = agentModels(config, "main").map((m) => m.id);
    const sent = (model: string) => {
      const chosen = runnerWithSessionModel(runner, { model }, offered);
      return chosen.type === "openai" ? chosen.model : null;
    };
    expect(sent("openai/b")).toBe("b");
    expect(sent("c")).toBe("a");
    expect(sent("/help")).toBe("a");
  });

  it("refuses anything else in OpenClaw's words", () => {
    expect(modelProblem(config, "main", "b")).toBeNull();
    expect(modelProblem(config, "main", "openai/a")).toBeNull();
    expect(modelProblem(config, "main", "/help")).toBe("invalid model: /help");
    expect(modelProblem(config, "main", "openai/")).toBe("invalid model: openai/");
    expect(modelProblem(config, "main", "  ")).toBe("invalid model: empty");
    expect(modelProblem(config, "main", "c")).toBe("model not allowed: openai/c");
    expect(modelProblem(config, "claude", "anthropic/claude-y")).toBe("model not allowed: anthropic/claude-y");
    expect(modelProblem(config, "plain", "echo")).toBeNull();
    expect(modelProblem(config, "plain", "gpt-4o")).toBe("model not allowed: echo/gpt-4o");
  });
});
