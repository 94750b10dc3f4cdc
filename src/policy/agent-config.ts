import { DEFAULT_AGENT_ID, normalizeAgentId } from "../keys/session-key";
import type { AgentConfig, RunnerConfig, TenantConfig } from "../protocol/config";

/** Pure lookups over the tenant's `agents` config: which agent, its runner, model, spawn allowlist. */

/** The configured agent with this id (ids compare normalized). */
export function findAgent(config: TenantConfig, agentId: string): AgentConfig | undefined {
  const id = normalizeAgentId(agentId);
  return config.agents?.list?.find((agent) => normalizeAgentId(agent.id) === id);
}

/** The tenant's default agent: the `default: true` entry, else the first listed, else "main". */
export function defaultAgentId(config: TenantConfig): string {
  const agents = config.agents?.list ?? [];
  const chosen = agents.find((a) => a.default) ?? agents[0];
  return chosen ? normalizeAgentId(chosen.id) : DEFAULT_AGENT_ID;
}

/** Whether an agent id exists for this tenant (only the default one when no agents are configured). */
export function isKnownAgent(config: TenantConfig, agentId: string): boolean {
  const list = config.agents?.list;
  if (!list || list.length === 0) return agentId === defaultAgentId(config);
  return findAgent(config, agentId) !== undefined;
}

/** The runner an agent uses: its own, else the defaults', else the built-in echo runner. */
export function runnerOf(config: TenantConfig, agentId: string): RunnerConfig {
  return findAgent(config, agentId)?.runner ?? config.agents?.defaults?.runner ?? { type: "echo" };
}

/** The model an agent runs with when the session has no override. */
export function agentModel(config: TenantConfig, agentId: string): string | undefined {
  return findAgent(config, agentId)?.model ?? config.agents?.defaults?.model;
}

/**
 * Which agent ids a requester may target with sessions_spawn: its agent's
 * `subagents.allowAgents` (else the defaults'); `*` = any; none configured = only itself.
 */
export function spawnAllowlist(
  config: TenantConfig,
  requesterAgentId: string,
): { allowAny: boolean; allowed: string[] } {
  const allow =
    findAgent(config, requesterAgentId)?.subagents?.allowAgents ??
    config.agents?.defaults?.subagents?.allowAgents ??
    [];
  const allowAny = allow.some((id) => id.trim() === "*");
  return { allowAny, allowed: [...new Set(allow.filter((id) => id.trim() !== "*").map(normalizeAgentId))] };
}
