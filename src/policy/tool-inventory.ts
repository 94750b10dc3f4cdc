import type { TenantConfig } from "../protocol/config";
import {
  MODEL_OFFERED_DECLARATIONS,
  type ToolSection,
  toolDeclaration,
} from "../protocol/tool-specs/tool-declarations";
import { findAgent } from "./agent-config";
import { type OfferSubject, offeredTools } from "./tool-offer";

/**
 * What OpenClaw's `tools.catalog` and `tools.effective` answer, for this service's tools (pure):
 * the catalog is the session tools a model can be offered here, in OpenClaw's sections and
 * with its profile membership (so the Control UI's "n/m enabled" counts these), and the
 * effective inventory is exactly the offer a run's model gets (policy/tool-offer.ts).
 */

/** OpenClaw's core tool sections that hold them (tool-catalog.ts), in its order. */
const SECTIONS: readonly { id: ToolSection; label: string }[] = [
  { id: "sessions", label: "Sessions" },
  { id: "agents", label: "Agents" },
];

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
      tools: MODEL_OFFERED_DECLARATIONS.filter((tool) => tool.model.section === section.id).map((tool) => ({
        id: tool.name,
        label: tool.name,
        description: tool.model.summary,
        source: "core",
        defaultProfiles: tool.model.profiles,
      })),
    })),
  };
}

/** `tools.effective`: the tools a run of this session's model is offered, as OpenClaw's inventory. */
export function toolsEffective(config: TenantConfig, subject: OfferSubject) {
  const tools = offeredTools(config, subject)
    .map((id) => {
      const tool = toolDeclaration(id)!;
      const description = tool.model!.summary;
      return { id, label: tool.label, description, rawDescription: description, source: "core" };
    })
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
