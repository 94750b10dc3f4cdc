import type { PatchOptions } from "../contracts/session-api";
import { normalizeAgentId, resolveMainAlias } from "../keys/session-key";
import { agentModel, defaultAgentId } from "../policy/agents";
import type { SessionsListParams, SessionsResolveParams } from "../protocol/methods";
import type { SessionEntry, SessionPatch } from "../protocol/session";
import type { SessionRow } from "../session/session-row";
import type { TenantContext } from "./context";
import { DomainError } from "./errors";
import { canonicalKey, mainKeyOf, sessionRef } from "./keys";

/** Session index operations (OpenClaw's sessions.list / resolve / patch) for every transport. */

export type SessionsDefaults = { defaultAgentId: string; mainKey: string; mainSessionKey: string; scope: string };

export type SessionsListResult = {
  ts: number;
  path: string;
  count: number;
  /** Protocol 4 paging fields: `nextOffset` is the `offset` of the next page. */
  limitApplied: number | null;
  hasMore: boolean;
  nextOffset: number | null;
  defaults: SessionsDefaults;
  sessions: SessionRow[];
};

export function sessionsDefaults(ctx: TenantContext): SessionsDefaults {
  const alias = resolveMainAlias(ctx.config.session);
  return {
    defaultAgentId: defaultAgentId(ctx.config),
    mainKey: alias.mainKey,
    mainSessionKey: mainKeyOf(ctx),
    scope: alias.scope,
  };
}

/** The operator's list: OpenClaw's `sessions.list` params and result shape. */
export async function listSessions(ctx: TenantContext, params: SessionsListParams): Promise<SessionsListResult> {
  const rows = await ctx.tenant.listSessions({
    // One extra row tells whether more exist.
    ...(params.limit !== undefined ? { limit: params.limit + 1 } : {}),
    ...(params.offset ? { offset: params.offset } : {}),
    ...(params.activeMinutes !== undefined ? { activeMinutes: params.activeMinutes } : {}),
    includeGlobal: params.includeGlobal === true,
    includeUnknown: params.includeUnknown === true,
    includeArchived: params.includeArchived === true || params.archived === "all",
    ...(params.archived === true ? { archivedOnly: true } : {}),
    ...(params.label !== undefined ? { label: params.label } : {}),
    ...(params.agentId !== undefined ? { agentId: normalizeAgentId(params.agentId) } : {}),
    ...(params.spawnedBy !== undefined ? { spawnedBy: canonicalKey(ctx, params.spawnedBy) } : {}),
    ...(params.search !== undefined ? { search: params.search } : {}),
  });
  const hasMore = params.limit !== undefined && rows.length > params.limit;
  const sessions = (hasMore ? rows.slice(0, params.limit) : rows).map((row) =>
    presentRow(row, params.includeLastMessage === true),
  );
  return {
    ts: Date.now(),
    path: "(multiple)",
    count: sessions.length,
    limitApplied: params.limit ?? null,
    hasMore,
    nextOffset: hasMore ? (params.offset ?? 0) + sessions.length : null,
    defaults: sessionsDefaults(ctx),
    sessions,
  };
}

/** `sessions.describe`: one session's `sessions.list` row, or null when it does not exist. */
export async function describeSession(
  ctx: TenantContext,
  params: { key: string; agentId?: string; includeLastMessage?: boolean },
): Promise<{ session: SessionRow | null }> {
  const key = canonicalKey(
    ctx,
    params.key,
    params.agentId !== undefined ? normalizeAgentId(params.agentId) : undefined,
  );
  const row = await ctx.tenant.session(key, true);
  return { session: row ? presentRow(row, params.includeLastMessage === true) : null };
}

/** OpenClaw's displayName fallback chain, and the preview only when asked for. */
export function presentRow(row: SessionRow, includeLastMessage: boolean): SessionRow {
  const { lastMessagePreview, ...rest } = row;
  const displayName = row.displayName ?? row.label ?? row.origin?.label;
  return {
    ...rest,
    ...(displayName !== undefined ? { displayName } : {}),
    ...(includeLastMessage && lastMessagePreview !== undefined ? { lastMessagePreview } : {}),
  };
}

/** `sessions.resolve`: exactly one of key, sessionId or label → the canonical key. */
export async function resolveSession(ctx: TenantContext, params: SessionsResolveParams): Promise<string> {
  // A blank field counts as absent (OpenClaw trims each one before choosing).
  const rawKey = params.key?.trim() || undefined;
  const rawSessionId = params.sessionId?.trim() || undefined;
  const rawLabel = params.label?.trim() || undefined;
  const given = [rawKey, rawSessionId, rawLabel].filter((v) => v !== undefined);
  if (given.length > 1) throw new DomainError("invalid", "Provide either key, sessionId, or label (not multiple)");
  if (given.length === 0) throw new DomainError("invalid", "Either key, sessionId, or label is required");
  const tenant = ctx.tenant;
  const spawnedBy = params.spawnedBy !== undefined ? canonicalKey(ctx, params.spawnedBy) : undefined;
  const visible = (row: SessionRow | null): row is SessionRow =>
    row !== null && (spawnedBy === undefined || row.spawnedBy === spawnedBy || row.parentSessionKey === spawnedBy);

  if (rawKey !== undefined) {
    const key = canonicalKey(ctx, rawKey);
    if (!reservedAllowed(key, params) || !visible(await tenant.session(key))) {
      throw new DomainError("not_found", `No session found: ${rawKey}`);
    }
    return key;
  }
  if (rawSessionId !== undefined) {
    const sessionId = rawSessionId;
    const owner = await tenant.keyForSessionId(sessionId);
    if (!owner || !reservedAllowed(owner.key, params) || !visible(await tenant.session(owner.key))) {
      throw new DomainError("not_found", `No session found: ${sessionId}`);
    }
    return owner.key;
  }
  const label = rawLabel!;
  const agentId = params.agentId !== undefined ? normalizeAgentId(params.agentId) : undefined;
  const keys = await tenant.keysWithLabel(label, agentId);
  const rows = await Promise.all(keys.map((key) => tenant.session(key)));
  const matches = rows.filter(visible).filter((row) => reservedAllowed(row.key, params));
  if (matches.length === 0) throw new DomainError("not_found", `No session found with label: ${label}`);
  if (matches.length > 1) {
    throw new DomainError(
      "invalid",
      `Multiple sessions found with label: ${label} (${matches.map((r) => r.key).join(", ")})`,
    );
  }
  return matches[0]!.key;
}

function reservedAllowed(key: string, params: SessionsResolveParams): boolean {
  if (key === "global") return params.includeGlobal === true;
  if (key === "unknown") return params.includeUnknown === true;
  return true;
}

export type PatchResult = {
  ok: true;
  path: string;
  key: string;
  entry: SessionEntry;
  resolved: { modelProvider?: string; model?: string };
};

/**
 * `sessions.patch`: creates the session when absent, null clears an override. `options.reason`
 * is the `sessions.changed` reason (the gateway's sessions.patch says `patch` even when it created,
 * sessions.create says `create` even for an existing key, as the real gateway does).
 */
export async function patchSession(
  ctx: TenantContext,
  rawKey: string,
  patch: SessionPatch,
  options: PatchOptions = {},
): Promise<PatchResult> {
  // OpenClaw: webchat clients change their session through chat.send, except the Control UI.
  if (ctx.client?.mode === "webchat" && ctx.client.id !== "openclaw-control-ui") {
    throw new DomainError("invalid", "webchat clients cannot patch sessions; use chat.send for session-scoped updates");
  }
  const key = canonicalKey(ctx, rawKey);
  const normalized: SessionPatch = {
    ...patch,
    ...(typeof patch.spawnedBy === "string" ? { spawnedBy: canonicalKey(ctx, patch.spawnedBy) } : {}),
  };
  const entry = await ctx.sessions(key).patch(sessionRef(ctx, key), normalized, options);
  const model = entry.model ?? agentModel(ctx.config, entry.agentId);
  return {
    ok: true,
    path: "(multiple)",
    key,
    entry,
    resolved: { ...(entry.modelProvider ? { modelProvider: entry.modelProvider } : {}), ...(model ? { model } : {}) },
  };
}
