import { z } from "zod";
import { modelCostSchema, modelRunnerFacts, modelRunnerFields, VISION_IMAGE_TYPES } from "./model-runner-fields";
import { defineRunnerDeclaration } from "./runner-declaration";

/** Where the anthropic runner sends its Messages API calls unless its config says otherwise. */
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com/v1";

/** Anthropic's Messages API (or any compatible endpoint). */
export const anthropicDeclaration = defineRunnerDeclaration({
  type: "anthropic",
  label: "Anthropic",
  schema: z.strictObject({
    type: z.literal("anthropic"),
    /** Default https://api.anthropic.com/v1; any Messages-API-compatible endpoint. */
    baseUrl: z.url().optional(),
    ...modelRunnerFields,
    /** The model's output cap per call (`max_tokens`, which the Messages API requires; default 4096). */
    maxTokens: z.int().min(1).max(1_000_000).optional(),
    cost: modelCostSchema.optional(),
  }),
  callsBack: false,
  acpHarness: false,
  // Only a configured baseUrl is the tenant's to check; the default is this service's own choice.
  facts: (config) => ({
    ...modelRunnerFacts(config, config.baseUrl),
    // `document` blocks take a PDF as base64 and plain text as a text source.
    modelParts: { images: VISION_IMAGE_TYPES, documents: ["application/pdf", "text/plain"] },
  }),
});
