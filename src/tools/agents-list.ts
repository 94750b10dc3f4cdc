import type { TenantContext } from "../domain/tenant-context";
import { normalizeAgentId } from "../keys/session-key";
import type { TenantConfig } from "../protocol/config";
import type { Requester } from "./requester";
import { jsonResult, type ToolResult } from "./result";

/**
 * Which agent ids a requester may target with sessions_spawn: its agent's
 * `subagents.allowAgents` (else the defaults'); `*` = any; none configured = only itself.
 */
export function spawnAllowlist(
  config: TenantConfig,
  requesterAgentId: string,
): { allowAny: boolean; allowed: string[] } {
  const agent = config.agents?.list?.find((a) => normalizeAgentId(a.id) === requesterAgentId);
  const allow = agent?.subagents?.allowAgents ?? config.agents?.defaults?.subagents?.allowAgents ?? [];
  const allowAny = allow.some((id) => id.trim() === "*");
  return { allowAny, allowed: [...new Set(allow.filter((id) => id.trim() !== "*").map(normalizeAgentId))] };
}

/** `agents_list`: the requester first, then the agents it may spawn, sorted. */
export function agentsList(ctx: TenantContext, requester: Requester): ToolResult {
  const configured = new Map((ctx.config.agents?.list ?? []).map((a) => [normalizeAgentId(a.id), a]));
  const { allowAny, allowed } = spawnAllowlist(ctx.config, requester.agentId);
  const targets = allowAny ? [...configured.keys()] : allowed;
  const others = [...new Set(targets)].filter((id) => id !== requester.agentId).sort();
  const agents = [requester.agentId, ...others].map((id) => {
    const agent = configured.get(id);
    return { id, ...(agent?.name ? { name: agent.name } : {}), configured: agent !== undefined };
  });
  return jsonResult({ requester: requester.agentId, allowAny, agents });
}
