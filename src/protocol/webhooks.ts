import { z } from "zod";
import { inputProvenanceSchema, transcriptMessageSchema } from "./session";

/**
 * What this service sends to hosts it calls (webhook runners, the delivery webhook) and what
 * webhook runners call back with. Both outbound bodies are signed:
 * `x-openclaw-signature: sha256=<hex HMAC-SHA256 of the body with the tenant's runner secret>`.
 */

const toolCallSchema = z.object({
  id: z.string().min(1).max(256).describe("The call's id (the model's own); the result names it."),
  name: z.string().min(1).max(128),
  arguments: z.record(z.string(), z.unknown()).describe("The arguments, parsed."),
});

const contextMessageSchema = z.union([
  z.object({ role: z.enum(["system", "user"]), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string(),
    toolCalls: z.array(toolCallSchema).optional().describe("Tools this answer called (tool loop runs only)."),
  }),
  z.object({
    role: z.literal("tool"),
    toolCallId: z.string(),
    toolName: z.string(),
    content: z.string().describe("The tool result's text."),
    isError: z.boolean().optional(),
  }),
]);

const toolSpecSchema = z.object({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()).describe("JSON Schema of the arguments."),
});

export const webhookRunRequestSchema = z
  .object({
    type: z.literal("run"),
    runId: z.string(),
    tenantId: z.string(),
    sessionKey: z.string(),
    agentId: z.string(),
    input: z
      .object({
        message: z.string().describe("The user message this run answers."),
        provenance: inputProvenanceSchema.optional(),
        extraSystemPrompt: z.string().optional().describe("Agent-to-agent and announce steps add their prompt here."),
        thinking: z.string().optional(),
      })
      .describe("What to answer."),
    context: z
      .array(contextMessageSchema)
      .describe("Recent transcript, oldest first (bounded), ending with the message."),
    attachments: z
      .object({
        relDir: z.string(),
        files: z.array(
          z.object({ name: z.string(), bytes: z.number(), sha256: z.string(), contentBase64: z.string() }),
        ),
      })
      .optional()
      .describe("Files handed to a spawned sub-agent."),
    tools: z
      .array(toolSpecSchema)
      .optional()
      .describe("Session tools the host may ask this service to run (runner.tools: true): answer with toolCalls."),
    deadline: z.number().describe("Epoch ms after which the run is ended as timeout."),
    runToken: z
      .string()
      .optional()
      .describe("Bearer token for the callbacks and for POST /tools/invoke as this session (ocr_…)."),
    callbacks: z
      .object({ events: z.string(), complete: z.string() })
      .optional()
      .describe("Where to POST progress and the completion when answering 202."),
  })
  .meta({ id: "WebhookRunRequest", description: "POSTed to a webhook runner's url for every run." });
export type WebhookRunRequest = z.infer<typeof webhookRunRequestSchema>;

export const runUsageInputSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  totalTokens: z.number().nonnegative(),
});

export const webhookRunReplySchema = z
  .object({
    reply: z.string().optional().describe("The assistant's answer (text before the calls when toolCalls is set)."),
    toolCalls: z
      .array(toolCallSchema)
      .max(64)
      .optional()
      .describe("Run these session tools and call again with their results (only when the request offered tools)."),
    toolMessages: z.array(transcriptMessageSchema).optional().describe("Appended before the reply."),
    usage: z.object({ input: z.number(), output: z.number(), totalTokens: z.number().optional() }).optional(),
  })
  .meta({
    id: "WebhookRunReply",
    description: "A webhook runner's 200 answer. Answer 202 to complete later by callback.",
  });

/** `POST /v1/runs/{runId}/events` (run token): streamed text and extra transcript messages. */
export const runProgressBodySchema = z
  .strictObject({
    text: z.string().max(1_000_000).optional().describe("The answer so far (cumulative)."),
    messages: z.array(transcriptMessageSchema).max(100).optional(),
  })
  .meta({ id: "RunProgress" });

/** `POST /v1/runs/{runId}/complete` (run token): the reply, or an error. Repeats are acknowledged without effect. */
export const runCompleteBodySchema = z
  .strictObject({
    reply: z.string().max(1_800_000).optional(),
    error: z.string().max(10_000).optional().describe("Ends the run as error with this text."),
    usage: runUsageInputSchema.optional(),
    toolMessages: z.array(transcriptMessageSchema).max(100).optional(),
  })
  .meta({ id: "RunComplete" });

export const deliveryWebhookBodySchema = z
  .object({
    type: z.literal("delivery"),
    id: z.string(),
    idempotencyKey: z.string().describe("Also sent as the idempotency-key header; repeats carry the same key."),
    kind: z.string().describe("What is delivered, e.g. a2a-announce or subagent-announce."),
    sessionKey: z.string().optional().describe("The posting session."),
    channel: z.string(),
    to: z.string(),
    accountId: z.string().optional(),
    threadId: z.union([z.string(), z.number()]).optional(),
    message: z.string(),
  })
  .meta({
    id: "DeliveryWebhookBody",
    description: "POSTed to delivery.webhookUrl for every outbox delivery; any 2xx counts as delivered.",
  });
export type DeliveryWebhookBody = z.infer<typeof deliveryWebhookBodySchema>;
