import type { TenantContext } from "../../domain/context";
import { DomainError } from "../../domain/errors";
import { agentIdParam, canonicalKey, sessionRef } from "../../domain/keys";
import { resolveSession } from "../../domain/session-index";
import type { SessionRow } from "../../model/session-row";
import type { SessionsResolveParams } from "../../protocol/methods";

/**
 * `sessions.resolve` with the Control UI's chat-URL forms (OpenClaw): `reference` {key, slug}
 * and `shortId` (the first hex characters of the key's trailing UUID, `slugHint` narrowing ties),
 * and `allowMissing` (a miss is `{ ok: false }`, not an error).
 */

type Candidate = { key: string; agentId: string; displayName?: string };

/** OpenClaw's answers: a hit, several hits for a URL form, or a miss the caller allowed. */
export type ResolveAnswer =
  | { ok: true; key: string; agentId: string; displayName?: string }
  | { ok: true; ambiguous: true; candidates: Candidate[] }
  | { ok: false };

const SHORT_ID = /^[0-9a-f]{8,32}$/i;
const TRAILING_UUID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const MAX_CANDIDATES = 10;
const SLUG_MAX_CHARS = 64;
/** Rows a chat-URL lookup reads from the index at most. */
const REFERENCE_SCAN_MAX_ROWS = 200;

export async function resolveSessionReference(
  ctx: TenantContext<"index">,
  params: SessionsResolveParams,
): Promise<ResolveAnswer> {
  const given = [params.key, params.sessionId, params.label, params.shortId, params.reference].filter(
    (v) => v !== undefined && (typeof v !== "string" || v.trim() !== ""),
  );
  if (params.slugHint !== undefined && params.shortId === undefined) {
    throw new DomainError("invalid", "slugHint requires shortId");
  }
  if (given.length > 1) {
    throw new DomainError("invalid", "Provide either key, sessionId, label, shortId, or reference (not multiple)");
  }
  if (given.length === 0) {
    throw new DomainError("invalid", "Either key, sessionId, label, shortId, or reference is required");
  }
  try {
    if (params.shortId !== undefined) return await byShortId(ctx, params.shortId, params.slugHint, params.agentId);
    if (params.reference !== undefined) return await byReference(ctx, params.reference, params.agentId);
    // By key, sessionId or label OpenClaw answers the key and its agent only.
    const key = await resolveSession(ctx, params);
    const row = await ctx.tenant.session(key);
    return { ok: true, key, agentId: row?.agentId ?? sessionRef(ctx, key).agentId };
  } catch (error) {
    if (params.allowMissing && error instanceof DomainError && error.code === "not_found") return { ok: false };
    throw error;
  }
}

/** A URL form's hit: the candidate itself (with the name the UI shows). */
function hit(row: SessionRow): ResolveAnswer {
  return { ok: true, ...candidate(row) };
}

async function byShortId(
  ctx: TenantContext<"index">,
  shortId: string,
  slugHint: string | undefined,
  agentId: string | undefined,
): Promise<ResolveAnswer> {
  if (!SHORT_ID.test(shortId)) throw new DomainError("invalid", "shortId must be 8-32 hexadecimal characters");
  const wanted = shortId.toLowerCase();
  // The first 8 characters sit before the UUID's first dash, so the key contains them.
  const rows = await ctx.tenant.listSessions({
    search: wanted.slice(0, 8),
    limit: REFERENCE_SCAN_MAX_ROWS,
    includeArchived: true,
    ...(agentId ? { agentId: agentIdParam(agentId) } : {}),
  });
  let matches = rows.filter((row) => uuidHex(row.key)?.startsWith(wanted));
  if (matches.length > 1 && slugHint) {
    const narrowed = matches.filter((row) => slugOf(row) === slugHint);
    if (narrowed.length > 0) matches = narrowed;
  }
  if (matches.length === 1) return hit(matches[0]!);
  if (matches.length > 1)
    return { ok: true, ambiguous: true, candidates: matches.slice(0, MAX_CANDIDATES).map(candidate) };
  throw new DomainError("not_found", `No session found: ${shortId}`);
}

async function byReference(
  ctx: TenantContext<"index">,
  reference: { key: string; slug?: string | undefined },
  agentId: string | undefined,
): Promise<ResolveAnswer> {
  const key = canonicalKey(ctx, reference.key, agentId ? agentIdParam(agentId) : undefined);
  const row = await ctx.tenant.session(key);
  if (row) return hit(row);
  // The slug's first word narrows the index search (bounded: a reference never scans the tenant).
  const word = reference.slug?.split("-").find((part) => part.length > 0);
  if (reference.slug && word) {
    const rows = await ctx.tenant.listSessions({
      search: word,
      limit: REFERENCE_SCAN_MAX_ROWS,
      ...(agentId ? { agentId: agentIdParam(agentId) } : {}),
    });
    const matches = rows.filter((r) => uuidHex(r.key) !== undefined && slugOf(r) === reference.slug);
    if (matches.length === 1) return hit(matches[0]!);
    if (matches.length > 1)
      return { ok: true, ambiguous: true, candidates: matches.slice(0, MAX_CANDIDATES).map(candidate) };
  }
  throw new DomainError("not_found", `No session found: ${reference.key}`);
}

function candidate(row: SessionRow): Candidate {
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
