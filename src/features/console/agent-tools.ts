import { chatCommandEntries } from "../../domain/chat-commands";
import type { TenantContext } from "../../domain/context";
import { DomainError } from "../../domain/errors";
import { canonicalKey, sessionRef } from "../../domain/keys";
import { normalizeAgentId } from "../../keys/session-key";
import { defaultAgentId, isKnownAgent } from "../../policy/agent-config";
import { toolsCatalog, toolsEffective } from "../../policy/tool-inventory";

/**
 * What an agent can do, as OpenClaw's `tools.catalog`, `tools.effective` and `commands.list`
 * answer it: the tools of the same offer a run's model gets, and the slash commands chat.send
 * runs here. Agent ids and session keys are checked with OpenClaw's messages.
 */

/** The agent asked about: the given id (which must exist, OpenClaw's message), else the default. */
function requestedAgent(ctx: TenantContext<"index">, rawAgentId: string | undefined): string {
  const requested = rawAgentId?.trim();
  if (!requested) return defaultAgentId(ctx.config);
  const agentId = normalizeAgentId(requested);
  if (!isKnownAgent(ctx.config, agentId)) throw new DomainError("invalid", `unknown agent id "${requested}"`);
  return agentId;
}

export function agentToolsCatalog(ctx: TenantContext<"index">, params: { agentId?: string | undefined }) {
  return toolsCatalog(requestedAgent(ctx, params.agentId));
}

/**
 * The tools a run of this session's model is offered now: its agent's policy and, for a
 * sub-agent, its spawn depth. A session not created yet is answered for what it would get (a
 * top-level session of its agent), since its first run is offered exactly that.
 */
export async function agentToolsEffective(
  ctx: TenantContext<"index">,
  params: { agentId?: string | undefined; sessionKey: string },
) {
  const requested = params.agentId?.trim() ? requestedAgent(ctx, params.agentId) : undefined;
  const key = canonicalKey(ctx, params.sessionKey, requested);
  const sessionAgent = sessionRef(ctx, key).agentId;
  if (requested && requested !== sessionAgent) {
    throw new DomainError("invalid", `agent id "${requested}" does not match session agent "${sessionAgent}"`);
  }
  if (!isKnownAgent(ctx.config, sessionAgent))
    throw new DomainError("invalid", `unknown session key "${params.sessionKey}"`);
  const row = await ctx.tenant.session(key);
  return toolsEffective(ctx.config, { agentId: sessionAgent, spawnDepth: row?.spawnDepth ?? 0 });
}

/**
 * `commands.list`: the commands chat.send runs here. Each is OpenClaw's scope "both" and its
 * first text alias is its name, so every surface (`scope` text, native or both) lists them alike.
 */
export function agentCommands(ctx: TenantContext<"index">, params: { agentId?: string | undefined }) {
  requestedAgent(ctx, params.agentId);
  return { commands: chatCommandEntries() };
}
