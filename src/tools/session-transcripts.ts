import type { TenantContext } from "../domain/context";
import { toDisplayKey } from "../keys/session-key";
import { parseMessage, type StoredMessage } from "../model/message-record";
import { HISTORY_MAX_LIMIT } from "../protocol/http";
import { sanitizeChatHistory } from "../render/sanitize";
import { toolAvailable } from "./invoke";
import type { Requester } from "./requester";
import { sessionsHistoryTool } from "./sessions-history";
import { SESSIONS_LIST_MAX_LIMIT, sessionsList, sessionsListTool } from "./sessions-list";
import { accessPolicy, checkTarget, type Denied, resolveReference } from "./visible-targets";

/**
 * Session transcripts as readable documents (MCP resources): listed as sessions_list lists
 * them and read as sessions_history reads them (same visibility, same gateway.tools rules).
 */

export const TRANSCRIPT_PAGE_DEFAULT_LIMIT = 100;
const PAGE_MAX_BYTES = 2 * 1024 * 1024;

export type TranscriptSummary = { key: string; label?: string; displayName?: string; updatedAt?: number };

/** The sessions the requester may list, newest first (at most sessions_list's clamp). */
export async function listTranscripts(ctx: TenantContext<"index">, requester: Requester): Promise<TranscriptSummary[]> {
  if (!toolAvailable(ctx, sessionsListTool.name)) return [];
  const result = await sessionsList(ctx, requester, { limit: SESSIONS_LIST_MAX_LIMIT });
  return (result.details as { sessions: Array<TranscriptSummary & Record<string, unknown>> }).sessions.map((row) => ({
    key: row.key,
    ...(typeof row.label === "string" ? { label: row.label } : {}),
    ...(typeof row.displayName === "string" ? { displayName: row.displayName } : {}),
    ...(typeof row.updatedAt === "number" ? { updatedAt: row.updatedAt } : {}),
  }));
}

export type TranscriptPage = {
  sessionKey: string;
  sessionId: string;
  messages: StoredMessage[];
  hasMore: boolean;
  /** Pass as `beforeSeq` for the next older page. */
  nextBeforeSeq?: number;
};

/** The newest messages before `beforeSeq` (all of them when absent) of a visible session, chat.history-sanitized. */
export async function readTranscript(
  ctx: TenantContext<"index">,
  requester: Requester,
  input: { sessionKey: string; beforeSeq?: number; limit?: number },
): Promise<TranscriptPage | Denied | null> {
  if (!toolAvailable(ctx, sessionsHistoryTool.name)) return null;
  const policy = accessPolicy(ctx, requester);
  const resolved = await resolveReference(ctx, requester, policy, input.sessionKey);
  if (!("key" in resolved)) return resolved;
  const denied = await checkTarget(ctx, requester, policy, resolved.key, "history");
  if (denied) return denied;
  const limit = Math.min(HISTORY_MAX_LIMIT, Math.max(1, Math.floor(input.limit ?? TRANSCRIPT_PAGE_DEFAULT_LIMIT)));
  const page = await ctx.sessions(resolved.key).read({
    direction: "tail",
    limit,
    includeTools: true,
    maxBytes: PAGE_MAX_BYTES,
    ...(input.beforeSeq !== undefined ? { cursorSeq: input.beforeSeq } : {}),
    ...(resolved.sessionId !== undefined ? { sessionId: resolved.sessionId } : {}),
  });
  if (!page) return null;
  const oldest = page.messages[0];
  const messages = page.messages.map(parseMessage);
  return {
    sessionKey: toDisplayKey(resolved.key, ctx.config.session, requester.agentId),
    sessionId: page.sessionId,
    messages: sanitizeChatHistory(messages),
    hasMore: page.hasMore,
    ...(page.hasMore && oldest ? { nextBeforeSeq: oldest.seq } : {}),
  };
}
