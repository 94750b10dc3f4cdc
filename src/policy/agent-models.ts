import { normalizeAgentId } from "../keys/session-key";
import type { RunnerConfig, TenantConfig } from "../protocol/config";
import { runnerDeclarationOf, runnerFacts } from "../protocol/runner-specs/runner-declarations";
import { agentModel, defaultAgentId, findAgent, runnerOf } from "./agent-config";

/**
 * Pure lookups of what clients show about an agent (OpenClaw's agent identity and model
 * catalog), derived from the tenant config: each agent's runner is its model provider
 * (the built-in echo runner is the model `echo/echo`).
 */

/** The context window reported for models whose size this service does not know (tokens). */
export const DEFAULT_CONTEXT_WINDOW_TOKENS = 128_000;

export type ModelRef = { provider: string; model: string };

export type ModelEntry = {
  id: string;
  name: string;
  provider: string;
  contextWindow: number;
  reasoning: false;
  available: true;
};

/** The provider and model an agent's runs use: the runner's own model, else the configured one. */
export function agentModelRef(config: TenantConfig, agentId: string): ModelRef {
  const runner = runnerOf(config, agentId);
  const configured = agentModel(config, agentId);
  return { provider: runner.type, model: runnerFacts(runner).model ?? configured ?? runner.type };
}

/**
 * The runner a session's run uses: a runner that takes a session's choice (`sessionModel` of its
 * declaration: openai) asks for the model the session chose (`sessions.patch` `model`, which the
 * Control UI's model picker sets, as `provider/model` or a bare id) when it is one of that
 * provider's and, when `offered` is given, still one the runner offers; other runners have no
 * model to choose.
 */
export function runnerWithSessionModel(
  runner: RunnerConfig,
  session: { model?: string | undefined; modelProvider?: string | undefined } | null,
  offered?: readonly string[],
): RunnerConfig {
  const choice = runnerFacts(runner).sessionModel;
  if (!choice || !session?.model) return runner;
  const slash = session.model.indexOf("/");
  const provider = slash > 0 ? session.model.slice(0, slash) : session.modelProvider;
  const model = slash > 0 ? session.model.slice(slash + 1) : session.model;
  if ((provider && provider !== runner.type) || !model) return runner;
  if (offered && !offered.includes(model)) return runner;
  return choice.withModel(model);
}

/**
 * The models a session of `agentId` can run with: its runner's own model and, for a runner that
 * sends a session's choice (openai), the models the tenant's other runners of its type at the
 * same endpoint are configured with. What the model picker offers for the agent.
 */
export function agentModels(config: TenantConfig, agentId: string): ModelEntry[] {
  const runner = runnerOf(config, agentId);
  const own = agentModelRef(config, agentId);
  const endpoint = runnerFacts(runner).sessionModel?.endpoint;
  const sameEndpoint = (other: RunnerConfig) =>
    endpoint !== undefined && other.type === runner.type && runnerFacts(other).sessionModel?.endpoint === endpoint;
  const refs = [
    own,
    ...agentIds(config)
      .filter((id) => sameEndpoint(runnerOf(config, id)))
      .map((id) => agentModelRef(config, id)),
  ];
  return distinctEntries(refs);
}

/**
 * Why a session of `agentId` cannot use `model`, in OpenClaw's words (`invalid model: …`,
 * `model not allowed: provider/model`), or null when its runner offers it. A bare id is the
 * runner's provider's.
 */
export function modelProblem(config: TenantConfig, agentId: string, model: string): string | null {
  const trimmed = model.trim();
  if (!trimmed) return "invalid model: empty";
  const slash = trimmed.indexOf("/");
  const provider = slash > 0 ? trimmed.slice(0, slash) : runnerOf(config, agentId).type;
  const id = slash >= 0 ? trimmed.slice(slash + 1) : trimmed;
  if (slash === 0 || !id.trim()) return `invalid model: ${trimmed}`;
  const offered = agentModels(config, agentId).some((entry) => entry.provider === provider && entry.id === id);
  return offered ? null : `model not allowed: ${provider}/${id}`;
}

/** `provider/model`, OpenClaw's `model.primary`. */
export const primaryModel = (ref: ModelRef) => `${ref.provider}/${ref.model}`;

/** The agents clients list: the configured ones, or the default agent alone. */
export function agentIds(config: TenantConfig): string[] {
  const list = config.agents?.list;
  return list && list.length > 0 ? list.map((agent) => normalizeAgentId(agent.id)) : [defaultAgentId(config)];
}

/** OpenClaw's `agent.identity.get`: the configured name (else "Assistant") and its initial as avatar. */
export function agentIdentity(config: TenantConfig, agentId: string) {
  const id = normalizeAgentId(agentId);
  const configured = findAgent(config, id)?.name;
  const name = configured ?? "Assistant";
  return { agentId: id, name, nameSource: configured ? "config" : "default", avatar: initial(name) };
}

function initial(name: string): string {
  return (name.trim()[0] ?? "A").toUpperCase();
}

/** The models the tenant's runners offer, one entry per distinct provider/model. */
export function tenantModels(config: TenantConfig): ModelEntry[] {
  return distinctEntries(agentIds(config).map((agentId) => agentModelRef(config, agentId)));
}

function distinctEntries(refs: ModelRef[]): ModelEntry[] {
  const seen = new Map<string, ModelEntry>();
  for (const ref of refs) {
    const key = primaryModel(ref);
    if (!seen.has(key)) {
      seen.set(key, {
        id: ref.model,
        name: ref.model,
        provider: ref.provider,
        contextWindow: DEFAULT_CONTEXT_WINDOW_TOKENS,
        reasoning: false,
        available: true,
      });
    }
  }
  return [...seen.values()];
}

type RunnerCredential = {
  provider: string;
  authProvider: string;
  displayName: string;
  status: "static";
  profiles: [];
  /** OpenClaw's key source: the config (a secret-store ref) or a deployment secret (`envVar`). */
  apiKey: { source: "config" } | { source: "env"; envVar: string };
};

/**
 * OpenClaw's `models.authStatus` providers for the runners of `agentIdsAsked`: a runner
 * configured with an API key is its provider's static API-key credential, from the config
 * (`apiKey`, a secret-store ref) or the deployment (`apiKeySecret`, a worker secret named like
 * an environment variable); runners that take none (echo, webhook, a keyless endpoint) list nothing.
 */
export function runnerCredentials(config: TenantConfig, agentIdsAsked: string[]): RunnerCredential[] {
  const providers = new Map<string, RunnerCredential>();
  for (const agentId of agentIdsAsked) {
    const runner = runnerOf(config, agentId);
    const facts = runnerFacts(runner);
    const apiKey = facts.apiKey
      ? { source: "config" as const }
      : facts.apiKeySecret
        ? { source: "env" as const, envVar: facts.apiKeySecret }
        : null;
    if (!apiKey || providers.has(runner.type)) continue;
    const displayName = runnerDeclarationOf(runner)?.label ?? runner.type;
    providers.set(runner.type, {
      provider: runner.type,
      authProvider: runner.type,
      displayName,
      status: "static",
      profiles: [],
      apiKey,
    });
  }
  return [...providers.values()];
}
