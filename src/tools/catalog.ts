import type { z } from "zod";
import type { TenantContext } from "../domain/context";
import type { TenantConfig } from "../protocol/config";
import {
  agentsListArgsSchema,
  sessionStatusArgsSchema,
  sessionsHistoryArgsSchema,
  sessionsListArgsSchema,
  sessionsSendArgsSchema,
  sessionsSpawnArgsSchema,
  sessionsWaitArgsSchema,
} from "../protocol/tools";
import { agentsList } from "./agents-list";
import type { Requester } from "./requester";
import type { ToolCall, ToolResult } from "./result";
import { sessionStatus } from "./session-status";
import { sessionsHistory } from "./sessions-history";
import { sessionsList } from "./sessions-list";
import { sessionsSend } from "./sessions-send";
import { sessionsSpawn } from "./sessions-spawn";
import { sessionsWait } from "./sessions-wait";

/** Every tool this service implements, with its argument schema. */
type ToolDefinition<S extends z.ZodType> = {
  schema: S;
  run(ctx: TenantContext, requester: Requester, args: z.infer<S>, call: ToolCall): Promise<ToolResult> | ToolResult;
};

const define = <S extends z.ZodType>(tool: ToolDefinition<S>) => tool as ToolDefinition<z.ZodType>;

export const TOOLS: Record<string, ToolDefinition<z.ZodType>> = {
  sessions_list: define({ schema: sessionsListArgsSchema, run: sessionsList }),
  sessions_history: define({ schema: sessionsHistoryArgsSchema, run: sessionsHistory }),
  session_status: define({ schema: sessionStatusArgsSchema, run: sessionStatus }),
  agents_list: define({ schema: agentsListArgsSchema, run: agentsList }),
  sessions_send: define({ schema: sessionsSendArgsSchema, run: sessionsSend }),
  sessions_spawn: define({ schema: sessionsSpawnArgsSchema, run: sessionsSpawn }),
  sessions_wait: define({ schema: sessionsWaitArgsSchema, run: sessionsWait }),
};

/** Session tools: sub-agents do not get them by default. */
export const SESSION_TOOLS = ["sessions_list", "sessions_history", "sessions_send", "sessions_wait"];

/** Tools OpenClaw never serves over HTTP unless `gateway.tools.allow` lists them. */
export const HTTP_DENIED_TOOLS = [
  "exec",
  "spawn",
  "shell",
  "fs_write",
  "fs_delete",
  "fs_move",
  "apply_patch",
  "sessions_spawn",
  "sessions_send",
  "cron",
  "gateway",
  "nodes",
  "whatsapp_login",
];

/** OpenClaw's HTTP tool policy: the default deny list, minus `gateway.tools.allow`, plus `gateway.tools.deny`. */
export function availableOverHttp(config: TenantConfig, name: string): boolean {
  // Own keys only: `name in TOOLS` would accept "valueOf", "constructor", "__proto__"…
  if (!Object.hasOwn(TOOLS, name)) return false;
  const allow = config.gateway?.tools?.allow ?? [];
  const deny = config.gateway?.tools?.deny ?? [];
  if (deny.includes(name)) return false;
  return !HTTP_DENIED_TOOLS.includes(name) || allow.includes(name);
}
