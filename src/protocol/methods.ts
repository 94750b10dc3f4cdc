import { z } from "zod";

/** Params of the session methods shared by the HTTP API and the gateway WebSocket. */

export const sessionsListParamsSchema = z.strictObject({
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
  search: z.string().min(1).max(512).optional(),
});
export type SessionsListParams = z.infer<typeof sessionsListParamsSchema>;

export const sessionsResolveParamsSchema = z.strictObject({
  key: z.string().min(1).optional(),
  sessionId: z.string().min(1).optional(),
  label: z.string().min(1).max(512).optional(),
  agentId: z.string().min(1).optional(),
  spawnedBy: z.string().min(1).optional(),
  includeGlobal: z.boolean().optional(),
  includeUnknown: z.boolean().optional(),
});
export type SessionsResolveParams = z.infer<typeof sessionsResolveParamsSchema>;
