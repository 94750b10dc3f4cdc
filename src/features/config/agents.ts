import type { TenantContext } from "../../domain/context";
import { sessionsDefaults } from "../../domain/session-index";
import { normalizeAgentId } from "../../keys/session-key";
import { agentIdentity, agentModelRef, primaryModel } from "../../policy/agent-models";

/** `agents.list`: the tenant's agents (or the default one when none are configured). */
export function listAgents(ctx: TenantContext<"index">) {
  const defaults = sessionsDefaults(ctx);
  const agents = (ctx.config.agents?.list ?? [{ id: defaults.defaultAgentId }]).map((a) => {
    const id = normalizeAgentId(a.id);
    const identity = agentIdentity(ctx.config, id);
    const named = "name" in a && a.name;
    return {
      id,
      // As OpenClaw's agents.list: an agent without a configured name has neither a name nor an
      // identity, so the UI shows its id (agent.identity.get still answers "Assistant").
      ...(named ? { name: a.name, identity: { name: identity.name, avatar: identity.avatar } } : {}),
      // The Control UI sends only when the agent has a primary model; the runner is its model.
      model: { primary: primaryModel(agentModelRef(ctx.config, id)) },
    };
  });
  return { defaultId: defaults.defaultAgentId, mainKey: defaults.mainKey, scope: defaults.scope, agents };
}
