import type { SessionEntry } from "../protocol/session";

/**
 * OpenClaw's default sub-agent tool policy: sub-agents get the full tool set minus the session
 * tools, unless they orchestrate (`subagentRole: "orchestrator"`, from maxSpawnDepth ≥ 2).
 */
export function sessionToolsAllowed(entry: Pick<SessionEntry, "spawnDepth" | "subagentRole"> | undefined): boolean {
  return (entry?.spawnDepth ?? 0) === 0 || entry?.subagentRole === "orchestrator";
}
