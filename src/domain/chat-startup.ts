import { parseAgentSessionKey } from "../keys/session-key";
import { agentModelRef, DEFAULT_CONTEXT_WINDOW_TOKENS, tenantModels } from "../policy/agent-models";
import { defaultAgentId } from "../policy/agents";
import { chatHistory } from "./chat";
import type { TenantContext } from "./context";
import { canonicalKey } from "./keys";
import { presentRow } from "./registry";

/**
 * OpenClaw's `chat.startup`: what a chat pane needs to open in one answer — the first history
 * page, the session's row with the model its runs use, the agent's defaults and the model
 * catalog. Nothing is queued here, so `pendingInputs` is always empty.
 */
export async function chatStartup(
  ctx: TenantContext,
  params: { sessionKey: string; limit?: number | undefined; maxChars?: number | undefined },
) {
  const key = canonicalKey(ctx, params.sessionKey);
  const [history, row] = await Promise.all([
    chatHistory(ctx, {
      sessionKey: params.sessionKey,
      ...(params.limit !== undefined ? { limit: params.limit } : {}),
      ...(params.maxChars !== undefined ? { maxChars: params.maxChars } : {}),
    }),
    ctx.tenant.session(key),
  ]);
  const agentId = row?.agentId ?? parseAgentSessionKey(key)?.agentId ?? defaultAgentId(ctx.config);
  const ref = agentModelRef(ctx.config, agentId);
  return {
    ...history,
    pendingInputs: { items: [], total: 0 },
    defaults: { modelProvider: ref.provider, model: ref.model, contextTokens: DEFAULT_CONTEXT_WINDOW_TOKENS },
    sessionInfo: {
      ...(row ? presentRow(row, true) : {}),
      key,
      agentId,
      model: row?.model ?? ref.model,
      modelProvider: row?.modelProvider ?? ref.provider,
    },
    metadata: { models: tenantModels(ctx.config), commands: [] },
  };
}
