import { z } from "zod";
import type { Operation } from "../../http/openapi/operations";
import {
  batchResultSchema,
  deleteResultSchema,
  deliveriesSchema,
  historyPageSchema,
  ingestResultSchema,
  patchResultSchema,
  resetResultSchema,
  sessionsListSchema,
  toolInvokeBodySchema,
  toolResultSchema,
} from "../../http/openapi/responses";
import { ingestBatchBodySchema, ingestBodySchema } from "../../protocol/http";
import { importBodySchema } from "../../protocol/import";
import { sessionsListParamsSchema } from "../../protocol/methods";
import { sessionPatchFieldsSchema } from "../../protocol/session";
import { streamTicketSchema } from "../../protocol/stream-ticket";

const keyParam =
  "Session key as the caller writes it (`main`, `agent:<agentId>:<name>`, …); URL-encode `:`-free forms freely.";

/** Sessions over HTTP: list, ingest, patch, reset, delete, deliveries, export/import, history and the session tools. */
export const SESSION_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/sessions",
    scope: "tenant",
    tag: "Sessions",
    summary: "List sessions (OpenClaw's sessions.list)",
    auth: "operator.read",
    query: sessionsListParamsSchema,
    ok: { status: 200, schema: sessionsListSchema, description: "Rows newest first." },
    errors: [400],
  },
  {
    method: "post",
    path: "/v1/sessions/:key/messages",
    scope: "tenant",
    tag: "Sessions",
    summary: "Append a message (the first creates the session); run: true starts an agent run",
    description: keyParam,
    auth: "operator.write",
    body: ingestBodySchema,
    ok: { status: 201, schema: ingestResultSchema, description: "Appended (and the run started)." },
    errors: [400, 413, 429],
  },
  {
    method: "post",
    path: "/v1/sessions/:key/messages/batch",
    scope: "tenant",
    tag: "Sessions",
    summary: "Append up to 1,000 messages atomically",
    auth: "operator.write",
    body: ingestBatchBodySchema,
    ok: { status: 201, schema: batchResultSchema, description: "Appended." },
    errors: [400, 413],
  },
  {
    method: "patch",
    path: "/v1/sessions/:key",
    scope: "tenant",
    tag: "Sessions",
    summary: "Patch a session (OpenClaw's sessions.patch; null clears; creates when absent)",
    auth: "operator.write",
    body: sessionPatchFieldsSchema,
    ok: { status: 200, schema: patchResultSchema, description: "The patched entry." },
    errors: [400],
  },
  {
    method: "delete",
    path: "/v1/sessions/:key",
    scope: "tenant",
    tag: "Sessions",
    summary: "Delete a session (main cannot be deleted)",
    auth: "operator.write",
    ok: { status: 200, schema: deleteResultSchema, description: "Deleted." },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/v1/sessions/:key/reset",
    scope: "tenant",
    tag: "Sessions",
    summary: "Start a new transcript under the same key",
    auth: "operator.write",
    ok: { status: 200, schema: resetResultSchema, description: "The new entry." },
    errors: [400],
  },
  {
    method: "get",
    path: "/v1/sessions/:key/deliveries",
    scope: "tenant",
    tag: "Sessions",
    summary: "The session's delivery outbox, newest first",
    auth: "operator.read",
    query: z.object({ limit: z.number().optional() }),
    ok: { status: 200, schema: deliveriesSchema, description: "Deliveries." },
    errors: [400],
  },
  {
    method: "post",
    path: "/v1/sessions/:key/import",
    scope: "tenant",
    tag: "Transfer",
    summary: "Import one page of a session copied from another gateway (npm run import)",
    description:
      "Keeps the source's sessionId, message ids, seqs and timestamps; seqs already held are skipped, so a rerun or a resumed copy never doubles a message. 409 when the session here has a different history.",
    auth: "operator.write",
    body: importBodySchema,
    ok: { status: 201, description: "The page was applied (200 when the session already existed)." },
    errors: [400, 409, 413, 429],
  },
  {
    method: "get",
    path: "/v1/export",
    scope: "tenant",
    tag: "Transfer",
    summary: "Every session of the tenant with its entry and transcripts, as a JSONL stream",
    auth: "operator.read",
    ok: {
      status: 200,
      description: "Header line, then per session its entry and transcripts, then an end line with counts.",
      contentType: "application/x-ndjson",
      text: true,
    },
  },
  {
    method: "get",
    path: "/sessions/:key/history",
    scope: "tenant",
    tag: "History",
    summary: "History (OpenClaw's HTTP surface); SSE follow with Accept: text/event-stream",
    description:
      "`limit` absent = everything (streamed), < 1 → 1, > 1000 → 1000; `cursor` (`seq:N` or `N`) ends the page before it. With `Accept: text/event-stream` (or `follow=1`) the answer is an SSE stream: `event: history`, then `event: message` per append, `: keepalive` every 15 s. Browsers (EventSource) pass `?ticket=` from POST …/history/stream-ticket instead of the Authorization header.",
    auth: "operator.read",
    query: z.object({
      limit: z.string().optional(),
      cursor: z.string().optional(),
      includeTools: z
        .string()
        .optional()
        .describe(
          "1 = include tool results (default: left out, as sessions_history; the real gateway always includes them).",
        ),
      follow: z.string().optional().describe("1 = SSE."),
      ticket: z.string().optional().describe("A stream ticket (SSE only, single use, one minute)."),
    }),
    ok: { status: 200, schema: historyPageSchema, description: "A history page (or text/event-stream)." },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/sessions/:key/history/stream-ticket",
    scope: "tenant",
    tag: "History",
    summary: "A single-use, one-minute ticket to follow history with EventSource",
    description:
      "EventSource cannot send an Authorization header. Trade the token for a ticket here, then open `url` (history with `?ticket=`); the ticket works for one connection within a minute and carries the token's rights for this session only.",
    auth: "operator.read",
    ok: { status: 201, schema: streamTicketSchema, description: "The ticket." },
    errors: [400, 404],
  },
  {
    method: "get",
    path: "/v1/transcripts/:agentId/:file",
    scope: "tenant",
    tag: "History",
    summary: "A transcript as OpenClaw's JSONL (`<sessionId>.jsonl`)",
    auth: "operator.read",
    ok: { status: 200, description: "JSON lines.", contentType: "application/x-ndjson", text: true },
    errors: [404],
  },
  {
    method: "post",
    path: "/tools/invoke",
    scope: "tenant",
    tag: "Tools",
    summary: "Invoke a session tool (OpenClaw's /tools/invoke)",
    auth: "operator.write or run",
    body: toolInvokeBodySchema,
    ok: { status: 200, schema: toolResultSchema, description: "The tool's result." },
    errors: [400, 404, 413, 429],
  },
];
