import type { TranscriptHit } from "../../contracts/session-api";
import type { TenantContext } from "../../domain/context";
import { DomainError } from "../../domain/errors";
import { listSessions } from "../../domain/session-index";
import type { SessionsListParams } from "../../protocol/methods";

/**
 * `sessions.search`: transcript search over the caller's visible sessions. How it scales: the
 * SEARCH_SESSIONS_MAX most recently updated sessions that match the scope are asked, at most
 * SEARCH_CONCURRENCY at a time, each scanning only its current transcript in its own SQLite
 * (one object per session, so the scans spread over the sessions' objects). A session whose
 * index row counts no message is never asked (asking would wake, or create, its object for
 * nothing). Each transcript is scanned newest first for SEARCH_SESSION_BYTES of messages at
 * most, and one call for SEARCH_CALL_BYTES and SEARCH_BUDGET_MS in all; the answer is what
 * came back within them, newest first, `truncated` when a budget left anything unread.
 */

export const SEARCH_SESSIONS_MAX = 200;
export const SEARCH_LIMIT_MAX = 100;
const SEARCH_CONCURRENCY = 16;
const SEARCH_BUDGET_MS = 3_000;
/** Message bytes one session's scan looks at, at most (its newest messages). */
export const SEARCH_SESSION_BYTES = 4 * 1024 * 1024;
/** Message bytes one call looks at over all its sessions, at most. */
export const SEARCH_CALL_BYTES = 32 * 1024 * 1024;

/**
 * The sessions searched: OpenClaw's scope is the Control UI's sessions.list filters (its
 * Active/Archived/All tab as `archived`, its agent, kinds, label, …) without the paging.
 */
export type SearchScope = Omit<SessionsListParams, "limit" | "offset" | "includeDerivedTitles" | "includeLastMessage">;

export type SearchParams = {
  query: string;
  limit?: number | undefined;
  scope?: SearchScope | undefined;
};

export type SearchHit = TranscriptHit & { sessionKey: string; score: number };

export async function searchSessions(ctx: TenantContext<"index">, params: SearchParams) {
  const query = params.query.trim();
  if (!query) throw new DomainError("invalid", "query must not be empty");
  const limit = Math.min(params.limit ?? 25, SEARCH_LIMIT_MAX);
  const scope = params.scope ?? {};
  // The same filters as the list the UI shows beside the search (archived ones included as asked).
  const candidates = await listSessions(ctx, { ...scope, limit: SEARCH_SESSIONS_MAX });
  // Only sessions with a message: nothing to find in the others, and no object to wake.
  const keys = candidates.sessions.filter((session) => session.messageCount > 0).map((session) => session.key);
  const deadline = Date.now() + SEARCH_BUDGET_MS;
  const hits: SearchHit[] = [];
  let asked = 0;
  // Bytes not yet promised to a scan; a scan's unused share comes back when it answers.
  let bytesLeft = SEARCH_CALL_BYTES;
  let stopped = false;
  const worker = async () => {
    while (asked < keys.length && Date.now() < deadline && bytesLeft > 0) {
      const key = keys[asked++]!;
      const share = Math.min(SEARCH_SESSION_BYTES, bytesLeft);
      bytesLeft -= share;
      const found = await Promise.resolve(ctx.sessions(key).search(query, limit, share)).catch(() => ({
        hits: [],
        bytes: 0,
        stopped: false,
      }));
      bytesLeft += share - Math.min(share, found.bytes);
      stopped ||= found.stopped;
      hits.push(...found.hits.map((hit) => ({ ...hit, sessionKey: key, score: 1 })));
    }
  };
  await Promise.all(Array.from({ length: SEARCH_CONCURRENCY }, worker));
  hits.sort((a, b) => b.timestamp - a.timestamp || a.sessionKey.localeCompare(b.sessionKey));
  const matches = hits.slice(0, limit);
  const truncated = stopped || hits.length > limit || asked < keys.length || candidates.hasMore;
  if (params.scope === undefined) return { hits: matches, indexing: false, truncated };
  // With a scope (the Control UI), OpenClaw answers the hits as `results` with their sessions' rows.
  const matched = new Set(matches.map((hit) => hit.sessionKey));
  return {
    results: matches,
    sessions: candidates.sessions.filter((session) => matched.has(session.key)),
    ...(truncated ? { truncated: true } : {}),
  };
}
