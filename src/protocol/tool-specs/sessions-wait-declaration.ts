import { z } from "zod";
import { looseBoolean, looseNumber } from "../tool-args";
import { defineDeclaration, SESSION_KEY_PARAM } from "./declaration";

/** sessions_wait (this service's addition): messages of a session after `afterSeq`, long-polling. */
export const sessionsWaitArgsSchema = z.object({
  sessionKey: z.string().trim().min(1, "sessionKey required").max(512),
  afterSeq: looseNumber.optional(),
  timeoutSeconds: looseNumber.optional(),
  limit: looseNumber.optional(),
  includeTools: looseBoolean.optional(),
});

/** `sessions_wait`: what it is (tools/sessions-wait.ts runs it). */
export const sessionsWaitDeclaration = defineDeclaration({
  name: "sessions_wait",
  args: sessionsWaitArgsSchema,
  title: "Wait for session messages",
  description:
    "Return a visible session's messages after afterSeq, waiting up to timeoutSeconds (default 30, at most 300) for one to arrive. Pass nextAfterSeq back as afterSeq to keep following the session.",
  params: {
    sessionKey: SESSION_KEY_PARAM,
    afterSeq: "Return messages with a seq greater than this (0 = from the start).",
    timeoutSeconds: "How long to wait when there is nothing new yet (0-300 seconds).",
    limit: "At most this many messages (1-200).",
    includeTools: "Include tool calls and results.",
  },
  readOnly: true,
  label: "Session Wait",
  sessionTool: true,
  httpDenied: false,
  waits: true,
});
