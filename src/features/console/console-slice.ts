import { z } from "zod";
import { chatCommandEntries } from "../../domain/chat-commands";
import type { TenantContext } from "../../domain/context";
import { agentIdParam } from "../../domain/keys";
import { admitSearch } from "../../domain/limits";
import { parseAgentSessionKey } from "../../keys/session-key";
import { defaultAgentId } from "../../policy/agent-config";
import { agentIdentity, agentIds, agentModels, runnerCredentials, tenantModels } from "../../policy/agent-models";
import { agentParamsSchema, sessionsListParamsSchema } from "../../protocol/methods";
import { defineMethod } from "../../registry/method";
import type { Slice } from "../../registry/slice";
import { agentCommands, agentToolsCatalog, agentToolsEffective } from "./agent-tools";
import { chatStartup } from "./chat-startup";
import { SEARCH_LIMIT_MAX, searchSessions } from "./search";
import { LOG_TAIL_MAX_BYTES, LOG_TAIL_MAX_LINES, sessionsUsage, tailLogs, USAGE_SESSIONS_MAX } from "./usage-and-logs";

/**
 * The console (the OpenClaw Control UI) beyond the session methods: the chat pane's start
 * (`chat.startup`), agent identity, the model catalog derived from the tenant's runners, the
 * tools and commands offered, and the ledger's views — `logs.tail`, `sessions.usage` — and
 * `sessions.search`. Params are open objects: the UI's extra properties are ignored, known ones
 * validated.
 */

/** The agent a request is about: its agentId, else the session key's agent, else the default. */
function agentOf(ctx: TenantContext<never>, params: { agentId?: string | undefined; sessionKey?: string | undefined }) {
  if (params.agentId) return agentIdParam(params.agentId);
  const parsed = params.sessionKey ? parseAgentSessionKey(params.sessionKey) : null;
  return parsed?.agentId ?? defaultAgentId(ctx.config);
}

/** The models a picker may offer: for an agent (or a session's agent), only its runner's. */
function modelsAnswer(
  ctx: TenantContext<never>,
  params: { agentId?: string | undefined; sessionKey?: string | undefined },
) {
  if (!params.agentId && !params.sessionKey) return { models: tenantModels(ctx.config) };
  return { models: agentModels(ctx.config, agentOf(ctx, params)) };
}

export const consoleSlice: Slice = {
  name: "console",
  methods: {
    "chat.startup": defineMethod({
      scope: "operator.read",
      roles: ["index"],
      params: z.object({
        sessionKey: z.string().trim().min(1).max(512),
        limit: z.int().min(1).max(1000).optional(),
        maxChars: z.int().min(1).max(500_000).optional(),
      }),
      handle: ({ ctx, params }) => chatStartup(ctx, params),
    }),
    "agent.identity.get": defineMethod({
      scope: "operator.read",
      roles: [],
      params: agentParamsSchema,
      handle: ({ ctx, params }) => agentIdentity(ctx.config, agentOf(ctx, params)),
    }),
    "models.list": defineMethod({
      scope: "operator.read",
      roles: [],
      params: agentParamsSchema,
      handle: ({ ctx, params }) => modelsAnswer(ctx, params),
    }),
    "chat.metadata": defineMethod({
      scope: "operator.read",
      roles: [],
      params: agentParamsSchema,
      // The slash commands chat.send runs (domain/chat-commands.ts).
      handle: ({ ctx, params }) => ({ ...modelsAnswer(ctx, params), commands: chatCommandEntries() }),
    }),
    // The tools a model is offered here (policy/tool-offer.ts), not OpenClaw's own catalog.
    "tools.catalog": defineMethod({
      scope: "operator.read",
      roles: ["index"],
      params: z.object({ agentId: z.string().max(64).optional(), includePlugins: z.boolean().optional() }),
      handle: ({ ctx, params }) => agentToolsCatalog(ctx, params),
    }),
    "tools.effective": defineMethod({
      scope: "operator.read",
      roles: ["index"],
      params: z.object({ agentId: z.string().max(64).optional(), sessionKey: z.string().trim().min(1).max(512) }),
      handle: ({ ctx, params }) => agentToolsEffective(ctx, params),
    }),
    "commands.list": defineMethod({
      scope: "operator.read",
      roles: ["index"],
      params: z.object({
        agentId: z.string().max(64).optional(),
        sessionKey: z.string().max(512).optional(),
        provider: z.string().max(64).optional(),
        scope: z.enum(["text", "native", "both"]).optional(),
        includeArgs: z.boolean().optional(),
      }),
      handle: ({ ctx, params }) => agentCommands(ctx, params),
    }),
    // The runners' API keys as OpenClaw's static API-key credentials (the Models page's "Credentials").
    "models.authStatus": defineMethod({
      scope: "operator.read",
      roles: [],
      params: agentParamsSchema,
      handle: ({ ctx, params }) => ({
        ts: Date.now(),
        providers: runnerCredentials(ctx.config, params.agentId ? [agentOf(ctx, params)] : agentIds(ctx.config)),
        providerCapabilities: [],
      }),
    }),
    "skills.status": defineMethod({
      scope: "operator.read",
      roles: [],
      params: agentParamsSchema,
      handle: ({ ctx, params }) => ({ agentId: agentOf(ctx, params), skills: [] }),
    }),
    "logs.tail": defineMethod({
      scope: "operator.read",
      roles: ["index"],
      params: z.object({
        cursor: z.int().min(0).optional(),
        limit: z.int().min(1).max(LOG_TAIL_MAX_LINES).optional(),
        maxBytes: z.int().min(1).max(LOG_TAIL_MAX_BYTES).optional(),
      }),
      handle: ({ ctx, params }) => tailLogs(ctx, params),
    }),
    "sessions.search": defineMethod({
      scope: "operator.read",
      roles: ["index", "runs"],
      params: z.object({
        query: z.string().max(512),
        limit: z.int().min(1).max(SEARCH_LIMIT_MAX).optional(),
        // The UI's sessions.list filters minus paging (OpenClaw's scope), unknown ones ignored.
        scope: sessionsListParamsSchema
          .omit({ limit: true, offset: true, includeDerivedTitles: true, includeLastMessage: true })
          .optional(),
      }),
      handle: async ({ ctx, params }) => {
        await admitSearch(ctx);
        return searchSessions(ctx, params);
      },
    }),
    "sessions.usage": defineMethod({
      scope: "operator.read",
      roles: ["index"],
      params: z.object({
        startDate: z.string().optional(),
        endDate: z.string().optional(),
        agentId: z.string().min(1).max(64).optional(),
        limit: z.int().min(1).max(USAGE_SESSIONS_MAX).optional(),
      }),
      handle: ({ ctx, params }) => sessionsUsage(ctx, params),
    }),
  },
};
