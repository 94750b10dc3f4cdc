import { z } from "zod";
import { deploymentKeyNameSchema, type StoreSecretRef, storeSecretRefSchema } from "../secrets";
import type { ModelCost, RunnerFacts } from "./runner-declaration";

/** The config shape of a model's price (ModelCost). */
export const modelCostSchema = z.strictObject({
  input: z.number().min(0),
  output: z.number().min(0),
}) satisfies z.ZodType<ModelCost>;

/**
 * The image types a vision model takes as an image part: OpenAI's and Anthropic's documented
 * lists agree (an SVG or HEIC sent as one would fail the whole call, so it stays described).
 */
export const VISION_IMAGE_TYPES: readonly string[] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/** The fields the model runners (`openai`, `anthropic`) take alike. */
export const modelRunnerFields = {
  model: z.string().min(1),
  /**
   * Name of the deployment secret holding the API key (never the key itself): a MODEL_KEY_*
   * name the operator granted this tenant, sent only to the hosts it is bound to (docs/secrets.md).
   */
  apiKeySecret: deploymentKeyNameSchema.optional(),
  /** The tenant's own key: a SecretRef to its secret store (OpenClaw's `apiKey` form). */
  apiKey: storeSecretRefSchema.optional(),
  maxContextMessages: z.int().min(1).max(500).optional(),
};

type ModelRunnerConfig = {
  model: string;
  apiKeySecret?: string | undefined;
  apiKey?: StoreSecretRef | undefined;
  maxContextMessages?: number | undefined;
  maxTokens?: number | undefined;
  cost?: ModelCost | undefined;
};

/** The facts every model runner reads alike from those fields: it calls a model with a key, priced, with tools. */
export function modelRunnerFacts(config: ModelRunnerConfig, baseUrl: string | undefined) {
  return {
    model: config.model,
    urls: [{ field: "baseUrl", url: baseUrl }],
    apiKey: config.apiKey,
    apiKeySecret: config.apiKeySecret,
    cost: config.cost,
    maxTokens: config.maxTokens,
    maxContextMessages: config.maxContextMessages,
    offersTools: true,
  } satisfies RunnerFacts<ModelRunnerConfig>;
}
