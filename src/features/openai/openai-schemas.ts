import { z } from "zod";

/**
 * Request bodies of the OpenAI-compatible routes, as OpenClaw validates them: chat completions
 * leniently (unknown fields dropped; ranges checked after the schema with OpenClaw's texts),
 * responses strictly (an unknown key is a 400). Messages and tools are read leniently here
 * and judged by openai/prompt.ts and openai/client-tools.ts.
 */

const positiveTokenCap = z.int().positive().nullable().optional();
const optionalNumber = z.number().nullable().optional();

export const chatCompletionRequestSchema = z.object({
  model: z.string().nullable().optional(),
  messages: z.array(z.unknown()).nullable().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().nullable().optional() }).nullable().optional(),
  user: z.string().nullable().optional(),
  tools: z.array(z.unknown()).nullable().optional(),
  tool_choice: z.unknown().optional(),
  max_completion_tokens: positiveTokenCap,
  max_tokens: positiveTokenCap,
  temperature: optionalNumber,
  top_p: optionalNumber,
  frequency_penalty: optionalNumber,
  presence_penalty: optionalNumber,
  seed: optionalNumber,
  stop: z
    .union([z.string(), z.array(z.string())])
    .nullable()
    .optional(),
  response_format: z.unknown().optional(),
});
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

const inputText = z.strictObject({ type: z.literal("input_text"), text: z.string() });
const outputText = z.strictObject({
  type: z.literal("output_text"),
  text: z.string(),
  annotations: z.array(z.unknown()).optional(),
  logprobs: z.array(z.unknown()).optional(),
});
// Accepted by the schema so the refusal can say what is missing (no runner takes them yet).
const inputImage = z.looseObject({ type: z.literal("input_image") });
const inputFile = z.looseObject({ type: z.literal("input_file") });
const contentPart = z.discriminatedUnion("type", [inputText, outputText, inputImage, inputFile]);

const messageItem = z
  .strictObject({
    type: z.literal("message"),
    role: z.enum(["system", "developer", "user", "assistant"]),
    content: z.union([z.string(), z.array(contentPart)]),
    phase: z.enum(["commentary", "final_answer"]).optional(),
    // An SDK replaying a previous response's output sends these with each item.
    id: z.string().optional(),
    status: z.string().optional(),
  })
  .superRefine((item, ctx) => {
    if (item.phase !== undefined && item.role !== "assistant") {
      ctx.addIssue({ code: "custom", path: ["phase"], message: "`phase` is only valid on assistant messages." });
    }
  });

const functionCallItem = z.strictObject({
  type: z.literal("function_call"),
  call_id: z.string().optional(),
  id: z.string().optional(),
  name: z.string(),
  arguments: z.string(),
  status: z.string().optional(),
});

const functionCallOutputItem = z.strictObject({
  type: z.literal("function_call_output"),
  call_id: z.string(),
  output: z.string(),
  id: z.string().optional(),
  status: z.string().optional(),
});

const ignoredItem = z.looseObject({ type: z.enum(["reasoning", "item_reference"]) });

/**
 * A message may omit `type` (OpenAI's EasyInputMessage: `{ role, content }`, what the AI SDK's
 * Responses model sends); it is read as `type: "message"`.
 */
function withMessageType(item: unknown): unknown {
  if (!item || typeof item !== "object" || Array.isArray(item)) return item;
  const fields = item as Record<string, unknown>;
  return fields.type === undefined && "role" in fields ? { ...fields, type: "message" } : item;
}

export const responseInputItemSchema = z.preprocess(
  withMessageType,
  z.discriminatedUnion("type", [messageItem, functionCallItem, functionCallOutputItem, ignoredItem]),
);
export type ResponseInputItem = z.infer<typeof responseInputItemSchema>;

const responsesFunctionTool = z.strictObject({
  type: z.literal("function"),
  name: z.string(),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  strict: z.boolean().nullable().optional(),
});

const responsesToolChoice = z.union([
  z.enum(["auto", "none", "required"]),
  z.strictObject({ type: z.literal("function"), name: z.string() }),
  z.strictObject({ type: z.literal("function"), function: z.strictObject({ name: z.string() }) }),
]);

export const responsesRequestSchema = z.strictObject({
  model: z.string(),
  input: z
    .union([z.string(), z.array(responseInputItemSchema)])
    .describe("A string, or items; a message item may leave out `type` (OpenAI's EasyInputMessage)."),
  instructions: z.string().nullable().optional(),
  tools: z.array(responsesFunctionTool).optional(),
  tool_choice: responsesToolChoice.optional(),
  stream: z.boolean().nullable().optional(),
  user: z.string().nullable().optional(),
  previous_response_id: z.string().nullable().optional(),
  max_output_tokens: z.int().positive().nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  text: z.strictObject({ format: z.strictObject({ type: z.literal("text") }).optional() }).optional(),
  // Accepted and ignored, as OpenClaw does.
  max_tool_calls: z.int().nullable().optional(),
  reasoning: z
    .strictObject({ effort: z.string().nullable().optional(), summary: z.string().nullable().optional() })
    .nullable()
    .optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
  store: z.boolean().nullable().optional(),
  truncation: z.string().nullable().optional(),
  // Extra output OpenAI can add (`reasoning.encrypted_content`, `message.output_text.logprobs`, …;
  // the Agents SDK sends `[]`): accepted and ignored, none of it exists here.
  include: z.array(z.string()).nullable().optional(),
  // LangChain's bindTools({ parallel_tool_calls }) and the Agents SDK's parallelToolCalls send it;
  // accepted and ignored: the agent's model decides how many calls an answer holds.
  parallel_tool_calls: z.boolean().nullable().optional(),
});
export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;

export const embeddingsRequestSchema = z.object({
  model: z.string().nullable().optional(),
  input: z.unknown().optional(),
  encoding_format: z.enum(["float", "base64"]).optional(),
  dimensions: z.int().positive().optional(),
  user: z.string().optional(),
});
