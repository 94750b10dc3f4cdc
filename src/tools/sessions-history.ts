import type { z } from "zod";
import { HISTORY_READ_MAX_BYTES } from "../contracts/session-api";
import type { TenantContext } from "../domain/context";
import { parseMessage } from "../model/message-record";
import {
  type sessionsHistoryArgsSchema,
  sessionsHistoryDeclaration,
} from "../protocol/tool-specs/sessions-history-declaration";
import { sanitizeToolHistory } from "../render/sanitize";
import type { Requester } from "./requester";
import { jsonResult, type ToolResult } from "./result";
import { defineTool } from "./tool-spec";
import { visibleTarget } from "./visible-targets";

/** chat.history's own window: default 200, at most 1000 messages. */
const DEFAULT_LIMIT = 200;
const MAX_LIMIT = 1000;

type Args = z.infer<typeof sessionsHistoryArgsSchema>;

/** `sessions_history`: one visible session's transcript, sanitized for a model to read. */
export async function sessionsHistory(
  ctx: TenantContext<"index">,
  requester: Requester,
  args: Args,
): Promise<ToolResult> {
  const target = await visibleTarget(ctx, requester, args.sessionKey, { mustExist: true });
  if ("refusal" in target) return jsonResult(target.refusal);
  const { key, display } = target;

  const limit = Math.min(MAX_LIMIT, Math.max(1, Math.floor(args.limit ?? DEFAULT_LIMIT)));
  const includeTools = args.includeTools === true;
  // A sessionId names one transcript: the current one or one from before a reset.
  const page = await ctx.sessions(key).read({
    direction: "tail",
    limit,
    includeTools,
    maxBytes: HISTORY_READ_MAX_BYTES,
    ...(target.sessionId !== undefined ? { sessionId: target.sessionId } : {}),
  });
  const messages = (page?.messages ?? []).map(parseMessage);
  const sanitized = sanitizeToolHistory(messages, { includeTools });
  return jsonResult({ sessionKey: display, ...sanitized });
}

export const sessionsHistoryTool = defineTool(sessionsHistoryDeclaration, ["index"], sessionsHistory);
