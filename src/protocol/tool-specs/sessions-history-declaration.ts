import { z } from "zod";
import { looseBoolean, looseNumber } from "../tool-args";
import { defineDeclaration, metaText, SESSION_KEY_PARAM } from "./declaration";

export const sessionsHistoryArgsSchema = z.object({
  sessionKey: z.string().trim().min(1, "sessionKey required").max(512),
  limit: looseNumber.optional(),
  includeTools: looseBoolean.optional(),
});

/** `sessions_history`: what it is (tools/sessions-history.ts runs it). */
export const sessionsHistoryDeclaration = defineDeclaration({
  name: "sessions_history",
  args: sessionsHistoryArgsSchema,
  title: "Read a session's history",
  description:
    "Read a visible session's transcript: its newest messages, sanitized (secrets redacted, long texts cut); tool messages only with includeTools.",
  params: {
    sessionKey: SESSION_KEY_PARAM,
    limit: "At most this many messages (1-1000).",
    includeTools: "Include tool calls and results.",
  },
  readOnly: true,
  label: "Session History",
  sessionTool: true,
  httpDenied: false,
  meta: (args) => metaText(args.sessionKey),
  model: {
    rank: 1,
    summary: "Read sanitized session history.",
    section: "sessions",
    profiles: ["coding", "messaging"],
    groups: ["group:sessions"],
    subagentRemoved: "at-depth-cap",
    schema: {
      description:
        "Read sanitized visible-session history. Before reply/debug/resume. Use messageId for anchored history; sessionId selects its transcript and requires messageId. Omit both for the latest tail. offset pages unanchored history and is ignored with messageId. limit bounds either mode. Include tool messages with includeTools. pendingInputs are accepted inputs outside model history; page with pendingBefore=nextBefore. Cancelled/interrupted inputs never replay automatically. Lower limit for richer pending previews.",
      parameters: {
        type: "object",
        required: ["sessionKey"],
        properties: {
          sessionKey: { type: "string", minLength: 1 },
          limit: { type: "integer", minimum: 1, maximum: 1000 },
          offset: {
            type: "integer",
            minimum: 0,
            description: "Plain-pagination offset. Ignored when messageId is set; limit still bounds anchored history.",
          },
          pendingBefore: { type: "integer", minimum: 1 },
          messageId: {
            type: "string",
            minLength: 1,
            description: "Return history around this message id. Ignores offset; limit bounds the window.",
          },
          sessionId: {
            type: "string",
            minLength: 1,
            description: "Transcript session id that owns messageId. Requires messageId; omit for the latest tail.",
          },
          includeTools: { type: "boolean" },
        },
      },
    },
  },
});
