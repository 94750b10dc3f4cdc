import type { TenantConfig, ToolPolicyConfig } from "../protocol/config";
import { findAgent } from "./agents";

/**
 * Which session tools a model running in a session is offered (pure). The rules are
 * OpenClaw's: the tool profile, `tools.allow`/`deny` (tenant, then agent), the sub-agent
 * policy (a child loses sessions_send, session_status and agents_list; at the spawn depth
 * cap also sessions_list, sessions_history and sessions_spawn; `tools.subagents.tools`
 * narrows further), and `gateway.tools.deny`, which binds run tokens too. A tool not offered
 * is "not found" for the model, exactly like an unknown one.
 */

/** The six session tools a model can be offered, in OpenClaw's order. */
export const MODEL_TOOLS = [
  "sessions_list",
  "sessions_history",
  "sessions_send",
  "sessions_spawn",
  "session_status",
  "agents_list",
] as const;

/** Removed for every sub-agent (OpenClaw's depth-1 child surface, recorded). */
const SUBAGENT_REMOVED = ["sessions_send", "session_status", "agents_list"];
/** Also removed for a child at the spawn depth cap (a leaf cannot orchestrate). */
const LEAF_REMOVED = ["sessions_list", "sessions_history", "sessions_spawn"];

/** OpenClaw's profiles, as far as the six tools go (tool-catalog `profiles`). */
const PROFILE_TOOLS: Record<NonNullable<ToolPolicyConfig["profile"]>, readonly string[] | null> = {
  minimal: ["session_status"],
  coding: ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "session_status"],
  messaging: ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "session_status"],
  full: null,
};

/** OpenClaw's tool groups that name any of the six. */
const GROUPS: Record<string, readonly string[]> = {
  "group:sessions": ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "session_status"],
  "group:agents": ["agents_list"],
  "group:openclaw": MODEL_TOOLS,
};

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
  const profileTools = profile ? PROFILE_TOOLS[profile] : null;
  return MODEL_TOOLS.filter((name) => {
    if (removed.has(name)) return false;
    if (profileTools && !profileTools.includes(name)) return false;
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
  return normalized === "*" || normalized === name || (GROUPS[normalized]?.includes(name) ?? false);
}

function pick(tools: TenantConfig["tools"]): ToolPolicyConfig {
  return {
    ...(tools?.allow ? { allow: tools.allow } : {}),
    ...(tools?.deny ? { deny: tools.deny } : {}),
  };
}
