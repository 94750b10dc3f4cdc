import { z } from "zod";
import { defineDeclaration, metaText } from "./declaration";

export const sessionStatusArgsSchema = z.object({
  sessionKey: z.string().trim().min(1).max(512).optional(),
  model: z.string().trim().min(1).max(256).optional(),
});

/** `session_status`: what it is (tools/session-status.ts runs it). */
export const sessionStatusDeclaration = defineDeclaration({
  name: "session_status",
  args: sessionStatusArgsSchema,
  title: "Session status",
  description:
    'A status card of a visible session (model, tokens, message count). model sets the session\'s model override; "default" clears it.',
  params: {
    sessionKey: 'A session key ("main", "agent:<agentId>:<name>", …), or a sessionId. Default: the calling session.',
    model: 'Model override to set, or "default".',
  },
  readOnly: false,
  label: "Session Status",
  sessionTool: false,
  httpDenied: false,
  meta: (args) => metaText(args.sessionKey),
  model: {
    rank: 4,
    summary: "Show session status/model/usage.",
    section: "sessions",
    profiles: ["minimal", "coding", "messaging"],
    groups: ["group:sessions"],
    subagentRemoved: "always",
    schema: {
      description:
        'Show visible-session model/usage/time/cost/tasks. `sessionKey="current"` for current; UI labels are not keys. `model` overrides; `model=default` resets. Use for active model/session questions.',
      parameters: {
        type: "object",
        properties: {
          sessionKey: { type: "string" },
          model: { type: "string" },
          changesSince: { type: "integer", minimum: 0 },
        },
      },
    },
  },
});
