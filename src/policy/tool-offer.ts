import type { TenantConfig, ToolPolicyConfig } from "../protocol/config";
import { MODEL_OFFERED_DECLARATIONS, type ModelOffer } from "../protocol/tool-specs/tool-declarations";
import { findAgent } from "./agent-config";

/**
 * Which session tools a model running in a session is offered (pure). The rules are
 * OpenClaw's: the tool profile, `tools.allow`/`deny` (tenant, then agent), the sub-agent
 * policy (a child loses some tools always and the orchestration ones at the spawn depth cap,
 * as each declaration's `model.subagentRemoved` says; `tools.subagents.tools` narrows
 * further), and `gateway.tools.deny`, which binds run tokens too. Profiles and groups come
 * from the declarations too. A tool not offered is "not found" for the model, exactly like
 * an unknown one.
 */

/** The session tools a model can be offered, in OpenClaw's order (their declarations say how). */
export const MODEL_TOOLS: readonly string[] = MODEL_OFFERED_DECLARATIONS.map((tool) => tool.name);

const namesWhere = (keep: (offer: ModelOffer) => boolean) =>
  MODEL_OFFERED_DECLARATIONS.filter((tool) => keep(tool.model)).map((tool) => tool.name);

/** Removed for every sub-agent (OpenClaw's depth-1 child surface, recorded). */
const SUBAGENT_REMOVED = namesWhere((offer) => offer.subagentRemoved === "always");
/** Also removed for a child at the spawn depth cap (a leaf cannot orchestrate). */
const LEAF_REMOVED = namesWhere((offer) => offer.subagentRemoved === "at-depth-cap");

/** The tools of a profile (OpenClaw's tool-catalog `profiles`); `full` has all of them. */
function profileTools(profile: NonNullable<ToolPolicyConfig["profile"]>): readonly string[] | null {
  return profile === "full" ? null : namesWhere((offer) => offer.profiles.includes(profile));
}

/** The tools in an OpenClaw tool group (`group:openclaw` has all of them). */
function groupTools(group: string): readonly string[] {
  return group === "group:openclaw" ? MODEL_TOOLS : namesWhere((offer) => offer.groups.includes(group));
}

export type OfferSubject = {
  agentId: string;
  /** 0 for a top-level session; a sub-agent's depth otherwise. */
  spawnDepth: number;
};

export function offeredTools(config: TenantConfig, subject: OfferSubject): string[] {
  const agentTools = findAgent(config, subject.agentId)?.tools;
  const policies: ToolPolicyConfig[] = [
    { ...(config.tools?.profile ? { profile: config.tools.profile } : {}), ...pick(config.tools) },
    config.agents?.defaults?.tools ?? {},
    agentTools ?? {},
  ];
  const maxDepth = config.agents?.defaults?.subagents?.maxSpawnDepth ?? 1;
  const removed = new Set<string>(config.gateway?.tools?.deny ?? []);
  if (subject.spawnDepth > 0) {
    for (const name of SUBAGENT_REMOVED) removed.add(name);
    if (subject.spawnDepth >= maxDepth) for (const name of LEAF_REMOVED) removed.add(name);
    const subagentPolicy = config.tools?.subagents?.tools;
    if (subagentPolicy) policies.push(subagentPolicy);
  }
  // The most specific profile applies (agent over defaults over tenant).
  const profile = policies.reduce<ToolPolicyConfig["profile"]>((chosen, policy) => policy.profile ?? chosen, undefined);
  const inProfile = profile ? profileTools(profile) : null;
  return MODEL_TOOLS.filter((name) => {
    if (removed.has(name)) return false;
    if (inProfile && !inProfile.includes(name)) return false;
    return policies.every((policy) => permits(policy, name));
  });
}

/** A policy's allow list (when it has one) must name the tool; its deny list must not. */
function permits(policy: ToolPolicyConfig, name: string): boolean {
  if (policy.deny?.some((entry) => matches(entry, name))) return false;
  if (policy.allow && policy.allow.length > 0) return policy.allow.some((entry) => matches(entry, name));
  return true;
}

function matches(entry: string, name: string): boolean {
  const normalized = entry.trim().toLowerCase();
  return normalized === "*" || normalized === name || groupTools(normalized).includes(name);
}

function pick(tools: TenantConfig["tools"]): ToolPolicyConfig {
  return {
    ...(tools?.allow ? { allow: tools.allow } : {}),
    ...(tools?.deny ? { deny: tools.deny } : {}),
  };
}
