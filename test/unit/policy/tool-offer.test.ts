import { describe, expect, it } from "vitest";
import { offeredTools } from "../../../src/policy/tool-offer";

describe("tool offer", () => {
  it("gives a depth-1 child OpenClaw's sub-agent surface and a leaf none of the orchestration tools", () => {
    expect(offeredTools({}, { agentId: "main", spawnDepth: 0 })).toEqual([
      "sessions_list",
      "sessions_history",
      "sessions_send",
      "sessions_spawn",
      "session_status",
      "agents_list",
    ]);
    const orchestrating = { agents: { defaults: { subagents: { maxSpawnDepth: 2 } } } };
    expect(offeredTools(orchestrating, { agentId: "main", spawnDepth: 1 })).toEqual([
      "sessions_list",
      "sessions_history",
      "sessions_spawn",
    ]);
    expect(offeredTools({}, { agentId: "main", spawnDepth: 1 })).toEqual([]);
  });

  it("applies profiles, allow/deny lists (tenant and agent) and gateway.tools.deny", () => {
    expect(offeredTools({ tools: { profile: "coding" } }, { agentId: "main", spawnDepth: 0 })).not.toContain(
      "agents_list",
    );
    expect(offeredTools({ tools: { profile: "minimal" } }, { agentId: "main", spawnDepth: 0 })).toEqual([
      "session_status",
    ]);
    const config = {
      tools: { deny: ["sessions_send"] },
      agents: { list: [{ id: "ops", tools: { allow: ["group:sessions"] } }] },
      gateway: { tools: { deny: ["sessions_spawn"] } },
    };
    expect(offeredTools(config, { agentId: "ops", spawnDepth: 0 })).toEqual([
      "sessions_list",
      "sessions_history",
      "session_status",
    ]);
  });
});
