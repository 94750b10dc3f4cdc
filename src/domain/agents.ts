import { normalizeAgentId } from "../keys/session-key";
import type { TenantContext } from "./context";
import { sessionsDefaults } from "./registry";

/** `agents.list`: the tenant's agents (or the default one when none are configured). */
export function listAgents(ctx: TenantContext) {
  const defaults = sessionsDefaults(ctx);
  const agents = (ctx.config.agents?.list ?? [{ id: defaults.defaultAgentId }]).map((a) => ({
    id: normalizeAgentId(a.id),
    ...("name" in a && a.name ? { name: a.name } : {}),
  }));
  return { defaultId: defaults.defaultAgentId, mainKey: defaults.mainKey, scope: defaults.scope, agents };
}
