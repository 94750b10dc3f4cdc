import { z } from "zod";
import type { TenantContext } from "../domain/context";
import { portOfRoles } from "../domain/tenant-roles";
import { describeZodError } from "../protocol/describe";
import { availableOverHttp, toolSpec } from "./catalog";
import { type Requester, requesterFor } from "./requester";
import { type ToolCall, ToolInputError, type ToolResult } from "./result";
import type { ToolSpec } from "./tool-spec";

export class ToolNotAvailableError extends Error {
  constructor(name: string) {
    super(`Tool not available: ${name}`);
    this.name = "ToolNotAvailableError";
  }
}

export type InvokeRequest = {
  tool: string;
  args?: unknown;
  action?: string;
  sessionKey?: string;
  /**
   * Makes a repeated call do its work once (the tool loop passes its run and toolCallId):
   * sessions_send starts the same target run, sessions_spawn finds the same child.
   */
  idempotencyKey?: string;
};

/**
 * The one tool entry point: POST /tools/invoke, MCP tools/call and the runs' tool loop all
 * call it. The requester session is a run token's own, else `sessionKey` (default main);
 * args that are not an object are `{}`.
 */
export async function invokeTool(ctx: TenantContext, raw: InvokeRequest): Promise<ToolResult> {
  // OpenClaw trims the tool name before looking it up.
  const request = { ...raw, tool: raw.tool.trim() };
  if (!toolAvailable(ctx, request.tool)) throw new ToolNotAvailableError(request.tool);
  const tool = toolSpec(request.tool)!;
  const args = isPlainObject(request.args) ? { ...request.args } : {};
  tool.screen?.(args);
  // `action` joins the args only for tools that take one and when args lack it.
  if (request.action !== undefined && !("action" in args) && hasActionParam(tool.args)) args.action = request.action;
  const parsed = tool.args.safeParse(args);
  if (!parsed.success) throw new ToolInputError(describeZodError(parsed.error));
  const requester = await requesterFor(ctx, request.sessionKey);
  return runTool(tool, ctx, requester, parsed.data, raw.idempotencyKey ? { idempotencyKey: raw.idempotencyKey } : {});
}

/** A tool's run over a context whose tenant port has the roles the tool declared, and no other. */
export function runTool(
  tool: ToolSpec,
  ctx: TenantContext,
  requester: Requester,
  args: unknown,
  call: ToolCall,
): Promise<ToolResult> | ToolResult {
  return tool.run({ ...ctx, tenant: portOfRoles(ctx.tenant, tool.roles) }, requester, args, call);
}

/** Whether this caller may call `name` over HTTP (what tools/invoke serves and MCP lists). */
export function toolAvailable(ctx: TenantContext<never>, name: string): boolean {
  // The HTTP deny list guards operator tokens; an agent's own calls (run tokens) are its tools.
  if (ctx.principal.kind !== "run") return availableOverHttp(ctx.config, name);
  const tool = toolSpec(name);
  if (!tool || (ctx.config.gateway?.tools?.deny ?? []).includes(name)) return false;
  // A run token without session tools (sub-agents by default) does not see them.
  return ctx.principal.claims.sessionTools || !tool.sessionTool;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasActionParam(schema: z.ZodType): boolean {
  return schema instanceof z.ZodObject && "action" in schema.shape;
}
