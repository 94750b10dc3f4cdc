import { z } from "zod";
import type { Operation } from "../../http/openapi/operations";
import { chatCompletionRequestSchema, embeddingsRequestSchema, responsesRequestSchema } from "./openai-schemas";

/** The OpenAI-compatible routes (src/features/openai/openai-routes.ts), for the OpenAPI document; docs/openai.md. */

const tag = "OpenAI-compatible";
const model = z.looseObject({ id: z.string(), object: z.literal("model"), owned_by: z.string() });
const routing =
  "`model` picks the agent (`openclaw`, `openclaw/<agentId>`, `openclaw:<agentId>`, `agent:<agentId>`); the session is `x-openclaw-session-key`, else `user`, else a fresh key. The run is a run of that session (its id is the completion id; `GET /v1/runs/{runId}` shows it).";

export const OPENAI_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/v1/models",
    scope: "tenant",
    tag,
    summary: "The tenant's agents as OpenAI models",
    auth: "operator.read",
    errorShape: "openai",
    ok: {
      status: 200,
      schema: z.object({ object: z.literal("list"), data: z.array(model) }),
      description: "`openclaw`, `openclaw/default` and `openclaw/<agentId>` per agent.",
    },
  },
  {
    method: "post",
    path: "/v1/chat/completions",
    scope: "tenant",
    tag,
    summary: "A chat completion: one turn of an agent run (JSON, or SSE with `stream: true`)",
    description: routing,
    auth: "operator.write",
    errorShape: "openai",
    body: chatCompletionRequestSchema,
    ok: {
      status: 200,
      schema: z.looseObject({
        id: z.string(),
        object: z.literal("chat.completion"),
        choices: z.array(z.looseObject({})),
      }),
      description: "The completion (or `text/event-stream` chunks ending with `data: [DONE]`).",
    },
    errors: [400, 404, 413, 429],
  },
  {
    method: "post",
    path: "/v1/responses",
    scope: "tenant",
    tag,
    summary: "A response (OpenResponses): one turn, continued with `previous_response_id`",
    description: `${routing} \`previous_response_id\` continues the same session, durably.`,
    auth: "operator.write",
    errorShape: "openai",
    body: responsesRequestSchema,
    ok: {
      status: 200,
      schema: z.looseObject({ id: z.string(), object: z.literal("response"), status: z.string() }),
      description: "The response (or its SSE events from `response.created` to `response.completed`).",
    },
    errors: [400, 404, 413, 429],
  },
  {
    method: "post",
    path: "/v1/embeddings",
    scope: "tenant",
    tag,
    summary: "Embeddings: refused (no runner of this service computes them)",
    auth: "operator.write",
    errorShape: "openai",
    body: embeddingsRequestSchema,
    ok: { status: 200, description: "Never: every request is answered 400 in the OpenAI shape." },
    errors: [400],
  },
];
