import type { TenantConfig } from "../protocol/config";
import { findAgent } from "./agents";
import { type MODEL_TOOLS, type OfferSubject, offeredTools } from "./tool-offer";

/**
 * What OpenClaw's `tools.catalog` and `tools.effective` answer, for this service's tools (pure):
 * the catalog is the six session tools a model can be offered here, in OpenClaw's sections and
 * with its profile membership (so the Control UI's "n/m enabled" counts these), and the
 * effective inventory is exactly the offer a run's model gets (policy/tool-offer.ts).
 */

/** OpenClaw's core tool sections that hold the six (tool-catalog.ts), in its order. */
const SECTIONS = [
  {
    id: "sessions",
    label: "Sessions",
    tools: ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "session_status"],
  },
  { id: "agents", label: "Agents", tools: ["agents_list"] },
] as const;

/** OpenClaw's catalog descriptions (its tool display summaries). */
const DESCRIPTIONS: Record<(typeof MODEL_TOOLS)[number], string> = {
  sessions_list: "List visible sessions; filters/previews.",
  sessions_history: "Read sanitized session history.",
  sessions_send: "Run same-Gateway session/agent.",
  sessions_spawn: "Spawn hidden subagent (ephemeral) or visible work session (durable).",
  session_status: "Show session status/model/usage.",
  agents_list: "List agents",
};

/** OpenClaw's display titles (tool-display), the labels of its effective inventory. */
const LABELS: Record<(typeof MODEL_TOOLS)[number], string> = {
  sessions_list: "Sessions",
  sessions_history: "Session History",
  sessions_send: "Session Send",
  sessions_spawn: "Sub-agent",
  session_status: "Session Status",
  agents_list: "Agents",
};

/** The built-in profiles each tool belongs to (OpenClaw's `profiles`; agents_list is in none). */
const DEFAULT_PROFILES: Record<(typeof MODEL_TOOLS)[number], string[]> = {
  sessions_list: ["coding", "messaging"],
  sessions_history: ["coding", "messaging"],
  sessions_send: ["coding", "messaging"],
  sessions_spawn: ["coding", "messaging"],
  session_status: ["minimal", "coding", "messaging"],
  agents_list: [],
};

const PROFILES = [
  { id: "minimal", label: "Minimal" },
  { id: "coding", label: "Coding" },
  { id: "messaging", label: "Messaging" },
  { id: "full", label: "Full" },
];

/** `tools.catalog`: every tool a model can be offered here (no plugins: the service has none). */
export function toolsCatalog(agentId: string) {
  return {
    agentId,
    profiles: PROFILES,
    groups: SECTIONS.map((section) => ({
      id: section.id,
      label: section.label,
      source: "core",
      tools: section.tools.map((id) => ({
        id,
        label: id,
        description: DESCRIPTIONS[id],
        source: "core",
        defaultProfiles: DEFAULT_PROFILES[id],
      })),
    })),
  };
}

/** `tools.effective`: the tools a run of this session's model is offered, as OpenClaw's inventory. */
export function toolsEffective(config: TenantConfig, subject: OfferSubject) {
  const offered = offeredTools(config, subject) as (typeof MODEL_TOOLS)[number][];
  const tools = offered
    .map((id) => ({
      id,
      label: LABELS[id],
      description: DESCRIPTIONS[id],
      rawDescription: DESCRIPTIONS[id],
      source: "core",
    }))
    .sort((a, b) => a.label.localeCompare(b.label));
  return {
    agentId: subject.agentId,
    profile: effectiveProfile(config, subject.agentId),
    groups: tools.length > 0 ? [{ id: "core", label: "Built-in tools", source: "core", tools }] : [],
  };
}

/** The profile in force: the agent's, else the defaults', else the tenant's, else "full". */
function effectiveProfile(config: TenantConfig, agentId: string): string {
  return (
    findAgent(config, agentId)?.tools?.profile ??
    config.agents?.defaults?.tools?.profile ??
    config.tools?.profile ??
    "full"
  );
}
