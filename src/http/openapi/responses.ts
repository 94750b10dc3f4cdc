import { z } from "zod";
import { transcriptMessageSchema } from "../../protocol/session";
import { TOOL_SPECS } from "../../tools/catalog";

/**
 * Response bodies of the routes that predate the OpenAPI document, as zod schemas for it.
 * OpenClaw-shaped results (session rows, history pages) list their main fields and allow the
 * rest: their full shape is OpenClaw's (see the README and the OpenClaw docs).
 */

export const errorSchema = z
  .object({
    ok: z.literal(false),
    error: z.object({
      type: z.string().describe("not_found, unauthorized, forbidden, invalid_request, invalid_json, …"),
      message: z.string(),
    }),
  })
  .meta({ id: "Error", description: "Every HTTP error: `{ ok: false, error: { type, message } }`." });

export const openAiErrorSchema = z
  .object({
    error: z.object({ message: z.string(), type: z.string(), code: z.string().optional() }),
  })
  .meta({ id: "OpenAIError", description: "Errors of the OpenAI-compatible routes, in OpenAI's shape." });

export const healthSchema = z.object({ ok: z.literal(true), status: z.literal("live") }).meta({ id: "Health" });

export const serviceInfoSchema = z
  .object({ ok: z.literal(true), service: z.string(), gateway: z.string(), tenant: z.string().nullable() })
  .meta({ id: "ServiceInfo" });

export const messageRecordSchema = transcriptMessageSchema
  .extend({
    __openclaw: z.object({ id: z.string(), seq: z.number() }).loose().optional(),
  })
  .meta({ id: "HistoryMessage" });

export const historyPageSchema = z
  .object({
    sessionKey: z.string(),
    items: z.array(messageRecordSchema),
    messages: z.array(messageRecordSchema).describe("The same list as items (OpenClaw sends both)."),
    hasMore: z.boolean(),
    nextCursor: z.string().optional().describe("Pass as ?cursor= for the page before this one."),
  })
  .meta({ id: "HistoryPage" });

export const sessionRowSchema = z
  .looseObject({
    key: z.string(),
    sessionId: z.string(),
    agentId: z.string(),
    kind: z.enum(["direct", "group", "global", "unknown"]),
    updatedAt: z.number(),
    label: z.string().optional(),
    displayName: z.string().optional(),
    status: z.string().optional(),
    spawnedBy: z.string().optional(),
    childSessions: z.array(z.string()).optional(),
  })
  .meta({ id: "SessionRow", description: "OpenClaw's gateway session row." });

export const sessionsListSchema = z
  .looseObject({
    ts: z.number(),
    count: z.number(),
    hasMore: z.boolean(),
    defaults: z.looseObject({ defaultAgentId: z.string(), mainKey: z.string(), mainSessionKey: z.string() }),
    sessions: z.array(sessionRowSchema),
  })
  .meta({ id: "SessionsList", description: "OpenClaw's sessions.list result." });

export const sessionEntrySchema = z
  .looseObject({ key: z.string(), sessionId: z.string(), agentId: z.string(), updatedAt: z.number() })
  .meta({ id: "SessionEntry" });

export const patchResultSchema = z
  .looseObject({ ok: z.literal(true), key: z.string(), entry: sessionEntrySchema })
  .meta({ id: "PatchResult", description: "OpenClaw's sessions.patch result." });

export const resetResultSchema = z.object({ ok: z.literal(true), key: z.string(), entry: sessionEntrySchema });
export const deleteResultSchema = z.object({ ok: z.literal(true), key: z.string(), deleted: z.boolean() });

export const ingestResultSchema = z
  .object({
    sessionKey: z.string(),
    sessionId: z.string(),
    seq: z.number(),
    messageId: z.string(),
    runId: z.string().optional().describe("With run: true — follow it at GET /v1/runs/{runId}."),
    runStatus: z.string().optional(),
  })
  .meta({ id: "IngestResult" });

export const batchResultSchema = z.object({
  sessionKey: z.string(),
  sessionId: z.string(),
  count: z.number(),
  firstSeq: z.number().optional(),
  lastSeq: z.number().optional(),
});

export const deliverySchema = z
  .object({
    id: z.string(),
    idempotencyKey: z.string(),
    kind: z.string(),
    target: z.looseObject({ channel: z.string(), to: z.string() }),
    message: z.string(),
    status: z.enum(["pending", "delivered", "dead", "blocked"]),
    attempts: z.number(),
    lastError: z.string().optional(),
    deliveredTo: z.string().optional(),
    createdAt: z.number(),
    updatedAt: z.number(),
  })
  .meta({ id: "Delivery" });

export const deliveriesSchema = z.object({
  ok: z.literal(true),
  sessionKey: z.string(),
  deliveries: z.array(deliverySchema).describe("Newest first."),
});

export const toolInvokeBodySchema = z
  .looseObject({
    tool: z.string().describe(TOOL_SPECS.map((tool) => tool.name).join(", ")),
    args: z.record(z.string(), z.unknown()).optional().describe("The tool's arguments (OpenClaw's)."),
    sessionKey: z.string().optional().describe("The requester for an operator token (default: main)."),
    action: z.string().optional(),
  })
  .meta({ id: "ToolInvoke" });

export const toolResultSchema = z
  .object({
    ok: z.literal(true),
    result: z.object({
      content: z.array(z.object({ type: z.literal("text"), text: z.string() })),
      details: z.unknown().describe("The tool's structured result (OpenClaw's)."),
    }),
  })
  .meta({ id: "ToolResult" });

export const runCallbackResultSchema = z.object({
  ok: z.literal(true),
  runId: z.string(),
  accepted: z.boolean().optional(),
  completed: z.boolean().optional(),
  state: z.string(),
});

export const secretSchema = z.object({ ok: z.literal(true), secret: z.string() });
export const createdTenantSchema = z.object({ id: z.string() });
export const revokedTokenSchema = z.object({ ok: z.literal(true), tokenId: z.string(), revoked: z.literal(true) });
export const reindexResultSchema = z.object({ ok: z.literal(true), sessions: z.number() });

export const deploymentHealthSchema = z.object({
  ok: z.literal(true),
  healthy: z.boolean().describe("True when no secret or var is missing or malformed."),
  problems: z.array(
    z.object({
      name: z.string().describe("The worker secret or var, e.g. SECRET_STORE_KEY."),
      problem: z.string(),
      breaks: z.string().describe("What does not work until it is fixed."),
    }),
  ),
});
