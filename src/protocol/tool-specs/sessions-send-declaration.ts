import { z } from "zod";
import { looseNumber } from "../tool-args";
import { defineDeclaration, metaText, SESSION_KEY_PARAM } from "./declaration";

export const sessionsSendArgsSchema = z.object({
  sessionKey: z.string().trim().min(1).max(512).optional(),
  label: z.string().trim().min(1).max(512).optional(),
  agentId: z.string().trim().min(1).max(64).optional(),
  message: z.string().min(1, "message required").max(1_000_000),
  timeoutSeconds: looseNumber.optional(),
});

/** `sessions_send`: what it is (tools/sessions-send.ts runs it). */
export const sessionsSendDeclaration = defineDeclaration({
  name: "sessions_send",
  args: sessionsSendArgsSchema,
  title: "Send to a session",
  description:
    "Send a message to another existing session (by sessionKey, or by label) and wait up to timeoutSeconds (default 30; 0 = do not wait) for its reply. The reply is also announced back when the wait ends first. Only an agent's main session is created when missing; use sessions_list for the keys.",
  params: {
    sessionKey: SESSION_KEY_PARAM,
    label: "The target session's label, instead of sessionKey.",
    message: "The message to send.",
    timeoutSeconds: "How long to wait for the reply (0-600 seconds).",
  },
  readOnly: false,
  label: "Session Send",
  sessionTool: true,
  httpDenied: true,
  waits: true,
  meta: (args) => {
    const target = metaText(args.sessionKey) ?? metaText(args.label);
    const timeout = metaText(args.timeoutSeconds);
    return (
      [target ? `session ${target}` : undefined, timeout ? `timeout ${timeout}` : undefined]
        .filter(Boolean)
        .join(", ") || undefined
    );
  },
  model: {
    rank: 2,
    summary: "Run same-Gateway session/agent.",
    section: "sessions",
    profiles: ["coding", "messaging"],
    groups: ["group:sessions"],
    subagentRemoved: "always",
    schema: {
      description:
        'Run a visible session on this Gateway by sessionKey/label, or a configured local agent by agentId; sessionKey wins redundant label. A session identifies model context, not an external address; its reply may still announce through established delivery context. Accepted results report target admission as `targetDisposition: "queued"` or `"steered"`; `delivery.status` is only later announcement state, and neither proves target completion. Omit mode to automatically continue your paused native child task; returns runId/taskRunId with task-owned completion instead of an inline wait or watch. Other sessions use ordinary message delivery. mode:notify queues ephemeral context for the next turn without waking or starting work (bounded process memory, not a durable inbox). mode:steer injects guidance into an active supported run and never starts idle work. mode:followup starts a separate turn without steering or resuming a paused task. mode:resume requires a paused native child task and rejects watch:true and positive timeoutSeconds. For an exact external destination, use `conversations_list` plus `conversations_send`/`conversations_turn`. Thread chats rejected: target parent channel. Missing configured-agent main created. Waits for reply when available; status "no_reply" is terminal, so do not wait for an announcement. watch:true: notice arrives when others later change target session.',
      parameters: {
        type: "object",
        required: ["message"],
        properties: {
          sessionKey: { type: "string" },
          label: { type: "string", minLength: 1, maxLength: 512 },
          agentId: { type: "string", minLength: 1, maxLength: 64 },
          message: { type: "string" },
          timeoutSeconds: { type: "integer", minimum: 0 },
          watch: { type: "boolean" },
          mode: {
            anyOf: [
              { type: "string", const: "notify" },
              { type: "string", const: "steer" },
              { type: "string", const: "followup" },
              { type: "string", const: "resume" },
            ],
          },
        },
      },
    },
  },
});
