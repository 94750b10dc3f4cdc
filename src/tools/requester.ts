import type { TenantContext } from "../domain/context";
import { canonicalKey, mainKeyOf } from "../domain/keys";
import { agentIdOf, subagentDepth } from "../keys/session-key";
import type { SessionRow } from "../model/session-row";
import { defaultAgentId } from "../policy/agent-config";
import { isSandboxedSession } from "../policy/sandbox";

/** The session a tool call acts as. Visibility and spawn rules come from here, never from args. */
export type Requester = {
  key: string;
  agentId: string;
  sandboxed: boolean;
  spawnDepth: number;
  isSubagent: boolean;
  /** The sessions_send hops that led to the calling run (0 for an operator). */
  a2aDepth?: number;
  /** Its index row when the caller read it already (an operator's requester): not read again. */
  row?: SessionRow | null;
};

/**
 * The session a tool call acts as: a run token's own session (nothing in the body can
 * change it), or for an operator token `body.sessionKey`.
 */
export async function requesterFor(ctx: TenantContext<"index">, rawKey: string | undefined): Promise<Requester> {
  if (ctx.principal.kind === "run") {
    const claims = ctx.principal.claims;
    return {
      key: claims.sessionKey,
      agentId: claims.agentId,
      sandboxed: claims.sandboxed,
      spawnDepth: claims.spawnDepth,
      isSubagent: claims.spawnDepth > 0,
      ...(claims.a2aDepth ? { a2aDepth: claims.a2aDepth } : {}),
    };
  }
  return operatorRequester(ctx, rawKey);
}

/**
 * For an operator token the requester is `body.sessionKey` (absent or "main" = the main
 * session). Its recorded entry (if any) supplies sandboxing and spawn depth.
 */
export async function operatorRequester(ctx: TenantContext<"index">, rawKey: string | undefined): Promise<Requester> {
  const key = rawKey === undefined || rawKey.trim() === "" ? mainKeyOf(ctx) : canonicalKey(ctx, rawKey);
  const agentId = agentIdOf(key, defaultAgentId(ctx.config));
  const row = await ctx.tenant.session(key);
  const spawnDepth = row?.spawnDepth ?? subagentDepth(key);
  return {
    key,
    agentId,
    sandboxed: isSandboxedSession(ctx.config, { key, agentId, recordedSandboxed: row?.sandboxed === true }),
    spawnDepth,
    isSubagent: spawnDepth > 0 || key.includes(":subagent:"),
    row,
  };
}
