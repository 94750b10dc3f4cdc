import { mainSessionKey, normalizeAgentId } from "../keys/session-key";
import type { TenantConfig } from "../protocol/config";
import { findAgent } from "./agent-config";

/**
 * Whether a session runs sandboxed: the agent's `sandbox.mode` (else the defaults'):
 * "all" → every session, "non-main" → every session but the agent's main one, "off" → none.
 * A session recorded as sandboxed (e.g. a sandboxed spawn) stays sandboxed.
 */
export function isSandboxedSession(
  config: TenantConfig,
  session: { key: string; agentId: string; recordedSandboxed?: boolean },
): boolean {
  if (session.recordedSandboxed) return true;
  const agentId = normalizeAgentId(session.agentId);
  const agent = findAgent(config, agentId);
  const mode = agent?.sandbox?.mode ?? config.agents?.defaults?.sandbox?.mode ?? "off";
  if (mode === "all") return true;
  if (mode === "non-main") return session.key !== mainSessionKey(agentId, config.session);
  return false;
}

/** The sandbox's session-tool visibility (`agents.defaults.sandbox.sessionToolsVisibility`, default "spawned"). */
export function sandboxToolsVisibility(config: TenantConfig, agentId: string): "spawned" | "all" {
  const agent = findAgent(config, agentId);
  return (
    agent?.sandbox?.sessionToolsVisibility ?? config.agents?.defaults?.sandbox?.sessionToolsVisibility ?? "spawned"
  );
}
