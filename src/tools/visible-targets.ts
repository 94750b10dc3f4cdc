import type { ListScope } from "../contracts/tenant-api";
import type { TenantContext } from "../domain/context";
import { canonicalKey } from "../domain/keys";
import {
  agentIdOf,
  looksLikeSessionId,
  shouldResolveAsSessionId,
  toDisplayKey,
  toInternalKey,
} from "../keys/session-key";
import type { SessionRow } from "../model/session-row";
import { sandboxToolsVisibility } from "../policy/sandbox";
import {
  type AccessAction,
  checkSessionAccess,
  matchesAgentToAgentAllow,
  noSessionFoundText,
  resolveVisibility,
  type SessionVisibility,
  sessionNotFoundText,
  sessionNotVisibleText,
} from "../policy/visibility";
import type { Requester } from "./requester";

/** Applies the visibility policy of one requester: list scopes and per-target checks. */

export type AccessPolicy = { visibility: SessionVisibility; restrictToSpawned: boolean };

export type Denied = { status: "forbidden" | "error"; error: string };

export function accessPolicy(ctx: TenantContext<never>, requester: Requester): AccessPolicy {
  return resolveVisibility({
    ...(ctx.config.tools?.sessions?.visibility ? { configured: ctx.config.tools.sessions.visibility } : {}),
    sandboxed: requester.sandboxed,
    sandboxSessionToolsVisibility: sandboxToolsVisibility(ctx.config, requester.agentId),
    requesterIsSubagent: requester.isSubagent,
    requesterKnown: true,
  });
}

/** Which sessions a list may return, as SQL-ready scope. */
export async function listScope(
  ctx: TenantContext<"index">,
  requester: Requester,
  policy: AccessPolicy,
): Promise<ListScope> {
  switch (policy.visibility) {
    case "self":
      return { kind: "self", key: requester.key };
    case "tree":
      return { kind: "tree", key: requester.key, agentId: requester.agentId };
    case "agent":
      return { kind: "agents", agentIds: [requester.agentId] };
    case "all": {
      const a2a = ctx.config.tools?.agentToAgent;
      if (a2a?.enabled !== true || !matchesAgentToAgentAllow(requester.agentId, a2a.allow)) {
        return { kind: "agents", agentIds: [requester.agentId] };
      }
      const agentIds = (await ctx.tenant.agentIds()).filter(
        (id) => id === requester.agentId || matchesAgentToAgentAllow(id, a2a.allow),
      );
      return { kind: "agents", agentIds };
    }
  }
}

/** Checks one target key against the requester's visibility; null when allowed. */
export async function checkTarget(
  ctx: TenantContext<"index">,
  requester: Requester,
  policy: AccessPolicy,
  targetKey: string,
  action: AccessAction,
  /** The target's row when the caller has read it already. */
  targetRow?: SessionRow | null,
): Promise<Denied | null> {
  const target =
    targetKey === requester.key ? null : targetRow !== undefined ? targetRow : await ctx.tenant.session(targetKey);
  const spawnedByRequester =
    target !== null && (target.spawnedBy === requester.key || target.parentSessionKey === requester.key);
  if (policy.restrictToSpawned && targetKey !== requester.key && !spawnedByRequester) {
    return { status: "forbidden", error: sessionNotVisibleText(targetKey) };
  }
  const result = checkSessionAccess({
    action,
    requesterKey: requester.key,
    requesterAgentId: requester.agentId,
    targetKey,
    targetAgentId: agentIdOf(targetKey, requester.agentId),
    visibility: policy.visibility,
    ...(ctx.config.tools?.agentToAgent ? { agentToAgent: ctx.config.tools.agentToAgent } : {}),
    targetIsSpawnedByRequester: spawnedByRequester,
  });
  return result.allowed ? null : { status: result.status, error: result.error };
}

/**
 * Resolves what an agent passed as `sessionKey`: a key, `main`, `current`, or a sessionId
 * (OpenClaw's resolveSessionReference). Returns the canonical key or an error result; when
 * resolved from a sessionId, that id too (it may name a transcript from before a reset).
 */
export async function resolveReference(
  ctx: TenantContext<"index">,
  requester: Requester,
  policy: AccessPolicy,
  input: string,
): Promise<{ key: string; sessionId?: string } | Denied> {
  const trimmed = input.trim();
  if (!shouldResolveAsSessionId(trimmed)) {
    const internal = toInternalKey(trimmed, {
      requesterKey: requester.key,
      cfg: ctx.config.session,
      agentId: requester.agentId,
    });
    return { key: canonicalKey(ctx, internal, requester.agentId) };
  }
  const tenant = ctx.tenant;
  // A UUID-looking or otherwise non-key string: first as a key, then as a sessionId.
  const asKey = looksLikeSessionId(trimmed)
    ? null
    : await tenant.session(canonicalKey(ctx, trimmed, requester.agentId));
  if (asKey) return { key: asKey.key };
  // Session ids are stored lowercase (crypto.randomUUID).
  const sessionId = looksLikeSessionId(trimmed) ? trimmed.toLowerCase() : trimmed;
  const owner = await tenant.keyForSessionId(sessionId);
  if (!owner) {
    return policy.restrictToSpawned
      ? { status: "forbidden", error: sessionNotVisibleText(trimmed) }
      : { status: "error", error: sessionNotFoundText(trimmed) };
  }
  return { key: owner.key, sessionId };
}

/**
 * The session a reading tool names (`sessions_history`, `sessions_wait`), once it is visible to
 * the requester: its key, display key and the sessionId it was named by; else the tool's
 * answer. `mustExist`: a key no session has is an error before visibility (as the real
 * gateway's `sessions.resolve` first); a sessionId was found by its owner, so it exists.
 */
export async function visibleTarget(
  ctx: TenantContext<"index">,
  requester: Requester,
  reference: string,
  options: { mustExist?: boolean } = {},
): Promise<{ key: string; display: string; sessionId?: string } | { refusal: Record<string, unknown> }> {
  const policy = accessPolicy(ctx, requester);
  const resolved = await resolveReference(ctx, requester, policy, reference);
  if (!("key" in resolved)) return { refusal: resolved };
  const key = resolved.key;
  if (options.mustExist && resolved.sessionId === undefined && !(await ctx.tenant.session(key))) {
    return { refusal: { status: "error", error: noSessionFoundText(key) } };
  }
  const display = toDisplayKey(key, ctx.config.session, requester.agentId);
  const denied = await checkTarget(ctx, requester, policy, key, "history");
  if (denied) return { refusal: { ...denied, sessionKey: display } };
  return { ...resolved, display };
}
