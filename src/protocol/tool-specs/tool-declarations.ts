import { agentsListDeclaration } from "./agents-list-declaration";
import type { ToolDeclaration } from "./declaration";
import { sessionStatusDeclaration } from "./session-status-declaration";
import { sessionsHistoryDeclaration } from "./sessions-history-declaration";
import { sessionsListDeclaration } from "./sessions-list-declaration";
import { sessionsSendDeclaration } from "./sessions-send-declaration";
import { sessionsSpawnDeclaration } from "./sessions-spawn-declaration";
import { sessionsWaitDeclaration } from "./sessions-wait-declaration";

export type { ModelOffer, ToolDeclaration, ToolSection } from "./declaration";

/**
 * Every session tool this service has, in the order MCP lists them: the one list of tools.
 * tools/catalog.ts pairs each with its run by name (TOOL_SPECS, in this order; the compiler
 * refuses a tool without its run); the pure policies and renderers read this list.
 */
const DECLARATIONS = [
  sessionsListDeclaration,
  sessionsHistoryDeclaration,
  sessionStatusDeclaration,
  agentsListDeclaration,
  sessionsSendDeclaration,
  sessionsSpawnDeclaration,
  sessionsWaitDeclaration,
] as const;
export const TOOL_DECLARATIONS: readonly ToolDeclaration[] = DECLARATIONS;

/** The name of a tool of this service. */
export type ToolName = (typeof DECLARATIONS)[number]["name"];

/** The tools a model can be offered, in OpenClaw's order. */
export const MODEL_OFFERED_DECLARATIONS = TOOL_DECLARATIONS.filter(
  (tool): tool is ToolDeclaration & { model: NonNullable<ToolDeclaration["model"]> } => tool.model !== undefined,
).sort((a, b) => a.model.rank - b.model.rank);

const BY_NAME = new Map(TOOL_DECLARATIONS.map((tool) => [tool.name, tool]));

/** The declaration of a tool of this service (own names only: no "constructor" or "__proto__"). */
export function toolDeclaration(name: string): ToolDeclaration | undefined {
  return BY_NAME.get(name);
}
