import { z } from "zod";
import { modelCostSchema, modelRunnerFacts, modelRunnerFields, VISION_IMAGE_TYPES } from "./model-runner-fields";
import { defineRunnerDeclaration } from "./runner-declaration";

/** Any OpenAI-compatible chat completions endpoint; the one runner that sends a session's model choice. */
export const openaiDeclaration = defineRunnerDeclaration({
  type: "openai",
  label: "OpenAI",
  schema: z.strictObject({
    type: z.literal("openai"),
    baseUrl: z.url(),
    ...modelRunnerFields,
    /** The model's output cap per call (sent as `max_completion_tokens`). */
    maxTokens: z.int().min(1).max(1_000_000).optional(),
    cost: modelCostSchema.optional(),
  }),
  callsBack: false,
  acpHarness: false,
  facts: (config) => ({
    ...modelRunnerFacts(config, config.baseUrl),
    // Chat Completions takes PDFs alone as `file` parts (other documents only through the Responses API).
    modelParts: { images: VISION_IMAGE_TYPES, documents: ["application/pdf"] },
    // The models of the tenant's other openai runners at the same endpoint are offered too.
    sessionModel: { endpoint: config.baseUrl, withModel: (model) => ({ ...config, model }) },
  }),
});
