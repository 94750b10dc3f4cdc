import { describe, expect, it } from "vitest";
import {
  type AccessAction,
  agentToAgentDeniedText,
  agentToAgentDisabledText,
  checkSessionAccess,
  crossAgentVisibilityText,
  matchesAgentToAgentAllow,
  noSessionWithLabelText,
  resolveVisibility,
  SANDBOX_LABEL_LOOKUP_TEXT,
  SANDBOX_LABEL_NOT_VISIBLE_TEXT,
  SEND_TARGET_BOTH_TEXT,
  SEND_TARGET_MISSING_TEXT,
  type SessionVisibility,
  selfVisibilityText,
  sessionNotFoundText,
  sessionNotVisibleText,
  treeVisibilityText,
} from "../../../src/policy/visibility";

describe("resolveVisibility", () => {
  it("defaults to tree when nothing is configured", () => {
    expect(resolveVisibility({ sandboxed: false })).toEqual({ visibility: "tree", restrictToSpawned: false });
  });

  it("falls back to tree for unknown values", () => {
    expect(resolveVisibility({ configured: "everyone", sandboxed: false }).visibility).toBe("tree");
    expect(resolveVisibility({ configured: "", sandboxed: false }).visibility).toBe("tree");
  });

  it("keeps every known value for unsandboxed sessions", () => {
    for (const v of ["self", "tree", "agent", "all"] as const) {
      expect(resolveVisibility({ configured: v, sandboxed: false }).visibility).toBe(v);
    }
  });

  it("accepts configured values case-insensitively and trimmed", () => {
    expect(resolveVisibility({ configured: " ALL ", sandboxed: false }).visibility).toBe("all");
  });

  it("clamps all and agent to tree for sandboxed sessions (sandbox setting defaults to spawned)", () => {
    expect(resolveVisibility({ configured: "all", sandboxed: true }).visibility).toBe("tree");
    expect(resolveVisibility({ configured: "agent", sandboxed: true }).visibility).toBe("tree");
  });

  it("clamps self to tree for sandboxed sessions", () => {
    expect(resolveVisibility({ configured: "self", sandboxed: true }).visibility).toBe("tree");
  });

  it("clamps when the sandbox setting is explicitly spawned", () => {
    const r = resolveVisibility({ configured: "all", sandboxed: true, sandboxSessionToolsVisibility: "spawned" });
    expect(r.visibility).toBe("tree");
  });

  it("does not clamp when the sandbox setting is all", () => {
    const r = resolveVisibility({ configured: "all", sandboxed: true, sandboxSessionToolsVisibility: "all" });
    expect(r).toEqual({ visibility: "all", restrictToSpawned: false });
    const self = resolveVisibility({ configured: "self", sandboxed: true, sandboxSessionToolsVisibility: "all" });
    expect(self.visibility).toBe("self");
  });

  it("treats an unknown sandbox setting as spawned (fails closed)", () => {
    const r = resolveVisibility({ configured: "all", sandboxed: true, sandboxSessionToolsVisibility: "bogus" });
    expect(r).toEqual({ visibility: "tree", restrictToSpawned: true });
  });

  it("ignores the sandbox setting for unsandboxed sessions", () => {
    const r = resolveVisibility({ configured: "all", sandboxed: false, sandboxSessionToolsVisibility: "spawned" });
    expect(r).toEqual({ visibility: "all", restrictToSpawned: false });
  });

  it("restricts to spawned sessions for a sandboxed, known, non-subagent requester", () => {
    expect(resolveVisibility({ sandboxed: true, requesterKnown: true, requesterIsSubagent: false })).toEqual({
      visibility: "tree",
      restrictToSpawned: true,
    });
  });

  it("assumes a known, non-subagent requester when those flags are omitted", () => {
    expect(resolveVisibility({ sandboxed: true }).restrictToSpawned).toBe(true);
  });

  it("does not restrict to spawned when the requester is a subagent", () => {
    expect(resolveVisibility({ sandboxed: true, requesterIsSubagent: true }).restrictToSpawned).toBe(false);
  });

  it("does not restrict to spawned when the requester key is unknown", () => {
    expect(resolveVisibility({ sandboxed: true, requesterKnown: false }).restrictToSpawned).toBe(false);
  });

  it("does not restrict to spawned when the sandbox setting is all", () => {
    const r = resolveVisibility({ sandboxed: true, sandboxSessionToolsVisibility: "all" });
    expect(r.restrictToSpawned).toBe(false);
  });
});

describe("matchesAgentToAgentAllow", () => {
  it("allows everyone when the list is absent or empty", () => {
    expect(matchesAgentToAgentAllow("anyone")).toBe(true);
    expect(matchesAgentToAgentAllow("anyone", [])).toBe(true);
  });

  it("allows any agent for the * pattern", () => {
    expect(matchesAgentToAgentAllow("whatever", ["*"])).toBe(true);
  });

  it("matches a pattern without * exactly (case-sensitive)", () => {
    expect(matchesAgentToAgentAllow("main", ["main"])).toBe(true);
    expect(matchesAgentToAgentAllow("main2", ["main"])).toBe(false);
    expect(matchesAgentToAgentAllow("main", ["Main"])).toBe(false);
  });

  it("treats a pattern with * as an anchored, case-insensitive glob", () => {
    expect(matchesAgentToAgentAllow("worker-1", ["worker-*"])).toBe(true);
    expect(matchesAgentToAgentAllow("WORKER-1", ["worker-*"])).toBe(true);
    expect(matchesAgentToAgentAllow("my-worker-1", ["worker-*"])).toBe(false);
    expect(matchesAgentToAgentAllow("a-x-b", ["a*b"])).toBe(true);
    expect(matchesAgentToAgentAllow("a-x-bc", ["a*b"])).toBe(false);
  });

  it("escapes regex metacharacters other than *", () => {
    expect(matchesAgentToAgentAllow("a.b", ["a.*"])).toBe(true);
    expect(matchesAgentToAgentAllow("axb", ["a.*"])).toBe(false);
  });

  it("ignores blank patterns and trims the others", () => {
    expect(matchesAgentToAgentAllow("main", ["  "])).toBe(false);
    expect(matchesAgentToAgentAllow("main", [" main "])).toBe(true);
  });

  it("matches when any pattern matches", () => {
    expect(matchesAgentToAgentAllow("ops", ["main", "ops"])).toBe(true);
    expect(matchesAgentToAgentAllow("dev", ["main", "ops"])).toBe(false);
  });
});

const ACTIONS: AccessAction[] = ["list", "history", "send", "status"];

function check(overrides: Partial<Parameters<typeof checkSessionAccess>[0]> = {}) {
  return checkSessionAccess({
    action: "history",
    requesterKey: "agent:main:main",
    requesterAgentId: "main",
    targetKey: "agent:main:main",
    targetAgentId: "main",
    visibility: "tree",
    targetIsSpawnedByRequester: false,
    ...overrides,
  });
}

function crossAgent(overrides: Partial<Parameters<typeof checkSessionAccess>[0]> = {}) {
  return check({ targetKey: "agent:ops:main", targetAgentId: "ops", visibility: "all", ...overrides });
}

describe("checkSessionAccess: cross-agent", () => {
  it.each(["self", "tree", "agent"] as SessionVisibility[])(
    "requires visibility all for another agent's session (visibility %s)",
    (visibility) => {
      expect(crossAgent({ visibility, agentToAgent: { enabled: true } })).toEqual({
        allowed: false,
        status: "forbidden",
        error: crossAgentVisibilityText("history"),
      });
    },
  );

  it("checks visibility before agent-to-agent enablement", () => {
    const r = crossAgent({ visibility: "agent", agentToAgent: { enabled: false } });
    expect(r).toMatchObject({ error: crossAgentVisibilityText("history") });
  });

  it("requires tools.agentToAgent.enabled=true once visibility is all", () => {
    expect(crossAgent()).toEqual({ allowed: false, status: "forbidden", error: agentToAgentDisabledText("history") });
    expect(crossAgent({ agentToAgent: {} })).toMatchObject({ error: agentToAgentDisabledText("history") });
    expect(crossAgent({ agentToAgent: { enabled: false, allow: ["*"] } })).toMatchObject({
      error: agentToAgentDisabledText("history"),
    });
  });

  it("allows cross-agent access when enabled and the allow list is empty", () => {
    expect(crossAgent({ agentToAgent: { enabled: true } })).toEqual({ allowed: true });
    expect(crossAgent({ agentToAgent: { enabled: true, allow: [] } })).toEqual({ allowed: true });
  });

  it("requires both requester and target ids on the allow list", () => {
    expect(crossAgent({ agentToAgent: { enabled: true, allow: ["main", "ops"] } })).toEqual({ allowed: true });
    expect(crossAgent({ agentToAgent: { enabled: true, allow: ["main"] } })).toEqual({
      allowed: false,
      status: "forbidden",
      error: agentToAgentDeniedText("history"),
    });
    expect(crossAgent({ agentToAgent: { enabled: true, allow: ["ops"] } })).toMatchObject({
      error: agentToAgentDeniedText("history"),
    });
  });

  it("applies glob allow rules to both ids", () => {
    const agentToAgent = { enabled: true, allow: ["team-*"] };
    const r = check({
      requesterAgentId: "team-a",
      requesterKey: "agent:team-a:main",
      targetAgentId: "team-b",
      targetKey: "agent:team-b:main",
      visibility: "all",
      agentToAgent,
    });
    expect(r).toEqual({ allowed: true });
    expect(crossAgent({ agentToAgent })).toMatchObject({ allowed: false });
  });

  it("ignores the spawn tree for cross-agent targets", () => {
    const r = crossAgent({ visibility: "tree", targetIsSpawnedByRequester: true, agentToAgent: { enabled: true } });
    expect(r).toMatchObject({ allowed: false, error: crossAgentVisibilityText("history") });
  });

  it("compares agent ids case-insensitively", () => {
    expect(check({ targetAgentId: "MAIN", visibility: "agent", targetKey: "agent:main:other" })).toEqual({
      allowed: true,
    });
  });
});

describe("checkSessionAccess: same agent", () => {
  it("always allows the requester's own session", () => {
    for (const visibility of ["self", "tree", "agent", "all"] as const) {
      expect(check({ visibility })).toEqual({ allowed: true });
    }
  });

  it("limits self visibility to the requester key, even for spawned children", () => {
    const r = check({ visibility: "self", targetKey: "agent:main:subagent:x", targetIsSpawnedByRequester: true });
    expect(r).toEqual({ allowed: false, status: "forbidden", error: selfVisibilityText("history") });
  });

  it("allows spawned children under tree visibility", () => {
    expect(check({ targetKey: "agent:main:subagent:x", targetIsSpawnedByRequester: true })).toEqual({ allowed: true });
  });

  it("denies same-agent sessions outside the spawn tree under tree visibility", () => {
    expect(check({ targetKey: "agent:main:discord:group:1" })).toEqual({
      allowed: false,
      status: "forbidden",
      error: treeVisibilityText("history"),
    });
  });

  it("allows any same-agent session under agent and all visibility", () => {
    expect(check({ visibility: "agent", targetKey: "agent:main:discord:group:1" })).toEqual({ allowed: true });
    expect(check({ visibility: "all", targetKey: "agent:main:discord:group:1" })).toEqual({ allowed: true });
  });

  it("does not need agent-to-agent settings for same-agent access", () => {
    const r = check({
      visibility: "all",
      targetKey: "agent:main:x",
      agentToAgent: { enabled: false, allow: ["nobody"] },
    });
    expect(r).toEqual({ allowed: true });
  });

  it.each(ACTIONS)("uses the %s wording in denials", (action) => {
    expect(check({ action, visibility: "self", targetKey: "agent:main:x" })).toMatchObject({
      error: selfVisibilityText(action),
    });
    expect(check({ action, targetKey: "agent:main:x" })).toMatchObject({ error: treeVisibilityText(action) });
    expect(crossAgent({ action, visibility: "agent" })).toMatchObject({ error: crossAgentVisibilityText(action) });
    expect(crossAgent({ action })).toMatchObject({ error: agentToAgentDisabledText(action) });
    expect(crossAgent({ action, agentToAgent: { enabled: true, allow: ["main"] } })).toMatchObject({
      error: agentToAgentDeniedText(action),
    });
  });
});

describe("OpenClaw texts", () => {
  it("words cross-agent visibility denials per action", () => {
    expect(crossAgentVisibilityText("list")).toBe(
      "Session list visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access.",
    );
    expect(crossAgentVisibilityText("history")).toBe(
      "Session history visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access.",
    );
    expect(crossAgentVisibilityText("send")).toBe(
      "Session send visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access.",
    );
    expect(crossAgentVisibilityText("status")).toBe(
      "Session status visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access.",
    );
  });

  it("words agent-to-agent disabled denials per action", () => {
    expect(agentToAgentDisabledText("list")).toBe(
      "Agent-to-agent listing is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent visibility.",
    );
    expect(agentToAgentDisabledText("history")).toBe(
      "Agent-to-agent history is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access.",
    );
    expect(agentToAgentDisabledText("send")).toBe(
      "Agent-to-agent messaging is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent sends.",
    );
    expect(agentToAgentDisabledText("status")).toBe(
      "Agent-to-agent status is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access.",
    );
  });

  it("words agent-to-agent allow-list denials per action", () => {
    expect(agentToAgentDeniedText("list")).toBe("Agent-to-agent listing denied by tools.agentToAgent.allow.");
    expect(agentToAgentDeniedText("history")).toBe("Agent-to-agent history denied by tools.agentToAgent.allow.");
    expect(agentToAgentDeniedText("send")).toBe("Agent-to-agent messaging denied by tools.agentToAgent.allow.");
    expect(agentToAgentDeniedText("status")).toBe("Agent-to-agent session status denied by tools.agentToAgent.allow.");
  });

  it("words self and tree denials per action", () => {
    expect(selfVisibilityText("list")).toBe(
      "Session list visibility is restricted to the current session (tools.sessions.visibility=self).",
    );
    expect(selfVisibilityText("send")).toBe(
      "Session send visibility is restricted to the current session (tools.sessions.visibility=self).",
    );
    expect(treeVisibilityText("history")).toBe(
      "Session history visibility is restricted to the current session tree (tools.sessions.visibility=tree).",
    );
    expect(treeVisibilityText("status")).toBe(
      "Session status visibility is restricted to the current session tree (tools.sessions.visibility=tree).",
    );
  });

  it("words sandbox and lookup failures", () => {
    expect(sessionNotVisibleText("agent:main:x")).toBe(
      "Session not visible from this sandboxed agent session: agent:main:x",
    );
    expect(sessionNotFoundText("1234")).toBe("Session not found: 1234 (use the full sessionKey from sessions_list)");
    expect(SANDBOX_LABEL_LOOKUP_TEXT).toBe("Sandboxed sessions_send label lookup is limited to this agent");
    expect(SANDBOX_LABEL_NOT_VISIBLE_TEXT).toBe("Session not visible from this sandboxed agent session.");
    expect(noSessionWithLabelText("build")).toBe("No session found with label: build");
    expect(SEND_TARGET_BOTH_TEXT).toBe("Provide either sessionKey or label (not both).");
    expect(SEND_TARGET_MISSING_TEXT).toBe("Either sessionKey or label is required");
  });
});
