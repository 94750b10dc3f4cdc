import type { z } from "zod";
import type { TenantContext } from "../domain/context";
import { patchSession } from "../domain/session-index";
import { toDisplayKey } from "../keys/session-key";
import { agentModel } from "../policy/agent-config";
import type { SessionEntry } from "../protocol/session";
import {
  type sessionStatusArgsSchema,
  sessionStatusDeclaration,
} from "../protocol/tool-specs/session-status-declaration";
import type { Requester } from "./requester";
import { jsonResult, ToolInputError, type ToolResult } from "./result";
import { defineTool } from "./tool-spec";
import { accessPolicy, checkTarget, resolveReference } from "./visible-targets";

type Args = z.infer<typeof sessionStatusArgsSchema>;

/** `session_status`: a status card for a visible session; `model` sets (or `default` clears) its override. */
export async function sessionStatus(
  ctx: TenantContext<"index">,
  requester: Requester,
  args: Args,
): Promise<ToolResult> {
  const policy = accessPolicy(ctx, requester);
  const resolved = await resolveReference(ctx, requester, policy, args.sessionKey ?? "current");
  // session_status throws its errors as tool errors (unlike the other session tools).
  if (!("key" in resolved)) throw new ToolInputError(resolved.error);
  const denied = await checkTarget(ctx, requester, policy, resolved.key, "status");
  if (denied) throw new ToolInputError(denied.error);

  let entry = await ctx.sessions(resolved.key).entry();
  if (!entry && resolved.key !== requester.key) throw new ToolInputError(`Unknown sessionKey: ${args.sessionKey}`);
  let changedModel = false;
  if (args.model !== undefined) {
    const model = args.model.toLowerCase() === "default" ? null : args.model;
    entry = (await patchSession(ctx, resolved.key, { model })).entry;
    changedModel = true;
  }
  const sessionKey = toDisplayKey(resolved.key, ctx.config.session, requester.agentId);
  const statusText = statusCard(resolved.key, entry, agentModel(ctx.config, requester.agentId));
  return {
    ...jsonResult({ ok: true, sessionKey, changedModel, statusText }),
    content: [{ type: "text", text: statusText }],
  };
}

function statusCard(key: string, entry: SessionEntry | null, fallbackModel: string | undefined): string {
  const lines = [`🧵 Session: ${key}`];
  if (!entry) return [...lines, "No activity yet."].join("\n");
  lines.push(`🆔 Session id: ${entry.sessionId}`);
  lines.push(`🧠 Model: ${entry.model ?? fallbackModel ?? "default"}`);
  lines.push(`💬 Messages: ${entry.messageCount}`);
  lines.push(
    `🔢 Tokens: ${entry.inputTokens ?? 0} in / ${entry.outputTokens ?? 0} out (total ${entry.totalTokens ?? 0})`,
  );
  if (entry.status) lines.push(`📍 Status: ${entry.status}`);
  if (entry.sendPolicy) lines.push(`📮 Send policy: ${entry.sendPolicy}`);
  lines.push(`🕒 Updated: ${new Date(entry.updatedAt).toISOString()}`);
  return lines.join("\n");
}

export const sessionStatusTool = defineTool(sessionStatusDeclaration, ["index"], sessionStatus);
