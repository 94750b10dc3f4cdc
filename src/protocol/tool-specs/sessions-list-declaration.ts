import { z } from "zod";
import { looseNumber } from "../tool-args";
import { defineDeclaration, metaText } from "./declaration";

export const sessionsListArgsSchema = z.object({
  kinds: z.array(z.string().max(32)).max(32).optional(),
  limit: looseNumber.optional(),
  /** Rows to skip: the previous answer's `nextOffset`. */
  offset: looseNumber.optional(),
  activeMinutes: looseNumber.optional(),
  messageLimit: looseNumber.optional(),
});

/** `sessions_list`: what it is (tools/sessions-list.ts runs it). */
export const sessionsListDeclaration = defineDeclaration({
  name: "sessions_list",
  args: sessionsListArgsSchema,
  title: "List sessions",
  description:
    "List the sessions this caller may see, newest first, in OpenClaw's row shape. Filter by kinds (main, group, cron, hook, node, other) and activeMinutes; messageLimit adds each session's last messages.",
  params: {
    limit: "At most this many sessions (1-200, default 100).",
    offset: "Skip this many sessions: the previous answer's nextOffset when it had hasMore.",
    activeMinutes: "Only sessions updated within this many minutes.",
    messageLimit: "Also return the last N messages of each session (0-20).",
  },
  readOnly: true,
  label: "Sessions",
  sessionTool: true,
  httpDenied: false,
  meta: (args) => metaText(args.limit),
  model: {
    rank: 0,
    summary: "List visible sessions; filters/previews.",
    section: "sessions",
    profiles: ["coding", "messaging"],
    groups: ["group:sessions"],
    subagentRemoved: "at-depth-cap",
    schema: {
      description:
        "List visible session metadata and groups; filter ownerId/creatorId, projectId/workspaceDir, group/pinned, kind/agent/activity/archive. relationship=owned|created|involving selects the authenticated requesting user's sessions, not the agent's owner. Metadata-only by default. limit defaults to 100; larger requests stay valid but limitApplied never exceeds 200. count is this page, not an inventory total. Continue with nextOffset and identical filters while hasMore; truncationReason names a scan/byte budget. Pages are live: deduplicate by agentId/key/sessionId or restart for a fresh inventory. archived=all includes active and archived rows. Preview recent messages inline via includeLastMessage/messageLimit; includeDerivedTitles adds derived titles. enrichmentOmitted means previews exceeded the byte budget; read history separately. Use before history/send target selection.",
      parameters: {
        type: "object",
        properties: {
          kinds: { type: "array", items: { enum: ["main", "group", "cron", "hook", "node", "other"], type: "string" } },
          limit: { type: "integer", minimum: 1 },
          offset: { type: "integer", minimum: 0, maximum: 9007199254740991 },
          activeMinutes: { type: "integer", minimum: 1 },
          activeOnly: { type: "boolean" },
          excludeSubagents: { type: "boolean" },
          relationship: {
            enum: ["owned", "created", "involving"],
            type: "string",
            description: "Relation to the authenticated requesting user; unavailable without a trusted user identity.",
          },
          ownerId: { type: "string", minLength: 1 },
          creatorId: { type: "string", minLength: 1 },
          projectId: { type: "string", minLength: 1 },
          workspaceDir: { type: "string", minLength: 1 },
          group: { type: "string" },
          pinned: { type: "boolean" },
          messageLimit: { type: "integer", minimum: 0 },
          label: { type: "string", minLength: 1 },
          agentId: { type: "string", minLength: 1, maxLength: 64 },
          search: { type: "string", minLength: 1 },
          archived: { anyOf: [{ type: "boolean" }, { type: "string", const: "all" }] },
          includeDerivedTitles: { type: "boolean" },
          includeLastMessage: { type: "boolean" },
        },
      },
    },
  },
});
