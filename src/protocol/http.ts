import { z } from "zod";
import { sessionSeedSchema, transcriptMessageSchema } from "./session";

/** Bodies and query strings of the HTTP API. */

/** Every HTTP error body is `{ ok: false, error: { type, message } }`. */
export function errorBody(type: string, message: string) {
  return { ok: false as const, error: { type, message } };
}

/** An error answered by a Durable Object itself (requests forwarded to it past the HTTP app). */
export function errorResponse(status: number, type: string, message: string): Response {
  return Response.json(errorBody(type, message), { status });
}

export const TENANT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const OPERATOR_SCOPES = ["operator.read", "operator.write", "operator.admin"] as const;
export type OperatorScope = (typeof OPERATOR_SCOPES)[number];

export const createTenantBodySchema = z.strictObject({
  id: z.string().regex(TENANT_ID_PATTERN, "tenant id must match [a-z0-9][a-z0-9-]{0,62}"),
});

export const issueTokenBodySchema = z.strictObject({
  scopes: z.array(z.enum(OPERATOR_SCOPES)).min(1).max(OPERATOR_SCOPES.length),
  label: z.string().min(1).max(128).optional(),
});

/** POST /v1/sessions/{key}/messages: the transcript message plus ingest options. */
export const ingestBodySchema = z.strictObject({
  ...transcriptMessageSchema.shape,
  ...sessionSeedSchema.shape,
  idempotencyKey: z.string().min(1).max(256).optional(),
  /** Start an agent run for this (user) message. */
  run: z.boolean().optional(),
});
export type IngestBody = z.infer<typeof ingestBodySchema>;

export const ingestBatchBodySchema = z.strictObject({
  messages: z.array(transcriptMessageSchema).min(1).max(1000),
  idempotencyKey: z.string().min(1).max(256).optional(),
});

/** The maximum number of messages one history page returns. */
export const HISTORY_MAX_LIMIT = 1000;

/**
 * OpenClaw's history query rules: absent or blank limit = no limit; non-numeric or < 1 → 1;
 * else clamped to 1..1000. The cursor is `seq:N` or `N`.
 */
export function parseHistoryLimit(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw.trim());
  if (!Number.isFinite(n) || n < 1) return 1;
  return Math.min(HISTORY_MAX_LIMIT, Math.floor(n));
}

export function parseHistoryCursor(raw: string | undefined): number | undefined | "invalid" {
  if (raw === undefined || raw.trim() === "") return undefined;
  const match = /^(?:seq:)?(\d{1,15})$/.exec(raw.trim());
  if (!match) return "invalid";
  const seq = Number(match[1]);
  return seq >= 1 ? seq : "invalid";
}

export function parseFlag(raw: string | undefined): boolean {
  if (raw === undefined) return false;
  return ["1", "true", "yes", "on"].includes(raw.trim().toLowerCase());
}
