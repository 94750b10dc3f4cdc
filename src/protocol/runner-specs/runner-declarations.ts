import { z } from "zod";
import { anthropicDeclaration } from "./anthropic-declaration";
import { echoDeclaration } from "./echo-declaration";
import { openaiDeclaration } from "./openai-declaration";
import type { RunnerDeclaration, RunnerFacts } from "./runner-declaration";
import { webhookDeclaration } from "./webhook-declaration";

/**
 * The runners this service serves: the one list the config schema and every per-runner fact
 * derive from (a new runner is its declaration here and its wire format in
 * `runs/runners/runners.ts`, which the compiler then requires).
 */
export const RUNNER_DECLARATIONS = [
  echoDeclaration,
  openaiDeclaration,
  anthropicDeclaration,
  webhookDeclaration,
] as const;

type Declarations = typeof RUNNER_DECLARATIONS;
/** The list's schemas as the tuple zod's discriminated union takes. */
type SchemasOf<T extends readonly unknown[]> = {
  -readonly [K in keyof T]: T[K] extends { schema: infer S } ? S : never;
};
type RunnerSchemas = SchemasOf<Declarations>;

const runnerVariants = z.discriminatedUnion(
  "type",
  RUNNER_DECLARATIONS.map((declaration) => declaration.schema) as unknown as RunnerSchemas,
);

export type RunnerConfig = z.infer<typeof runnerVariants>;
export type RunnerType = RunnerConfig["type"];

/** How an agent's replies are produced (this service's extension, see docs/runs.md, agent runs). */
export const runnerConfigSchema = runnerVariants.superRefine((runner, ctx) => {
  const facts = runnerFacts(runner);
  if (facts.apiKey && facts.apiKeySecret) {
    ctx.addIssue({ code: "custom", path: ["apiKey"], message: "set apiKey or apiKeySecret, not both" });
  }
});

/** The runner types, in the list's order (what a run's `runner` may be, besides a fixed reply). */
export const RUNNER_TYPES = RUNNER_DECLARATIONS.map((declaration) => declaration.type) as RunnerType[];

const BY_TYPE = new Map<string, RunnerDeclaration>(
  RUNNER_DECLARATIONS.map((declaration) => [declaration.type, declaration as unknown as RunnerDeclaration]),
);

/**
 * The declaration of a config's runner. Every config the schema accepts has one; undefined only
 * for a stored record of a type this release no longer serves.
 */
export function runnerDeclarationOf(config: RunnerConfig): RunnerDeclaration | undefined {
  return BY_TYPE.get(config.type);
}

/** A runner no declaration knows says nothing: no model, URL, key or price, no tools. */
const NO_FACTS: RunnerFacts<RunnerConfig> = { urls: [], offersTools: false };

/** What a runner config says (model, URLs, key, price, limits), read through its own declaration. */
export function runnerFacts(config: RunnerConfig): RunnerFacts<RunnerConfig> {
  return (runnerDeclarationOf(config)?.facts(config) as RunnerFacts<RunnerConfig> | undefined) ?? NO_FACTS;
}
