import { z } from "zod";

/** Params of the session methods shared by the HTTP API and the gateway WebSocket. */

// Unknown properties (newer clients' filters) are ignored; the known ones are validated.
export const sessionsListParamsSchema = z.object({
  limit: z.int().min(1).optional(),
  /** Rows to skip (OpenClaw's protocol 4 paging; the result's nextOffset is the next page). */
  offset: z.int().min(0).optional(),
  activeMinutes: z.int().min(1).optional(),
  includeGlobal: z.boolean().optional(),
  includeUnknown: z.boolean().optional(),
  includeDerivedTitles: z.boolean().optional(),
  includeLastMessage: z.boolean().optional(),
  /** This service's extension: archived sessions are hidden unless asked for. */
  includeArchived: z.boolean().optional(),
  /** OpenClaw's archive filter: true = archived only, "all" = both, false/absent = active only. */
  archived: z.union([z.boolean(), z.literal("all")]).optional(),
  label: z.string().min(1).max(512).optional(),
  spawnedBy: z.string().min(1).optional(),
  agentId: z.string().min(1).optional(),
  /** Empty = no search (the Control UI sends ""). */
  search: z.string().max(512).optional(),
  /** Only sessions with a run in progress. */
  activeOnly: z.boolean().optional(),
  excludeSubagents: z.boolean().optional(),
  excludeCron: z.boolean().optional(),
  /** Session dashboards (boards) do not exist here: `hasBoard: true` lists nothing. */
  hasBoard: z.boolean().optional(),
});
export type SessionsListParams = z.infer<typeof sessionsListParamsSchema>;

export const sessionsResolveParamsSchema = z.object({
  key: z.string().min(1).optional(),
  sessionId: z.string().min(1).optional(),
  label: z.string().min(1).max(512).optional(),
  agentId: z.string().min(1).optional(),
  spawnedBy: z.string().min(1).optional(),
  includeGlobal: z.boolean().optional(),
  includeUnknown: z.boolean().optional(),
  /** The Control UI's chat URLs: a key (with its slug), or a short id of the key's trailing UUID. */
  reference: z.object({ key: z.string().min(1), slug: z.string().min(1).optional() }).optional(),
  shortId: z.string().min(1).optional(),
  slugHint: z.string().min(1).optional(),
  /** A miss answers `{ ok: false }` instead of an error. */
  allowMissing: z.boolean().optional(),
});
export type SessionsResolveParams = z.infer<typeof sessionsResolveParamsSchema>;

/**
 * The agent a console method is about (`models.list`, `skills.status`, `webSearch.status`, …):
 * its id, or a session key whose agent it is; the Control UI's other properties are ignored.
 */
export const agentParamsSchema = z.object({
  agentId: z.string().max(64).optional(),
  sessionKey: z.string().optional(),
});
