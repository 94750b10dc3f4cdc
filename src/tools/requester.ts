import { canonicalKey, defaultAgentId, mainKeyOf, tenantStub, type TenantContext } from "../domain/tenant-context";
import { agentIdOf, subagentDepth } from "../keys/session-key";
import { isSandboxedSession } from "../policy/sandbox";

/** The session a tool call acts as. Visibility and spawn rules come from here, never from args. */
export type Requester = {
  key: string;
  agentId: string;
  sandboxed: boolean;
  spawnDepth: number;
  isSubagent: boolean;
};

/**
 * For an operator token the requester is `body.sessionKey` (absent or "main" = the main
 * session). Its recorded entry (if any) supplies sandboxing and spawn depth.
 */
export async function operatorRequester(ctx: TenantContext, rawKey: string | undefined): Promise<Requester> {
  const key = rawKey === undefined || rawKey.trim() === "" ? mainKeyOf(ctx) : canonicalKey(ctx, rawKey);
  const agentId = agentIdOf(key, defaultAgentId(ctx.config));
  const row = await tenantStub(ctx).session(key);
  const spawnDepth = row?.spawnDepth ?? subagentDepth(key);
  return {
    key,
    agentId,
    sandboxed: isSandboxedSession(ctx.config, { key, agentId, recordedSandboxed: row?.sandboxed === true }),
    spawnDepth,
    isSubagent: spawnDepth > 0 || key.includes(":subagent:"),
  };
}
