import type { z } from "zod";
import type { TenantContext } from "../domain/context";
import { parseMessage } from "../model/message-record";
import { type sessionsWaitArgsSchema, sessionsWaitDeclaration } from "../protocol/tool-specs/sessions-wait-declaration";
import { sanitizeToolHistory } from "../render/sanitize";
import type { Requester } from "./requester";
import { jsonResult, type ToolResult } from "./result";
import { defineTool } from "./tool-spec";
import { visibleTarget } from "./visible-targets";

/** `openclaw mcp serve`'s events_wait bounds: 30 s by default, at most 300 s. */
export const SESSIONS_WAIT_DEFAULT_TIMEOUT_SECONDS = 30;
export const SESSIONS_WAIT_MAX_TIMEOUT_SECONDS = 300;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;
/** Raw transcript bytes read per call (under sessions_history's 80 KiB cap, so no message is dropped). */
const PAGE_MAX_BYTES = 64 * 1024;

type Args = z.infer<typeof sessionsWaitArgsSchema>;

/**
 * `sessions_wait`: the messages of a visible session after `afterSeq`, waiting up to
 * `timeoutSeconds` for one to arrive. Pass `nextAfterSeq` back to follow the session.
 * It follows the session's current transcript (after a reset seqs start again at 1).
 */
export async function sessionsWait(ctx: TenantContext<"index">, requester: Requester, args: Args): Promise<ToolResult> {
  const target = await visibleTarget(ctx, requester, args.sessionKey);
  if ("refusal" in target) return jsonResult(target.refusal);
  const { key, display } = target;

  const afterSeq = Math.max(0, Math.floor(args.afterSeq ?? 0));
  const limit = Math.min(MAX_LIMIT, Math.max(1, Math.floor(args.limit ?? DEFAULT_LIMIT)));
  const timeoutSeconds = Math.min(
    SESSIONS_WAIT_MAX_TIMEOUT_SECONDS,
    Math.max(0, args.timeoutSeconds ?? SESSIONS_WAIT_DEFAULT_TIMEOUT_SECONDS),
  );
  let stub = ctx.sessions(key);
  let state = await Promise.resolve(stub.waitForMessages(afterSeq, Math.round(timeoutSeconds * 1000))).catch(
    () => null,
  );
  if (!state) {
    // An object reset during the wait (a deploy, an eviction) cut it short: answer with what is
    // there now, through a new stub (the stub of a reset object stays broken).
    stub = ctx.sessions(key);
    state = await stub.waitForMessages(afterSeq, 0);
  }
  const timedOut = state.lastSeq <= afterSeq;
  // Tool results are read too, so a page of only tool results still moves nextAfterSeq on.
  const page = timedOut
    ? null
    : await stub.read({
        direction: "forward",
        cursorSeq: afterSeq,
        limit,
        includeTools: true,
        maxBytes: PAGE_MAX_BYTES,
      });
  const records = page?.messages ?? [];
  const messages = records.map(parseMessage);
  const sanitized = sanitizeToolHistory(messages, { includeTools: args.includeTools === true });
  return jsonResult({
    sessionKey: display,
    ...(state.sessionId ? { sessionId: state.sessionId } : {}),
    afterSeq,
    nextAfterSeq: records.at(-1)?.seq ?? afterSeq,
    lastSeq: state.lastSeq,
    hasMore: page?.hasMore ?? false,
    timedOut,
    messages: sanitized.messages,
    ...(sanitized.contentTruncated ? { contentTruncated: true } : {}),
    ...(sanitized.contentRedacted ? { contentRedacted: true } : {}),
  });
}

export const sessionsWaitTool = defineTool(sessionsWaitDeclaration, ["index"], sessionsWait);
