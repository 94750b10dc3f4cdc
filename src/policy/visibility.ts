/**
 * Session-tool visibility and agent-to-agent access (OpenClaw `tools.sessions.visibility`,
 * `tools.agentToAgent`, `agents.defaults.sandbox.sessionToolsVisibility`).
 *
 * Pure decisions only: callers resolve keys, agent ids and the spawn tree, then ask here.
 * Error texts are OpenClaw's own so agents and clients see the same guidance.
 */

/** How far session tools may reach from the calling session. */
export type SessionVisibility = "self" | "tree" | "agent" | "all";

/** The session-tool operation being checked; it selects the wording of denials. */
export type AccessAction = "list" | "history" | "send" | "status";

/** Outcome of an access check; denials carry OpenClaw's forbidden status and text. */
export type SessionAccessResult = { allowed: true } | { allowed: false; status: "forbidden"; error: string };

const VISIBILITIES: readonly SessionVisibility[] = ["self", "tree", "agent", "all"];

/** Normalizes a configured visibility; anything unrecognised falls back to the default "tree". */
function parseVisibility(raw: string | undefined): SessionVisibility {
  const value = raw?.trim().toLowerCase() ?? "";
  return VISIBILITIES.find((v) => v === value) ?? "tree";
}

/**
 * Sandbox setting: "all" lifts the clamp, anything else (including unset) means "spawned".
 * Unknown values fail closed rather than silently widening a sandbox.
 */
function sandboxClampsToSpawned(raw: string | undefined): boolean {
  return raw?.trim().toLowerCase() !== "all";
}

/** Effective visibility for a caller, plus whether lookups must be limited to its own spawns. */
export function resolveVisibility(input: {
  configured?: string;
  sandboxed: boolean;
  sandboxSessionToolsVisibility?: string;
  requesterIsSubagent?: boolean;
  requesterKnown?: boolean;
}): { visibility: SessionVisibility; restrictToSpawned: boolean } {
  const configured = parseVisibility(input.configured);
  const clamp = input.sandboxed && sandboxClampsToSpawned(input.sandboxSessionToolsVisibility);
  // OpenClaw clamps every non-tree value to tree, so a sandboxed "self" is widened too.
  const visibility: SessionVisibility = clamp ? "tree" : configured;
  // Subagents are exempt (they sit inside their parent's tree); an unknown requester has no tree.
  const restrictToSpawned = clamp && (input.requesterKnown ?? true) && !(input.requesterIsSubagent ?? false);
  return { visibility, restrictToSpawned };
}

/** Escapes regex metacharacters so only `*` acts as a wildcard. */
function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function matchesPattern(pattern: string, agentId: string): boolean {
  const raw = pattern.trim();
  if (!raw) {
    return false;
  }
  if (raw === "*") {
    return true;
  }
  if (!raw.includes("*")) {
    return raw === agentId;
  }
  const source = escapeRegex(raw).replaceAll("\\*", ".*");
  return new RegExp(`^${source}$`, "i").test(agentId);
}

/** True when `agentId` may take part in agent-to-agent traffic under `tools.agentToAgent.allow`. */
export function matchesAgentToAgentAllow(agentId: string, allow?: string[]): boolean {
  // An empty or absent list does not restrict participants; `enabled` is the gate.
  if (!allow || allow.length === 0) {
    return true;
  }
  return allow.some((pattern) => typeof pattern === "string" && matchesPattern(pattern, agentId));
}

const ACTION_PREFIX: Record<AccessAction, string> = {
  list: "Session list",
  history: "Session history",
  send: "Session send",
  status: "Session status",
};

/** Cross-agent target while visibility is not "all". */
export function crossAgentVisibilityText(action: AccessAction): string {
  return `${ACTION_PREFIX[action]} visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access.`;
}

/** Cross-agent target while `tools.agentToAgent.enabled` is not true. */
export function agentToAgentDisabledText(action: AccessAction): string {
  switch (action) {
    case "send":
      return "Agent-to-agent messaging is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent sends.";
    case "list":
      return "Agent-to-agent listing is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent visibility.";
    case "history":
      return "Agent-to-agent history is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access.";
    case "status":
      return "Agent-to-agent status is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access.";
  }
}

/** Cross-agent target where either agent id fails `tools.agentToAgent.allow`. */
export function agentToAgentDeniedText(action: AccessAction): string {
  switch (action) {
    case "send":
      return "Agent-to-agent messaging denied by tools.agentToAgent.allow.";
    case "list":
      return "Agent-to-agent listing denied by tools.agentToAgent.allow.";
    case "history":
      return "Agent-to-agent history denied by tools.agentToAgent.allow.";
    case "status":
      // session_status reports its own wording before the shared guard runs; that is what users see.
      return "Agent-to-agent session status denied by tools.agentToAgent.allow.";
  }
}

/** Same-agent target other than the caller under visibility "self". */
export function selfVisibilityText(action: AccessAction): string {
  return `${ACTION_PREFIX[action]} visibility is restricted to the current session (tools.sessions.visibility=self).`;
}

/** Same-agent target outside the caller's spawn tree under visibility "tree". */
export function treeVisibilityText(action: AccessAction): string {
  return `${ACTION_PREFIX[action]} visibility is restricted to the current session tree (tools.sessions.visibility=tree).`;
}

function forbidden(error: string): SessionAccessResult {
  return { allowed: false, status: "forbidden", error };
}

function normalizeAgentId(agentId: string): string {
  return agentId.trim().toLowerCase();
}

/** Cross-agent gate: visibility "all", then a2a enabled, then both ids on the allow list. */
function checkCrossAgent(
  action: AccessAction,
  requesterAgentId: string,
  targetAgentId: string,
  visibility: SessionVisibility,
  agentToAgent: { enabled?: boolean; allow?: string[] } | undefined,
): SessionAccessResult {
  if (visibility !== "all") {
    return forbidden(crossAgentVisibilityText(action));
  }
  if (agentToAgent?.enabled !== true) {
    return forbidden(agentToAgentDisabledText(action));
  }
  const allow = agentToAgent.allow;
  const bothAllowed =
    matchesAgentToAgentAllow(requesterAgentId, allow) && matchesAgentToAgentAllow(targetAgentId, allow);
  if (!bothAllowed) {
    return forbidden(agentToAgentDeniedText(action));
  }
  return { allowed: true };
}

/** Decides whether the requester session may act on the target session, in OpenClaw's check order. */
export function checkSessionAccess(input: {
  action: AccessAction;
  requesterKey: string;
  requesterAgentId: string;
  targetKey: string;
  targetAgentId: string;
  visibility: SessionVisibility;
  agentToAgent?: { enabled?: boolean; allow?: string[] };
  targetIsSpawnedByRequester: boolean;
}): SessionAccessResult {
  const requesterAgentId = normalizeAgentId(input.requesterAgentId);
  const targetAgentId = normalizeAgentId(input.targetAgentId);
  if (requesterAgentId !== targetAgentId) {
    const { action, visibility, agentToAgent } = input;
    return checkCrossAgent(action, requesterAgentId, targetAgentId, visibility, agentToAgent);
  }
  const isSelf = input.targetKey === input.requesterKey;
  if (input.visibility === "self" && !isSelf) {
    return forbidden(selfVisibilityText(input.action));
  }
  if (input.visibility === "tree" && !isSelf && !input.targetIsSpawnedByRequester) {
    return forbidden(treeVisibilityText(input.action));
  }
  return { allowed: true };
}

/** sessions_history/send: a sandbox-restricted caller asked for a session outside its tree. */
export function sessionNotVisibleText(id: string): string {
  return `Session not visible from this sandboxed agent session: ${id}`;
}

/** sessions_history/send: a sessionId (or key) that resolves to nothing. */
export function sessionNotFoundText(id: string): string {
  return `Session not found: ${id} (use the full sessionKey from sessions_list)`;
}

/** sessions_send step 1: both sessionKey and label were given. */
export const SEND_TARGET_BOTH_TEXT = "Provide either sessionKey or label (not both).";

/** sessions_send step 1: neither sessionKey nor label was given. */
export const SEND_TARGET_MISSING_TEXT = "Either sessionKey or label is required";

/** sessions_send step 2: a sandbox-restricted caller asked for another agent's label. */
export const SANDBOX_LABEL_LOOKUP_TEXT = "Sandboxed sessions_send label lookup is limited to this agent";

/** sessions_send step 2: label lookup failed for a sandbox-restricted caller (no label echoed). */
export const SANDBOX_LABEL_NOT_VISIBLE_TEXT = "Session not visible from this sandboxed agent session.";

/** What sessions.resolve answers for a key that names no session (sessions_send repeats it). */
export function noSessionFoundText(key: string): string {
  return `No session found: ${key}`;
}

/** sessions_send step 2: no session carries the label. */
export function noSessionWithLabelText(label: string): string {
  return `No session found with label: ${label}`;
}
