import { describe, expect, it } from "vitest";
import { isSandboxedSession, sandboxToolsVisibility } from "../../../src/policy/sandbox";

describe("sandbox policy", () => {
  it("is off unless a sandbox mode is configured", () => {
    expect(isSandboxedSession({}, { key: "agent:main:x", agentId: "main" })).toBe(false);
  });

  it("sandboxes every session of an agent with mode all", () => {
    const config = { agents: { list: [{ id: "ops", sandbox: { mode: "all" as const } }] } };
    expect(isSandboxedSession(config, { key: "agent:ops:main", agentId: "ops" })).toBe(true);
    expect(isSandboxedSession(config, { key: "agent:main:main", agentId: "main" })).toBe(false);
  });

  it("spares the main session with mode non-main (defaults apply to every agent)", () => {
    const config = { agents: { defaults: { sandbox: { mode: "non-main" as const } } } };
    expect(isSandboxedSession(config, { key: "agent:main:main", agentId: "main" })).toBe(false);
    expect(isSandboxedSession(config, { key: "agent:main:discord:group:1", agentId: "main" })).toBe(true);
  });

  it("keeps a session recorded as sandboxed sandboxed", () => {
    expect(isSandboxedSession({}, { key: "agent:main:subagent:1", agentId: "main", recordedSandboxed: true })).toBe(
      true,
    );
  });

  it("defaults the sandbox tools visibility to spawned, the agent's setting winning", () => {
    expect(sandboxToolsVisibility({}, "main")).toBe("spawned");
    const config = {
      agents: {
        defaults: { sandbox: { sessionToolsVisibility: "all" as const } },
        list: [{ id: "ops", sandbox: { sessionToolsVisibility: "spawned" as const } }],
      },
    };
    expect(sandboxToolsVisibility(config, "main")).toBe("all");
    expect(sandboxToolsVisibility(config, "ops")).toBe("spawned");
  });
});
