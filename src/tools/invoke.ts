import { z } from "zod";
import type { TenantContext } from "../domain/context";
import { describeZodError } from "../protocol/describe";
import { availableOverHttp, SESSION_TOOLS, TOOLS } from "./catalog";
import { requesterFor } from "./requester";
import { ToolInputError, type ToolResult } from "./result";
import { assertNoRoutingParams } from "./sessions-spawn";

export class ToolNotAvailableError extends Error {
  constructor(name: string) {
    super(`Tool not available: ${name}`);
    this.name = "ToolNotAvailableError";
  }
}

export type InvokeRequest = { tool: string; args?: unknown; action?: string; sessionKey?: string };

/**
 * Runs one tool as an operator-token caller over HTTP (OpenClaw's POST /tools/invoke):
 * the requester session is `sessionKey` (default main); args that are not an object are `{}`.
 */
export async function invokeToolOverHttp(ctx: TenantContext, raw: InvokeRequest): Promise<ToolResult> {
  // OpenClaw trims the tool name before looking it up.
  const request = { ...raw, tool: raw.tool.trim() };
  // The HTTP deny list guards operator tokens; an agent's own calls (run tokens) are its tools.
  const available =
    ctx.principal.kind === "run"
      ? Object.hasOwn(TOOLS, request.tool) && !(ctx.config.gateway?.tools?.deny ?? []).includes(request.tool)
      : availableOverHttp(ctx.config, request.tool);
  if (!available) throw new ToolNotAvailableError(request.tool);
  // A run token without session tools (sub-agents by default) does not see them.
  if (ctx.principal.kind === "run" && !ctx.principal.claims.sessionTools && SESSION_TOOLS.includes(request.tool)) {
    throw new ToolNotAvailableError(request.tool);
  }
  const tool = TOOLS[request.tool]!;
  const args = isPlainObject(request.args) ? { ...request.args } : {};
  if (request.tool === "sessions_spawn") assertNoRoutingParams(args);
  // `action` joins the args only for tools that take one and when args lack it.
  if (request.action !== undefined && !("action" in args) && hasActionParam(tool.schema)) args.action = request.action;
  const parsed = tool.schema.safeParse(args);
  if (!parsed.success) throw new ToolInputError(describeZodError(parsed.error));
  const requester = await requesterFor(ctx, request.sessionKey);
  return tool.run(ctx, requester, parsed.data);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasActionParam(schema: z.ZodType): boolean {
  return schema instanceof z.ZodObject && "action" in schema.shape;
}
