import type { TenantConfig } from "../protocol/config";
import { agentsListTool } from "./agents-list";
import { sessionStatusTool } from "./session-status";
import { sessionsHistoryTool } from "./sessions-history";
import { sessionsListTool } from "./sessions-list";
import { sessionsSendTool } from "./sessions-send";
import { sessionsSpawnTool } from "./sessions-spawn";
import { sessionsWaitTool } from "./sessions-wait";
import type { ToolSpec } from "./tool-spec";

/**
 * Every tool this service implements, in the order MCP lists them (the same tools and order
 * as protocol/tool-specs' TOOL_DECLARATIONS, which a unit test holds).
 */
export const TOOL_SPECS: ToolSpec[] = [
  sessionsListTool,
  sessionsHistoryTool,
  sessionStatusTool,
  agentsListTool,
  sessionsSendTool,
  sessionsSpawnTool,
  sessionsWaitTool,
];

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
