import type { PatchOptions } from "../contracts/session-api";
import type { ListPage } from "../contracts/tenant-api";
import { resolveMainAlias } from "../keys/session-key";
import type { SessionRow } from "../model/session-row";
import { agentModel, defaultAgentId } from "../policy/agent-config";
import { agentModelRef, DEFAULT_CONTEXT_WINDOW_TOKENS, modelProblem } from "../policy/agent-models";
import type { SessionsListParams, SessionsResolveParams } from "../protocol/methods";
import type { SessionEntry, SessionPatch } from "../protocol/session";
import type { TenantContext } from "./context";
import { DomainError, rateLimited, refusalsRestored } from "./errors";
import { agentIdParam, canonicalKey, mainKeyOf, sessionRef } from "./keys";
import { markFlags } from "./marks";

/** Session index operations (OpenClaw's sessions.list / resolve / patch) for every transport. */

export type SessionsDefaults = {
  defaultAgentId: string;
  mainKey: string;
  mainSessionKey: string;
  scope: string;
  /** The default agent's model (clients such as the TUI footer show it), and its context window. */
  modelProvider: string;
  model: string;
  contextTokens: number;
};

export type SessionsListResult = {
  ts: number;
  path: string;
  count: number;
  /**
   * Rows matching the filters in all pages: exact when the page is the last one or the rest is
   * small (SessionDirectory.page), else absent (counting every row per page is not done).
   */
  totalCount?: number;
  /** Protocol 4 paging fields: `nextOffset` is the `offset` of the next page. */
  limitApplied: number;
  /** Echoed only when > 0, as OpenClaw does. */
  offset?: number;
  nextOffset: number | null;
  hasMore: boolean;
  /** A `search` stopped at its scan budget (OpenClaw's sessions_list word): the page may be short. */
  truncationReason?: "scan-limit";
  defaults: SessionsDefaults;
  sessions: PresentedRow[];
};

export function sessionsDefaults(ctx: TenantContext<"index">): SessionsDefaults {
  const alias = resolveMainAlias(ctx.config.session);
  const agentId = defaultAgentId(ctx.config);
  const model = agentModelRef(ctx.config, agentId);
  return {
    defaultAgentId: agentId,
    mainKey: alias.mainKey,
    mainSessionKey: mainKeyOf(ctx),
    scope: alias.scope,
    modelProvider: model.provider,
    model: model.model,
    contextTokens: DEFAULT_CONTEXT_WINDOW_TOKENS,
  };
}

/** OpenClaw's sessions.list page size when the caller names none. */
export const SESSIONS_LIST_DEFAULT_LIMIT = 100;
/**
 * The largest page served (`limitApplied` says when a request was cut): OpenClaw's own
 * sessions_list asks sessions.list for pages of 200 and refuses larger ones, the Control UI
 * asks for 200 at most, and all of them continue with nextOffset while hasMore.
 */
export const SESSIONS_LIST_MAX_LIMIT = 200;

/** The operator's list: OpenClaw's `sessions.list` params and result shape. */
export async function listSessions(
  ctx: TenantContext<"index">,
  params: SessionsListParams,
): Promise<SessionsListResult> {
  const limit = Math.min(SESSIONS_LIST_MAX_LIMIT, Math.max(1, Math.floor(params.limit ?? SESSIONS_LIST_DEFAULT_LIMIT)));
  const offset = Math.max(0, Math.floor(params.offset ?? 0));
  const page: ListPage =
    params.hasBoard === true
      ? { rows: [], hasMore: false, total: 0 }
      : await ctx.tenant.listSessionsPage({
          limit,
          ...(offset > 0 ? { offset } : {}),
          ...(params.activeMinutes !== undefined ? { activeMinutes: params.activeMinutes } : {}),
          includeGlobal: params.includeGlobal === true,
          includeUnknown: params.includeUnknown === true,
          includeArchived: params.includeArchived === true || params.archived === "all",
          ...(params.archived === true ? { archivedOnly: true } : {}),
          ...(params.label !== undefined ? { label: params.label } : {}),
          ...(params.agentId !== undefined ? { agentId: agentIdParam(params.agentId) } : {}),
          ...(params.spawnedBy !== undefined ? { spawnedBy: canonicalKey(ctx, params.spawnedBy) } : {}),
          ...(params.search ? { search: params.search } : {}),
          ...(params.activeOnly ? { activeOnly: true } : {}),
          ...(params.excludeSubagents ? { excludeSubagents: true } : {}),
          ...(params.excludeCron ? { excludeCron: true } : {}),
        });
  const sessions = page.rows.map((row) => {
    const presented = presentRow(row, params.includeLastMessage === true);
    // OpenClaw's title: label, display name, else the start of the conversation.
    const title = presented.label ?? presented.displayName ?? row.lastMessagePreview;
    return params.includeDerivedTitles && title ? { ...presented, derivedTitle: derivedTitle(title) } : presented;
  });
  const { hasMore } = page;
  return {
    ts: Date.now(),
    path: "(multiple)",
    count: sessions.length,
    ...(page.total !== undefined ? { totalCount: page.total } : {}),
    limitApplied: limit,
    ...(offset > 0 ? { offset } : {}),
    nextOffset: hasMore ? offset + sessions.length : null,
    hasMore,
    ...(page.scanLimited ? { truncationReason: "scan-limit" as const } : {}),
    defaults: sessionsDefaults(ctx),
    sessions,
  };
}

/** `sessions.describe`: one session's `sessions.list` row, or null when it does not exist. */
export async function describeSession(
  ctx: TenantContext<"index">,
  params: { key: string; agentId?: string | undefined; includeLastMessage?: boolean | undefined },
): Promise<{ session: PresentedRow | null }> {
  const key = canonicalKey(ctx, params.key, params.agentId ? agentIdParam(params.agentId) : undefined);
  const row = await ctx.tenant.session(key, true);
  return { session: row ? presentRow(row, params.includeLastMessage === true) : null };
}

/**
 * OpenClaw's displayName fallback chain, the preview only when asked for, the Control UI's
 * unread / pinned / archived flags and the context window.
 */
export function presentRow(row: SessionRow, includeLastMessage: boolean): PresentedRow {
  const { lastMessagePreview, ...rest } = row;
  const displayName = row.displayName ?? row.label ?? row.origin?.label;
  return {
    ...rest,
    ...(displayName !== undefined ? { displayName } : {}),
    ...(includeLastMessage && lastMessagePreview !== undefined ? { lastMessagePreview } : {}),
    ...markFlags(row),
    contextTokens: row.contextTokens ?? DEFAULT_CONTEXT_WINDOW_TOKENS,
  };
}

export type PresentedRow = SessionRow & { unread: boolean; pinned: boolean; archived: boolean; derivedTitle?: string };

/** `sessions.resolve`: exactly one of key, sessionId or label → the canonical key. */
export async function resolveSession(ctx: TenantContext<"index">, params: SessionsResolveParams): Promise<string> {
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
  const agentId = params.agentId !== undefined ? agentIdParam(params.agentId) : undefined;
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
  ctx: TenantContext<"index">,
  rawKey: string,
  patch: SessionPatch,
  options: PatchOptions = {},
): Promise<PatchResult> {
  // OpenClaw: webchat clients change their session through chat.send, except the Control UI.
  if (ctx.client?.mode === "webchat" && ctx.client.id !== "openclaw-control-ui") {
    throw new DomainError("invalid", "webchat clients cannot patch sessions; use chat.send for session-scoped updates");
  }
  const key = canonicalKey(ctx, rawKey);
  if (typeof patch.model === "string") {
    const problem = modelProblem(ctx.config, sessionRef(ctx, key).agentId, patch.model);
    if (problem) throw new DomainError("invalid", problem);
  }
  const normalized: SessionPatch = {
    ...patch,
    ...(typeof patch.spawnedBy === "string" ? { spawnedBy: canonicalKey(ctx, patch.spawnedBy) } : {}),
  };
  const ref = sessionRef(ctx, key);
  // A new key is created by the tenant alone (no session object until first use).
  const created = await ctx.tenant.createSession(ref, normalized, options);
  if (created && "refused" in created) throw rateLimited(created.refused.message, created.refused.retryAfterMs);
  const entry = created ?? (await refusalsRestored(ctx.sessions(key).patch(ref, normalized, options)));
  const model = entry.model ?? agentModel(ctx.config, entry.agentId);
  return {
    ok: true,
    path: "(multiple)",
    key,
    entry,
    resolved: { ...(entry.modelProvider ? { modelProvider: entry.modelProvider } : {}), ...(model ? { model } : {}) },
  };
}

const DERIVED_TITLE_MAX_CHARS = 60;

/** OpenClaw's title truncation: first letter upper-cased, cut at a word past 60 % of the limit. */
function derivedTitle(text: string): string {
  const folded = text.replace(/\s+/g, " ").trim();
  const title = folded.charAt(0).toUpperCase() + folded.slice(1);
  if (title.length <= DERIVED_TITLE_MAX_CHARS) return title;
  const cut = title.slice(0, DERIVED_TITLE_MAX_CHARS - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > DERIVED_TITLE_MAX_CHARS * 0.6 ? cut.slice(0, space) : cut}…`;
}
