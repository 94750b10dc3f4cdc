import type { z } from "zod";
import type { StoreSecretRef } from "../secrets";

/** A model's price in USD per million tokens (OpenClaw's model `cost`): usage reports cost with it. */
export type ModelCost = { input: number; output: number };

/**
 * The chat files a runner's wire format gives the model as native parts, by MIME type: images
 * (OpenAI `image_url`, Anthropic `image`) and documents (OpenAI `file`, Anthropic `document`).
 * A file of another type stays its `[media attached: …]` line.
 */
export type ModelPartTypes = { images: readonly string[]; documents: readonly string[] };

/**
 * What one runner config says, read alike at every site that used to ask "is it openai or
 * anthropic?": the model it names, its URLs, its key, its price and limits. Each runner's
 * declaration derives them from its own config, so a site reads a fact, never a runner type.
 */
export type RunnerFacts<Config> = {
  /** The model it calls, when its config names one (else runs, usage and model lists name the runner's type). */
  model?: string | undefined;
  /** Its outbound URL fields as configured: the outbound guard checks each, their own secrets are redacted from its errors. */
  urls: Array<{ field: string; url: string | undefined }>;
  /** The tenant's own key: a secret-store ref (OpenClaw's `apiKey`). */
  apiKey?: StoreSecretRef | undefined;
  /** The name of a deployment key (MODEL_KEY_*) the operator granted (`apiKeySecret`). */
  apiKeySecret?: string | undefined;
  /** Its price (USD per million tokens); absent: usage is counted, not priced. */
  cost?: ModelCost | undefined;
  /** The model's output cap per call. */
  maxTokens?: number | undefined;
  /** Transcript messages handed to it as context (absent: the executor's default). */
  maxContextMessages?: number | undefined;
  /** Its runs are offered the session tools (the tool loop). */
  offersTools: boolean;
  /** The chat files its model is given as parts (absent: none, each file is described). */
  modelParts?: ModelPartTypes | undefined;
  /**
   * A session may pick another model of this runner's endpoint (`sessions.patch` `model`): the
   * endpoint that groups the runners whose models it offers, and this config calling `model`.
   * Absent: the runner has no model to choose.
   */
  sessionModel?: { endpoint: string; withModel(model: string): Config };
};

/** A runner config's zod shape: a strict object told apart by its literal `type`. */
export type RunnerSchema = z.ZodObject<{ type: z.ZodLiteral<string> } & z.ZodRawShape>;

/**
 * A model runner's config half: its `type`, its config schema and the facts read from it. It
 * lives down here so that the pure policies, the ledger, the secrets and the run engine derive
 * from it without importing the engine; `runs/runners/runners.ts` adds the wire format (the
 * `Runner` that builds a request and parses the answer).
 */
export type RunnerDeclaration<S extends RunnerSchema = RunnerSchema> = {
  type: z.infer<S>["type"];
  /** The provider's name as clients show it (`models.authStatus` `displayName`). */
  label: string;
  /** Its config under `agents.*.runner` (a strict object with a literal `type`). */
  schema: S;
  /** Its host may take a run and complete it later by callback, with a run token (a deferred run). */
  callsBack: boolean;
  /** It may serve an ACP harness (`sessions_spawn` with `runtime: "acp"`). */
  acpHarness: boolean;
  facts(config: z.infer<S>): RunnerFacts<z.infer<S>>;
};

export const defineRunnerDeclaration = <S extends RunnerSchema>(declaration: RunnerDeclaration<S>) => declaration;
