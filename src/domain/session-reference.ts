import { normalizeAgentId } from "../keys/session-key";
import type { SessionsResolveParams } from "../protocol/methods";
import type { SessionRow } from "../session/session-row";
import type { TenantContext } from "./context";
import { DomainError } from "./errors";
import { canonicalKey } from "./keys";
import { resolveSession } from "./registry";

/**
 * `sessions.resolve` with the Control UI's chat-URL forms (OpenClaw): `reference` {key, slug}
 * and `shortId` (the first hex characters of the key's trailing UUID, `slugHint` narrowing ties),
 * and `allowMissing` (a miss is `{ ok: false }`, not an error).
 */

export type ResolveAnswer =
  | { ok: true; key: string; agentId?: string; displayName?: string }
  | { ok: false; candidates?: { key: string; agentId: string; displayName?: string }[] };

const SHORT_ID = /^[0-9a-f]{8,32}$/i;
const TRAILING_UUID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const MAX_CANDIDATES = 10;
const SLUG_MAX_CHARS = 64;

export async function resolveSessionReference(
  ctx: TenantContext,
  params: SessionsResolveParams,
): Promise<ResolveAnswer> {
  const given = [params.key, params.sessionId, params.label, params.shortId, params.reference].filter(
    (v) => v !== undefined && (typeof v !== "string" || v.trim() !== ""),
  );
  const extended = params.shortId !== undefined || params.reference !== undefined;
  if (params.slugHint !== undefined && params.shortId === undefined) {
    throw new DomainError("invalid", "slugHint requires shortId");
  }
  if (extended && given.length > 1) {
    throw new DomainError("invalid", "Provide either key, sessionId, label, shortId, or reference (not multiple)");
  }
  try {
    if (params.shortId !== undefined) return await byShortId(ctx, params.shortId, params.slugHint, params.agentId);
    if (params.reference !== undefined) return await byReference(ctx, params.reference, params.agentId);
    const key = await resolveSession(ctx, params);
    const row = await ctx.tenant.session(key);
    return hit(row, key);
  } catch (error) {
    if (params.allowMissing && error instanceof DomainError && error.code === "not_found") return { ok: false };
    throw error;
  }
}

function hit(row: SessionRow | null, key: string): ResolveAnswer {
  const displayName = row?.displayName ?? row?.label;
  return {
    ok: true,
    key,
    ...(row ? { agentId: row.agentId } : {}),
    ...(displayName !== undefined ? { displayName } : {}),
  };
}

async function byShortId(
  ctx: TenantContext,
  shortId: string,
  slugHint: string | undefined,
  agentId: string | undefined,
): Promise<ResolveAnswer> {
  if (!SHORT_ID.test(shortId)) throw new DomainError("invalid", "shortId must be 8-32 hexadecimal characters");
  const wanted = shortId.toLowerCase();
  // The first 8 characters sit before the UUID's first dash, so the key contains them.
  const rows = await ctx.tenant.listSessions({
    search: wanted.slice(0, 8),
    includeArchived: true,
    ...(agentId ? { agentId: normalizeAgentId(agentId) } : {}),
  });
  let matches = rows.filter((row) => uuidHex(row.key)?.startsWith(wanted));
  if (matches.length > 1 && slugHint) {
    const narrowed = matches.filter((row) => slugOf(row) === slugHint);
    if (narrowed.length > 0) matches = narrowed;
  }
  if (matches.length === 1) return hit(matches[0]!, matches[0]!.key);
  if (matches.length > 1) return { ok: false, candidates: matches.slice(0, MAX_CANDIDATES).map(candidate) };
  throw new DomainError("not_found", `No session found: ${shortId}`);
}

async function byReference(
  ctx: TenantContext,
  reference: { key: string; slug?: string | undefined },
  agentId: string | undefined,
): Promise<ResolveAnswer> {
  const key = canonicalKey(ctx, reference.key, agentId ? normalizeAgentId(agentId) : undefined);
  const row = await ctx.tenant.session(key);
  if (row) return hit(row, key);
  if (reference.slug) {
    const rows = await ctx.tenant.listSessions({
      search: reference.slug.split("-")[0] ?? reference.slug,
      ...(agentId ? { agentId: normalizeAgentId(agentId) } : {}),
    });
    const matches = rows.filter((r) => uuidHex(r.key) !== undefined && slugOf(r) === reference.slug);
    if (matches.length === 1) return hit(matches[0]!, matches[0]!.key);
    if (matches.length > 1) return { ok: false, candidates: matches.slice(0, MAX_CANDIDATES).map(candidate) };
  }
  throw new DomainError("not_found", `No session found: ${reference.key}`);
}

function candidate(row: SessionRow) {
  const displayName = row.displayName ?? row.label;
  return { key: row.key, agentId: row.agentId, ...(displayName !== undefined ? { displayName } : {}) };
}

/** The key's trailing UUID without dashes, lower-case. */
function uuidHex(key: string): string | undefined {
  return TRAILING_UUID.exec(key)?.[1]?.replace(/-/g, "").toLowerCase();
}

/** The URL slug of a session's name (OpenClaw: lower-case words joined by dashes). */
export function slugOf(row: Pick<SessionRow, "displayName" | "label">): string | undefined {
  const name = row.displayName ?? row.label;
  if (!name) return undefined;
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, SLUG_MAX_CHARS)
    .replace(/-+$/g, "");
  return slug || undefined;
}
