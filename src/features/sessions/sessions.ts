import type { FollowQuery } from "../../contracts/headers";
import { FOLLOW_HEADER } from "../../contracts/headers";
import type { AppendResult, TranscriptInfo } from "../../contracts/session-api";
import type { TenantContext } from "../../domain/context";
import { DomainError, refusalsRestored } from "../../domain/errors";
import { canonicalKey, mainKeyOf, sessionRef } from "../../domain/keys";
import { startRun } from "../../domain/runs";
import type { Delivery } from "../../model/delivery";
import { tooLargeMessage } from "../../model/message-limits";
import type { MessageRecord } from "../../model/message-record";
import type { IngestBody } from "../../protocol/http";
import type { SessionEntry, SessionSeed, TranscriptMessage } from "../../protocol/session";
import { contentText } from "../../runs/runners/runner";
import { dropUndefined } from "../../util/encoding";

/** Session operations shared by every transport (HTTP and the gateway WebSocket). */

/** JSON bytes one RPC page may carry (well under the 32 MiB RPC limit). */
const PAGE_MAX_BYTES = 4 * 1024 * 1024;
/** Messages per page when streaming a whole transcript. */
const STREAM_PAGE_MESSAGES = 500;

/**
 * Ingests one inbound message (`POST /v1/sessions/{key}/messages`). With `run: true` a user
 * message starts an agent run (its idempotencyKey, when given, is the runId).
 */
export async function appendMessage(
  ctx: TenantContext<"index" | "runs">,
  rawKey: string,
  body: IngestBody,
): Promise<IngestResult> {
  const {
    idempotencyKey,
    origin,
    deliveryContext,
    chatType,
    displayName,
    label,
    channel,
    subject,
    space,
    run,
    ...message
  } = body;
  const seed: SessionSeed = dropUndefined({
    origin,
    deliveryContext,
    chatType,
    displayName,
    label,
    channel,
    subject,
    space,
  });
  if (run) {
    if (message.role !== "user") throw new DomainError("invalid", "run: true needs a user message");
    const text = contentText(message.content);
    if (text.trim() === "") throw new DomainError("invalid", "message or attachment required");
    const started = await startRun(ctx, {
      key: canonicalKey(ctx, rawKey),
      // Ingest idempotency keys are per session (like plain ingest), so the run id is scoped to it.
      runId: idempotencyKey ? `ingest:${canonicalKey(ctx, rawKey)}:${idempotencyKey}` : crypto.randomUUID(),
      message: text,
      origin: "ingest",
      seed,
      ...(message.provenance ? { provenance: message.provenance } : {}),
    });
    return {
      sessionKey: started.sessionKey,
      sessionId: started.sessionId,
      seq: started.status === "started" ? (started.userSeq ?? 0) : 0,
      messageId: started.messageId ?? "",
      runId: started.runId,
      runStatus: started.status,
    };
  }
  const result = await appendMessages(ctx, rawKey, [message as TranscriptMessage], seed, idempotencyKey);
  const last = result.appended[0]!;
  return { sessionKey: result.sessionKey, sessionId: result.sessionId, seq: last.seq, messageId: last.messageId };
}

/** Appends messages atomically, in order. */
export async function appendMessages(
  ctx: TenantContext<"index">,
  rawKey: string,
  messages: TranscriptMessage[],
  seed?: SessionSeed,
  idempotencyKey?: string,
): Promise<AppendResult> {
  const key = canonicalKey(ctx, rawKey);
  const result = await refusalsRestored(
    ctx.sessions(key).append(sessionRef(ctx, key), {
      messages,
      ...(seed ? { seed } : {}),
      ...(idempotencyKey ? { idempotencyKey } : {}),
    }),
  );
  if ("rejected" in result) {
    throw new DomainError("too_large", tooLargeMessage(result));
  }
  return result;
}

export type IngestResult = {
  sessionKey: string;
  sessionId: string;
  seq: number;
  messageId: string;
  runId?: string;
  runStatus?: string;
};

export type HistoryQuery = { limit?: number; cursorSeq?: number; includeTools: boolean };

/** One page of history, newest messages last, as pre-serialized JSON messages. */
export type HistoryPage = {
  sessionKey: string;
  sessionId: string;
  messages: MessageRecord[];
  hasMore: boolean;
  nextCursor?: string;
};

/**
 * The last `limit` messages before the cursor (OpenClaw's HTTP history paging). Large
 * messages may need several RPC pages; they are stitched here.
 */
export async function historyPage(
  ctx: TenantContext<"index">,
  rawKey: string,
  query: HistoryQuery & { limit: number },
): Promise<HistoryPage> {
  const key = canonicalKey(ctx, rawKey);
  const stub = ctx.sessions(key);
  const collected: MessageRecord[] = [];
  let cursorSeq = query.cursorSeq;
  let sessionId = "";
  let hasMore = false;
  do {
    const page = await stub.read({
      direction: "tail",
      limit: query.limit - collected.length,
      includeTools: query.includeTools,
      maxBytes: PAGE_MAX_BYTES,
      ...(cursorSeq !== undefined ? { cursorSeq } : {}),
    });
    if (!page) throw new DomainError("not_found", `Session not found: ${key}`);
    sessionId = page.sessionId;
    collected.unshift(...page.messages);
    hasMore = page.hasMore;
    cursorSeq = page.messages[0]?.seq ?? cursorSeq;
  } while (hasMore && collected.length < query.limit);
  const oldest = collected[0];
  return {
    sessionKey: key,
    sessionId,
    messages: collected,
    hasMore,
    ...(hasMore && oldest ? { nextCursor: String(oldest.seq) } : {}),
  };
}

/**
 * Every message of a transcript, oldest first, one bounded page at a time (no code path
 * holds a whole transcript). Throws not_found before yielding when the session is missing.
 */
export async function transcriptPages(
  ctx: TenantContext<"index">,
  key: string,
  options: { sessionId?: string; includeTools: boolean; beforeSeq?: number },
): Promise<{ sessionId: string; pages: AsyncGenerator<MessageRecord[]> }> {
  const stub = ctx.sessions(key);
  const read = (sessionId: string | undefined, afterSeq: number) =>
    stub.read({
      direction: "forward",
      limit: STREAM_PAGE_MESSAGES,
      includeTools: options.includeTools,
      maxBytes: PAGE_MAX_BYTES,
      cursorSeq: afterSeq,
      ...(sessionId ? { sessionId } : {}),
    });
  const first = await read(options.sessionId, 0);
  if (!first) throw new DomainError("not_found", `Session not found: ${options.sessionId ?? key}`);
  const sessionId = first.sessionId;
  const before = options.beforeSeq ?? Number.POSITIVE_INFINITY;
  async function* pages(): AsyncGenerator<MessageRecord[]> {
    let page = first!;
    for (;;) {
      const kept = page.messages.filter((m) => m.seq < before);
      yield kept;
      if (!page.hasMore || kept.length < page.messages.length) return;
      const next = await read(sessionId, page.messages.at(-1)?.seq ?? 0);
      if (!next) return;
      page = next;
    }
  }
  return { sessionId, pages: pages() };
}

/** Resolves a sessionId (current or archived by a reset) to its key via the session index. */
export async function keyForSessionId(
  ctx: TenantContext<"index">,
  sessionId: string,
): Promise<{ key: string; agentId: string }> {
  const found = await ctx.tenant.keyForSessionId(sessionId);
  if (!found) throw new DomainError("not_found", `Session not found: ${sessionId}`);
  return found;
}

export async function resetSession(
  ctx: TenantContext<"index">,
  rawKey: string,
  reason: "new" | "reset" = "reset",
): Promise<SessionEntry> {
  const key = canonicalKey(ctx, rawKey);
  return ctx.sessions(key).reset(sessionRef(ctx, key), reason);
}

export async function deleteSession(
  ctx: TenantContext<"index">,
  rawKey: string,
): Promise<{ key: string; deleted: boolean }> {
  const key = canonicalKey(ctx, rawKey);
  const mainKey = mainKeyOf(ctx);
  if (key === mainKey) throw new DomainError("invalid", `Cannot delete the main session (${mainKey}).`);
  const deleted = await ctx.sessions(key).delete(sessionRef(ctx, key));
  return { key, deleted };
}

/** A session's delivery outbox (announces posted to its channel), newest first. */
export async function listDeliveries(
  ctx: TenantContext<"index">,
  rawKey: string,
  limit: number,
): Promise<{ sessionKey: string; deliveries: Delivery[] }> {
  const key = canonicalKey(ctx, rawKey);
  return { sessionKey: key, deliveries: await ctx.sessions(key).deliveries(limit) };
}

/** When one of a key's transcripts (current or from before a reset) started and ended. */
export async function transcriptInfo(
  ctx: TenantContext<"index">,
  key: string,
  sessionId: string,
): Promise<TranscriptInfo | undefined> {
  return (await ctx.sessions(key).transcripts()).find((t) => t.sessionId === sessionId);
}

/**
 * An SSE stream following a session (OpenClaw's history with `Accept: text/event-stream`),
 * served by the session object itself; it ends when the caller's token is revoked.
 */
export async function followSession(
  ctx: TenantContext<"index">,
  rawKey: string,
  options: { includeTools: boolean; limit?: number | undefined; cursorSeq?: number | undefined },
): Promise<Response> {
  const key = canonicalKey(ctx, rawKey);
  const query: FollowQuery = {
    sessionKey: key,
    ...dropUndefined(options),
    ...(ctx.principal.kind === "operator" && ctx.principal.tokenId ? { tokenId: ctx.principal.tokenId } : {}),
  };
  const request = new Request("https://session/follow", { headers: { [FOLLOW_HEADER]: JSON.stringify(query) } });
  return ctx.sessions(key).fetch(request);
}
