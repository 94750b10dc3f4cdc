import { z } from "zod";

/**
 * Automations (OpenClaw's `cron.*` gateway methods, openclaw 2026.9.6 protocol schemas), the
 * part this service runs: `at`, `every` and `cron` schedules; `agentTurn` and `systemEvent`
 * payloads; `main`, `isolated`, `current` and `session:<key>` targets; no delivery. Objects
 * accept properties newer clients send; the known ones are validated.
 */

const MAX_TIMESTAMP_MS = 8_640_000_000_000_000;
const timestampMs = z.int().min(0).max(MAX_TIMESTAMP_MS);
const nonEmpty = z.string().min(1);

export const cronScheduleSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("at"), at: nonEmpty }),
  z.object({
    kind: z.literal("every"),
    everyMs: z.int().min(1).max(MAX_TIMESTAMP_MS),
    anchorMs: timestampMs.optional(),
  }),
  z.object({
    kind: z.literal("cron"),
    expr: nonEmpty,
    tz: z.string().optional(),
    staggerMs: timestampMs.optional(),
  }),
]);
export type CronSchedule = z.infer<typeof cronScheduleSchema>;

const agentTurnFields = {
  model: z.string().optional(),
  thinking: z.string().optional(),
  timeoutSeconds: z.number().min(0).optional(),
  lightContext: z.boolean().optional(),
};

export const cronPayloadSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("systemEvent"), text: nonEmpty }),
  z.object({ kind: z.literal("agentTurn"), message: nonEmpty, ...agentTurnFields }),
]);
export type CronPayload = z.infer<typeof cronPayloadSchema>;

const cronPayloadPatchSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("systemEvent"), text: nonEmpty.optional() }),
  z.object({ kind: z.literal("agentTurn"), message: nonEmpty.optional(), ...agentTurnFields }),
]);

export const cronSessionTargetSchema = z.union([
  z.literal("main"),
  z.literal("isolated"),
  z.literal("current"),
  z.string().regex(/^session:.+/, 'must be "main", "isolated", "current" or "session:<key>"'),
]);

export const cronWakeModeSchema = z.enum(["next-heartbeat", "now"]);

/** Runs report nowhere but their session here; `none` is the only delivery mode. */
export const cronDeliverySchema = z.object({
  mode: z.literal("none", { error: 'only delivery mode "none" is supported here (output stays in the session)' }),
});

const commonFields = {
  agentId: nonEmpty.nullish(),
  sessionKey: nonEmpty.nullish(),
  description: z.string().max(10_000).optional(),
  enabled: z.boolean().optional(),
  deleteAfterRun: z.boolean().optional(),
};

export const cronAddParamsSchema = z.object({
  name: nonEmpty.max(200),
  ...commonFields,
  schedule: cronScheduleSchema,
  sessionTarget: cronSessionTargetSchema,
  wakeMode: cronWakeModeSchema,
  payload: cronPayloadSchema,
  delivery: cronDeliverySchema.optional(),
});
export type CronAddParams = z.infer<typeof cronAddParamsSchema>;

export const cronPatchSchema = z.object({
  name: nonEmpty.max(200).optional(),
  ...commonFields,
  schedule: cronScheduleSchema.optional(),
  sessionTarget: cronSessionTargetSchema.optional(),
  wakeMode: cronWakeModeSchema.optional(),
  payload: cronPayloadPatchSchema.optional(),
  delivery: cronDeliverySchema.optional(),
});
export type CronPatch = z.infer<typeof cronPatchSchema>;

/** `{ id }` or the legacy `{ jobId }`. */
const jobRef = { id: nonEmpty.optional(), jobId: nonEmpty.optional() };

export const cronUpdateParamsSchema = z.object({
  ...jobRef,
  patch: cronPatchSchema,
  /** The job's `configRevision` when the caller loaded it: a job changed since is refused. */
  expectedConfigRevision: z.string().min(1).optional(),
});
export const cronRemoveParamsSchema = z.object(jobRef);
export const cronGetParamsSchema = z.object(jobRef);
export const cronRunParamsSchema = z.object({ ...jobRef, mode: z.enum(["due", "force", "if-enabled"]).optional() });

export const cronListParamsSchema = z.object({
  includeDisabled: z.boolean().optional(),
  limit: z.int().min(1).max(200).optional(),
  offset: z.int().min(0).optional(),
  query: z.string().optional(),
  enabled: z.enum(["all", "enabled", "disabled"]).optional(),
  scheduleKind: z.enum(["all", "at", "every", "cron", "on-exit", "stream"]).optional(),
  lastRunStatus: z.enum(["all", "ok", "error", "skipped", "unknown"]).optional(),
  sortBy: z.enum(["nextRunAtMs", "updatedAtMs", "name"]).optional(),
  sortDir: z.enum(["asc", "desc"]).optional(),
  agentId: nonEmpty.optional(),
});
export type CronListParams = z.infer<typeof cronListParamsSchema>;

export const cronRunsParamsSchema = z.object({
  agentId: nonEmpty.optional(),
  scope: z.enum(["job", "all"]).optional(),
  ...jobRef,
  runId: nonEmpty.optional(),
  limit: z.int().min(1).max(200).optional(),
  offset: z.int().min(0).optional(),
  statuses: z
    .array(z.enum(["ok", "error", "skipped"]))
    .min(1)
    .max(3)
    .optional(),
  status: z.enum(["all", "ok", "error", "skipped"]).optional(),
  query: z.string().optional(),
  sortDir: z.enum(["asc", "desc"]).optional(),
});
export type CronRunsParams = z.infer<typeof cronRunsParamsSchema>;

export const cronStatusParamsSchema = z.object({});

export type CronRunStatus = "ok" | "error" | "skipped";

/** Scheduler-maintained state of a job (OpenClaw's CronJobState, the fields kept here). */
export type CronJobState = {
  nextRunAtMs?: number;
  runningAtMs?: number;
  lastRunAtMs?: number;
  lastRunStatus?: CronRunStatus;
  lastStatus?: CronRunStatus;
  lastError?: string;
  lastDurationMs?: number;
  consecutiveErrors?: number;
};

/** A job as stored and listed (OpenClaw's CronJob, the fields kept here). */
export type CronJob = {
  id: string;
  agentId?: string;
  sessionKey?: string;
  name: string;
  description?: string;
  enabled: boolean;
  deleteAfterRun?: boolean;
  createdAtMs: number;
  updatedAtMs: number;
  schedule: CronSchedule;
  sessionTarget: string;
  wakeMode: "next-heartbeat" | "now";
  payload: CronPayload;
  delivery?: { mode: "none" };
  state: CronJobState;
};

/** One run history entry (OpenClaw's CronRunLogEntry, the fields kept here). */
export type CronRunEntry = {
  ts: number;
  jobId: string;
  action: "finished";
  status: CronRunStatus;
  error?: string;
  summary?: string;
  sessionKey?: string;
  runId: string;
  runAtMs: number;
  durationMs: number;
  nextRunAtMs?: number;
  model?: string;
  provider?: string;
  usage?: { input_tokens?: number; output_tokens?: number; total_tokens?: number };
  jobName?: string;
};

// HTTP bodies and answers (the same shapes as the gateway's).
export const cronJobListQuerySchema = z.object({
  includeDisabled: z.boolean().optional(),
  limit: z.int().min(1).max(200).optional(),
  offset: z.int().min(0).optional(),
  query: z.string().optional(),
  agentId: nonEmpty.optional(),
});
export const cronRunsQuerySchema = z.object({
  runId: nonEmpty.optional(),
  limit: z.int().min(1).max(200).optional(),
  offset: z.int().min(0).optional(),
  status: z.enum(["all", "ok", "error", "skipped"]).optional(),
});
export const cronRunBodySchema = z.object({ mode: z.enum(["due", "force", "if-enabled"]).optional() }).optional();
