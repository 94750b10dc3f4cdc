import type { RunnerConfig, RunnerType } from "../../protocol/runner-specs/runner-declarations";
import { anthropicRunner } from "./anthropic";
import { echoRunner } from "./echo";
import { openaiRunner } from "./openai";
import type { Runner, RunnerPorts } from "./runner";
import { webhookRunner, webhookSigningSecret } from "./webhook";

type MakeRunner<T extends RunnerType> = (config: Extract<RunnerConfig, { type: T }>, ports: RunnerPorts) => Runner;

/**
 * Each runner type's wire format (how a run's request is built and its answer parsed), beside
 * its declaration in protocol/runner-specs/: a runner type without an entry here does not compile.
 */
export const RUNNERS: { [T in RunnerType]: MakeRunner<T> } = {
  echo: () => echoRunner,
  openai: () => openaiRunner,
  anthropic: () => anthropicRunner,
  webhook: (config, ports) => webhookRunner(webhookSigningSecret(config, ports)),
};

/** The runner of a config, made for one attempt. */
export function runnerFor(config: RunnerConfig, ports: RunnerPorts): Runner {
  // The table is keyed by type, so the entry takes this config's own variant.
  const make = RUNNERS[config.type] as (config: RunnerConfig, ports: RunnerPorts) => Runner;
  return make(config, ports);
}
