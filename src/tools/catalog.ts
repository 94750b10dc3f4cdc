import type { TenantConfig } from "../protocol/config";
import { TOOL_DECLARATIONS, type ToolName } from "../protocol/tool-specs/tool-declarations";
import { agentsListTool } from "./agents-list";
import { sessionStatusTool } from "./session-status";
import { sessionsHistoryTool } from "./sessions-history";
import { sessionsListTool } from "./sessions-list";
import { sessionsSendTool } from "./sessions-send";
import { sessionsSpawnTool } from "./sessions-spawn";
import { sessionsWaitTool } from "./sessions-wait";
import type { ToolSpec } from "./tool-spec";

/**
 * Each declared tool's spec by its name: a tool in TOOL_DECLARATIONS without its spec here (or
 * a spec under another tool's name) fails typecheck, so the list of tools is written once.
 */
const SPEC_OF: { readonly [Name in ToolName]: ToolSpec & { name: Name } } = {
  sessions_list: sessionsListTool,
  sessions_history: sessionsHistoryTool,
  session_status: sessionStatusTool,
  agents_list: agentsListTool,
  sessions_send: sessionsSendTool,
  sessions_spawn: sessionsSpawnTool,
  sessions_wait: sessionsWaitTool,
};

/**
 * Every tool this service implements, in the order MCP lists them (TOOL_DECLARATIONS'): what
 * every door reads (/tools/invoke, MCP, a run's tool loop, the OpenAPI document).
 */
export const TOOL_SPECS: readonly ToolSpec[] = TOOL_DECLARATIONS.map(
  (declaration) => SPEC_OF[declaration.name as ToolName],
);

const BY_NAME = new Map(TOOL_SPECS.map((tool) => [tool.name, tool]));

/** The tool of this name (own names only: "valueOf", "constructor", "__proto__"… are none). */
export function toolSpec(name: string): ToolSpec | undefined {
  return BY_NAME.get(name);
}

/** OpenClaw's HTTP tool policy: the default deny list, minus `gateway.tools.allow`, plus `gateway.tools.deny`. */
export function availableOverHttp(config: TenantConfig, name: string): boolean {
  const tool = toolSpec(name);
  if (!tool) return false;
  const allow = config.gateway?.tools?.allow ?? [];
  const deny = config.gateway?.tools?.deny ?? [];
  if (deny.includes(name)) return false;
  return !tool.httpDenied || allow.includes(name);
}
