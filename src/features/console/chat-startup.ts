import { chatHistory } from "../../domain/chat";
import { chatCommandEntries } from "../../domain/chat-commands";
import type { TenantContext } from "../../domain/context";
import { canonicalKey } from "../../domain/keys";
import { presentRow } from "../../domain/session-index";
import { parseAgentSessionKey } from "../../keys/session-key";
import { defaultAgentId } from "../../policy/agent-config";
import { agentModelRef, agentModels, DEFAULT_CONTEXT_WINDOW_TOKENS } from "../../policy/agent-models";

/**
 * OpenClaw's `chat.startup`: what a chat pane needs to open in one answer — the first history
 * page, the session's row with the model its runs use, the agent's defaults and the model
 * catalog. Nothing is queued here, so `pendingInputs` is always empty.
 */
export async function chatStartup(
  ctx: TenantContext<"index">,
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
    // What chat.metadata answers for this session: its runner's models, the commands run here.
    metadata: { models: agentModels(ctx.config, agentId), commands: chatCommandEntries() },
  };
}
