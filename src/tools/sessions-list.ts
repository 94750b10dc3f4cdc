import type { z } from "zod";
import type { TenantContext } from "../domain/context";
import { presentRow, SESSIONS_LIST_DEFAULT_LIMIT, SESSIONS_LIST_MAX_LIMIT } from "../domain/session-index";
import { deriveChannel, toDisplayKey } from "../keys/session-key";
import { parseMessage } from "../model/message-record";
import { listKind, type SessionRow } from "../model/session-row";
import { type sessionsListArgsSchema, sessionsListDeclaration } from "../protocol/tool-specs/sessions-list-declaration";
import { sanitizeChatHistory } from "../render/sanitize";
import { dropUndefined } from "../util/encoding";
import type { Requester } from "./requester";
import { jsonResult, type ToolResult } from "./result";
import { defineTool } from "./tool-spec";
import { accessPolicy, listScope } from "./visible-targets";

const KINDS = ["main", "group", "cron", "hook", "node", "other"] as const;

// Rows per call when the agent names no limit, and the clamp: sessions.list's (OpenClaw's).
export { SESSIONS_LIST_MAX_LIMIT } from "../domain/session-index";
export const SESSIONS_LIST_MAX_MESSAGES = 20;
/** Session objects read at once when messageLimit > 0. */
const MESSAGE_FETCH_CONCURRENCY = 8;

type Args = z.infer<typeof sessionsListArgsSchema>;

/** `sessions_list`: the sessions this requester may see, newest first, in OpenClaw's row shape. */
export async function sessionsList(ctx: TenantContext<"index">, requester: Requester, args: Args): Promise<ToolResult> {
  const kinds = (args.kinds ?? [])
    .map((k) => k.trim().toLowerCase())
    .filter((k) => (KINDS as readonly string[]).includes(k));
  const limit = Math.min(SESSIONS_LIST_MAX_LIMIT, Math.max(1, Math.floor(args.limit ?? SESSIONS_LIST_DEFAULT_LIMIT)));
  const offset = Math.max(0, Math.floor(args.offset ?? 0));
  const activeMinutes = args.activeMinutes === undefined ? undefined : Math.max(1, Math.floor(args.activeMinutes));
  const messageLimit = Math.min(SESSIONS_LIST_MAX_MESSAGES, Math.max(0, Math.floor(args.messageLimit ?? 0)));

  const policy = accessPolicy(ctx, requester);
  const page = await ctx.tenant.listSessionsPage({
    limit,
    ...(offset > 0 ? { offset } : {}),
    ...(activeMinutes !== undefined ? { activeMinutes } : {}),
    ...(kinds.length > 0 ? { kinds } : {}),
    // `global` shows only when it is the main alias (session.scope = "global").
    includeGlobal: ctx.config.session?.scope === "global",
    includeUnknown: false,
    scope: await listScope(ctx, requester, policy),
  });
  const { hasMore, rows } = page;
  const sessions = rows.map((row) => toolRow(ctx, requester, row));
  if (messageLimit > 0) await attachMessages(ctx, rows, sessions, messageLimit);
  return jsonResult({
    count: sessions.length,
    sessions,
    hasMore,
    ...(hasMore ? { nextOffset: offset + rows.length } : {}),
    limitApplied: limit,
  });
}

type ToolRow = Record<string, unknown> & { key: string };

function toolRow(ctx: TenantContext<"index">, requester: Requester, row: SessionRow): ToolRow {
  const cfg = ctx.config.session;
  // "main" means the requester's own main session (as sessions_history reads it), so only
  // that key is shown as "main"; another agent's main session keeps its full key.
  const display = (key: string | undefined) =>
    key === undefined ? undefined : toDisplayKey(key, cfg, requester.agentId);
  const kind = listKind(row, cfg);
  const presented = presentRow(row, false);
  const out: Record<string, unknown> = {
    key: display(row.key),
    kind,
    channel: deriveChannel({
      key: row.key,
      kind,
      ...(row.channel ? { channel: row.channel } : {}),
      ...(row.origin?.provider ? { originProvider: row.origin.provider } : {}),
      ...(row.lastChannel ? { lastChannel: row.lastChannel } : {}),
      ...(row.deliveryContext?.channel ? { deliveryChannel: row.deliveryContext.channel } : {}),
    }),
    agentId: row.agentId,
    origin: row.origin && { provider: row.origin.provider, accountId: row.origin.accountId },
    spawnedBy: display(row.spawnedBy),
    label: row.label,
    displayName: presented.displayName,
    parentSessionKey: display(row.parentSessionKey),
    deliveryContext: row.deliveryContext,
    updatedAt: row.updatedAt,
    sessionId: row.sessionId,
    model: row.model,
    contextTokens: row.contextTokens,
    totalTokens: row.totalTokens,
    estimatedCostUsd: row.estimatedCostUsd,
    status: row.status,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    runtimeMs: row.runtimeMs,
    childSessions: row.childSessions?.map((k) => display(k)),
    thinkingLevel: row.thinkingLevel,
    fastMode: row.fastMode,
    verboseLevel: row.verboseLevel,
    reasoningLevel: row.reasoningLevel,
    elevatedLevel: row.elevatedLevel,
    responseUsage: row.responseUsage,
    systemSent: row.systemSent,
    abortedLastRun: row.abortedLastRun,
    sendPolicy: row.sendPolicy,
    lastChannel: row.lastChannel,
    lastTo: row.lastTo,
    lastAccountId: row.lastAccountId,
    archived: row.archivedAt !== undefined,
    transcriptPath: transcriptPath(ctx, row),
  };
  return dropUndefined(out) as ToolRow;
}

/** Where `GET /v1/transcripts/…` serves this transcript as JSONL (tenant-qualified). */
export function transcriptPath(ctx: TenantContext<never>, row: Pick<SessionRow, "agentId" | "sessionId">): string {
  return `/t/${ctx.tenantId}/v1/transcripts/${row.agentId}/${row.sessionId}.jsonl`;
}

/** The last N non-tool messages of each row, fetched from the session objects in parallel. */
async function attachMessages(
  ctx: TenantContext<never>,
  rows: SessionRow[],
  out: ToolRow[],
  limit: number,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < rows.length; i = next++) {
      const row = rows[i]!;
      const page = await ctx.sessions(row.key).read({
        direction: "tail",
        limit,
        includeTools: false,
        maxBytes: 512 * 1024,
      });
      const messages = (page?.messages ?? []).map(parseMessage);
      out[i]!.messages = sanitizeChatHistory(messages);
    }
  };
  await Promise.all(Array.from({ length: Math.min(MESSAGE_FETCH_CONCURRENCY, rows.length) }, worker));
}

export const sessionsListTool = defineTool(sessionsListDeclaration, ["index"], sessionsList);
