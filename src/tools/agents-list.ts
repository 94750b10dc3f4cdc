import type { TenantContext } from "../domain/context";
import { normalizeAgentId } from "../keys/session-key";
import { spawnAllowlist } from "../policy/agent-config";
import { agentsListDeclaration } from "../protocol/tool-specs/agents-list-declaration";
import type { Requester } from "./requester";
import { jsonResult, type ToolResult } from "./result";
import { defineTool } from "./tool-spec";

/** `agents_list`: the requester first, then the agents it may spawn, sorted. */
export function agentsList(ctx: TenantContext<never>, requester: Requester): ToolResult {
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

export const agentsListTool = defineTool(agentsListDeclaration, [], agentsList);
