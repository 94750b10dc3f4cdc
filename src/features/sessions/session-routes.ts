import { Hono } from "hono";
import { stream } from "hono/streaming";
import { canonicalKey } from "../../domain/keys";
import { listSessions, patchSession } from "../../domain/session-index";
import { type AppEnv, requireScope } from "../../http/context";
import { badRequest, notFound } from "../../http/errors";
import { parseQuery, readJson } from "../../http/request";
import type { MessageRecord } from "../../model/message-record";
import { parseMessage } from "../../model/message-record";
import {
  ingestBatchBodySchema,
  ingestBodySchema,
  parseFlag,
  parseHistoryCursor,
  parseHistoryLimit,
} from "../../protocol/http";
import { sessionsListParamsSchema } from "../../protocol/methods";
import { sessionPatchFieldsSchema } from "../../protocol/session";
import { historyPageJson } from "../../render/history-json";
import {
  appendMessage,
  appendMessages,
  deleteSession,
  followSession,
  historyPage,
  keyForSessionId,
  listDeliveries,
  resetSession,
  transcriptInfo,
  transcriptPages,
} from "./sessions";

/** Session transcripts over HTTP: ingest, OpenClaw's history route, reset, delete, JSONL export. */
export const sessionRoutes = new Hono<AppEnv>();

sessionRoutes.post("/v1/sessions/:key/messages", requireScope("operator.write"), async (c) => {
  const body = await readJson(c, ingestBodySchema);
  return c.json(await appendMessage(c.var.tenant, c.req.param("key"), body), 201);
});

/** Bulk import: up to 1,000 messages appended atomically in order (seeding, migrations). */
sessionRoutes.post("/v1/sessions/:key/messages/batch", requireScope("operator.write"), async (c) => {
  const body = await readJson(c, ingestBatchBodySchema);
  const result = await appendMessages(c.var.tenant, c.req.param("key"), body.messages, undefined, body.idempotencyKey);
  return c.json(
    {
      sessionKey: result.sessionKey,
      sessionId: result.sessionId,
      count: result.appended.length,
      firstSeq: result.appended[0]?.seq,
      lastSeq: result.appended.at(-1)?.seq,
    },
    201,
  );
});

/** The operator's list with OpenClaw's `sessions.list` params (as query string) and result. */
sessionRoutes.get("/v1/sessions", requireScope("operator.read"), async (c) => {
  const params = parseQuery(c.req.queries(), sessionsListParamsSchema);
  return c.json(await listSessions(c.var.tenant, params));
});

/** `sessions.patch` over HTTP; creates the session when absent. */
sessionRoutes.patch("/v1/sessions/:key", requireScope("operator.write"), async (c) => {
  const patch = await readJson(c, sessionPatchFieldsSchema);
  return c.json(await patchSession(c.var.tenant, c.req.param("key"), patch));
});

/** The session's delivery outbox (announces posted to its channel), newest first. */
sessionRoutes.get("/v1/sessions/:key/deliveries", requireScope("operator.read"), async (c) => {
  const limit = parseHistoryLimit(c.req.query("limit")) ?? 100;
  return c.json({ ok: true, ...(await listDeliveries(c.var.tenant, c.req.param("key"), limit)) });
});

sessionRoutes.post("/v1/sessions/:key/reset", requireScope("operator.write"), async (c) => {
  const entry = await resetSession(c.var.tenant, c.req.param("key"));
  return c.json({ ok: true, key: entry.key, entry });
});

sessionRoutes.delete("/v1/sessions/:key", requireScope("operator.write"), async (c) => {
  const { key, deleted } = await deleteSession(c.var.tenant, c.req.param("key"));
  if (!deleted) throw notFound(`Session not found: ${key}`);
  return c.json({ ok: true, key, deleted });
});

/**
 * OpenClaw's `GET /sessions/{key}/history`: `limit` (absent = all), `cursor` (`seq:N` or `N`,
 * the page ends just before it). Tool results only with `includeTools=1`, as the seed documents
 * it and as `sessions_history`'s `includeTools` (default false); the real gateway always
 * includes them (docs/http-api.md). Without a limit the whole transcript is streamed page by
 * page, so memory stays bounded at any length.
 */
sessionRoutes.get("/sessions/:key/history", requireScope("operator.read"), async (c) => {
  const limit = parseHistoryLimit(c.req.query("limit"));
  const cursor = parseHistoryCursor(c.req.query("cursor"));
  if (cursor === "invalid") throw badRequest("invalid cursor");
  const includeTools = parseFlag(c.req.query("includeTools"));
  const rawKey = c.req.param("key");
  if (rawKey.trim() === "") throw badRequest("invalid session key");

  // SSE: OpenClaw selects it by Accept; the seed docs' follow=1 is accepted too.
  if (parseFlag(c.req.query("follow")) || (c.req.header("accept") ?? "").includes("text/event-stream")) {
    return followSession(c.var.tenant, rawKey, { includeTools, limit, cursorSeq: cursor });
  }

  if (limit !== undefined) {
    const page = await historyPage(c.var.tenant, rawKey, {
      limit,
      includeTools,
      ...(cursor !== undefined ? { cursorSeq: cursor } : {}),
    });
    return c.body(historyPageJson(page), 200, { "content-type": "application/json; charset=UTF-8" });
  }

  // No limit: everything (before the cursor, if any), streamed page by page.
  const key = canonicalKey(c.var.tenant, rawKey);
  const options = { includeTools, ...(cursor !== undefined ? { beforeSeq: cursor } : {}) };
  const { pages } = await transcriptPages(c.var.tenant, key, options);
  c.header("content-type", "application/json; charset=UTF-8");
  // `items` and `messages` are the same list (OpenClaw sends both); it is read twice
  // rather than held in memory.
  return stream(c, async (out) => {
    await out.write(`{"sessionKey":${JSON.stringify(key)},"items":`);
    await writeArray(out, pages);
    await out.write(`,"messages":`);
    await writeArray(out, (await transcriptPages(c.var.tenant, key, options)).pages);
    await out.write(`,"hasMore":false}`);
  });
});

/** A transcript (current or from before a reset) as OpenClaw's JSONL file, streamed. */
sessionRoutes.get("/v1/transcripts/:agentId/:file", requireScope("operator.read"), async (c) => {
  const match = /^([0-9a-f-]{36})\.jsonl$/i.exec(c.req.param("file"));
  if (!match?.[1]) throw notFound("Transcript not found");
  const sessionId = match[1].toLowerCase();
  const owner = await keyForSessionId(c.var.tenant, sessionId);
  if (owner.agentId !== c.req.param("agentId").toLowerCase()) throw notFound(`Session not found: ${sessionId}`);
  const { pages } = await transcriptPages(c.var.tenant, owner.key, { sessionId, includeTools: true });
  const startedAt = (await transcriptInfo(c.var.tenant, owner.key, sessionId))?.startedAt ?? Date.now();
  c.header("content-type", "application/x-ndjson; charset=UTF-8");
  return stream(c, async (out) => {
    await out.write(
      `${JSON.stringify({ type: "session", version: 3, id: sessionId, timestamp: new Date(startedAt).toISOString() })}\n`,
    );
    let parentId: string | null = null;
    for await (const page of pages) {
      let chunk = "";
      for (const record of page) {
        chunk += `${transcriptLine(record, parentId)}\n`;
        parentId = record.id;
      }
      await out.write(chunk);
    }
  });
});

/** One JSONL entry: `{ type: "message", id, parentId, timestamp, message }` without `__openclaw`. */
function transcriptLine(record: MessageRecord, parentId: string | null): string {
  const message = parseMessage(record);
  delete message.__openclaw;
  return JSON.stringify({
    type: "message",
    id: record.id,
    parentId,
    timestamp: new Date(record.createdAt).toISOString(),
    message,
  });
}

async function writeArray(out: { write(chunk: string): Promise<unknown> }, pages: AsyncIterable<MessageRecord[]>) {
  await out.write("[");
  let first = true;
  for await (const page of pages) {
    if (page.length === 0) continue;
    await out.write(`${first ? "" : ","}${page.map((m) => m.json).join(",")}`);
    first = false;
  }
  await out.write("]");
}
