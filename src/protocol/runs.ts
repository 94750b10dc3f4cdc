import { z } from "zod";
import { RUNNER_TYPES } from "./runner-specs/runner-declarations";

/** Runs over HTTP: what `GET /v1/runs/{runId}` and `GET /v1/sessions/{key}/runs` answer. */

export const RUN_STATES = ["queued", "running", "ok", "error", "timeout", "aborted"] as const;

export const runUsageSchema = z
  .object({
    input: z.number().describe("Input (prompt) tokens."),
    output: z.number().describe("Output (completion) tokens."),
    totalTokens: z.number(),
    cost: z.number().optional(),
  })
  .meta({ id: "RunUsage" });

export const runViewSchema = z
  .object({
    runId: z.string(),
    sessionKey: z.string(),
    agentId: z.string().optional(),
    status: z.enum(RUN_STATES).describe("queued → running → ok | error | timeout | aborted."),
    done: z.boolean().describe("True once the run reached a terminal status."),
    origin: z.enum(["chat.send", "agent", "ingest", "tool"]).describe("What started the run."),
    runner: z.enum([...RUNNER_TYPES, "fixed"]).describe("Which runner produced (or produces) the reply."),
    message: z.string().describe("The message the run answers."),
    createdAt: z.number().describe("Epoch ms when the run was queued."),
    startedAt: z.number().optional(),
    endedAt: z.number().optional(),
    durationMs: z.number().optional().describe("endedAt − startedAt."),
    stopReason: z.string().optional(),
    error: z.string().optional().describe("Why the run failed, timed out or was aborted."),
    reply: z.string().optional().describe("The final assistant text (ok runs)."),
    usage: runUsageSchema.optional(),
    attempts: z.number().describe("Runner calls made (an interrupted run is retried)."),
    deferred: z.boolean().describe("A webhook host took the run (202) and completes it by callback."),
    messageSeq: z.number().optional().describe("Transcript seq of the user message."),
    replySeq: z.number().optional().describe("Transcript seq of the reply (or aborted partial)."),
    truncated: z.boolean().optional().describe("In lists, message and reply are cut to 2,000 characters."),
  })
  .meta({ id: "Run" });
export type RunView = z.infer<typeof runViewSchema>;

export const runResponseSchema = z
  .object({
    ok: z.literal(true),
    run: runViewSchema,
    waitedMs: z.number().optional().describe("How long the request waited (with ?wait=)."),
  })
  .meta({ id: "RunResponse" });

export const runListResponseSchema = z
  .object({
    ok: z.literal(true),
    sessionKey: z.string(),
    runs: z.array(runViewSchema).describe("Newest first."),
    hasMore: z.boolean(),
    nextCursor: z.string().optional().describe("Pass as ?cursor= for the next (older) page."),
  })
  .meta({ id: "RunList" });

/** `?wait=` is capped here: a long-poll answers with the run as it is after at most this long. */
export const MAX_RUN_WAIT_SECONDS = 60;
export const RUN_LIST_DEFAULT_LIMIT = 20;
export const RUN_LIST_MAX_LIMIT = 100;

export const runQuerySchema = z.object({
  wait: z
    .number()
    .min(0, "wait must be a number of seconds ≥ 0")
    .optional()
    .describe(`Long-poll: seconds to wait for the run to end (capped at ${MAX_RUN_WAIT_SECONDS}).`),
});

export const runListQuerySchema = z.object({
  limit: z
    .int("limit must be a whole number")
    .min(1, "limit must be at least 1")
    .optional()
    .describe(`Runs per page (default ${RUN_LIST_DEFAULT_LIMIT}, at most ${RUN_LIST_MAX_LIMIT}).`),
  cursor: z
    .string()
    .regex(/^\d{1,15}$/, "cursor must be a nextCursor value")
    .optional()
    .describe("nextCursor of the previous page."),
});
