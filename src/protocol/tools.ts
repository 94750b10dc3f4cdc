import { z } from "zod";

/**
 * Tool argument schemas. Numbers are JSON `number` (OpenClaw keeps them non-integer for
 * Gemini compatibility) and numeric strings are accepted; tools floor and clamp them.
 */

const looseNumber = z.preprocess(
  (value) =>
    typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value,
  z.number().finite(),
);
const looseBoolean = z.preprocess(
  (value) => (value === "true" ? true : value === "false" ? false : value),
  z.boolean(),
);

/** Optional string fields OpenClaw ignores when they are not strings. */
const ignoredUnlessString = (max: number) =>
  z.preprocess((v) => (typeof v === "string" ? v : undefined), z.string().max(max).optional());

export const invokeBodySchema = z.object({
  tool: z.string().trim().min(1).max(128),
  action: ignoredUnlessString(128),
  args: z.unknown().optional(),
  sessionKey: ignoredUnlessString(512),
  dryRun: z.unknown().optional(),
});

export const sessionsListArgsSchema = z.object({
  kinds: z.array(z.string().max(32)).max(32).optional(),
  limit: looseNumber.optional(),
  /** Rows to skip: the previous answer's `nextOffset`. */
  offset: looseNumber.optional(),
  activeMinutes: looseNumber.optional(),
  messageLimit: looseNumber.optional(),
});

export const sessionsHistoryArgsSchema = z.object({
  sessionKey: z.string().trim().min(1, "sessionKey required").max(512),
  limit: looseNumber.optional(),
  includeTools: looseBoolean.optional(),
});

export const sessionStatusArgsSchema = z.object({
  sessionKey: z.string().trim().min(1).max(512).optional(),
  model: z.string().trim().min(1).max(256).optional(),
});

export const agentsListArgsSchema = z.object({});

export const sessionsSendArgsSchema = z.object({
  sessionKey: z.string().trim().min(1).max(512).optional(),
  label: z.string().trim().min(1).max(512).optional(),
  agentId: z.string().trim().min(1).max(64).optional(),
  message: z.string().min(1, "message required").max(1_000_000),
  timeoutSeconds: looseNumber.optional(),
});

export const SPAWN_ROUTING_PARAMS = [
  "target",
  "transport",
  "channel",
  "to",
  "threadId",
  "thread_id",
  "replyTo",
  "reply_to",
] as const;

export const sessionsSpawnArgsSchema = z.object({
  task: z.string().trim().min(1, "task required").max(200_000),
  label: z.string().trim().min(1).max(512).optional(),
  runtime: z.enum(["subagent", "acp"]).optional(),
  agentId: z.string().trim().min(1).max(128).optional(),
  resumeSessionId: z.string().optional(),
  model: z.string().trim().min(1).max(256).optional(),
  thinking: z.string().trim().min(1).max(32).optional(),
  cwd: z.string().optional(),
  runTimeoutSeconds: looseNumber.optional(),
  timeoutSeconds: looseNumber.optional(),
  thread: looseBoolean.optional(),
  mode: z.enum(["run", "session"]).optional(),
  cleanup: z.enum(["delete", "keep"]).optional(),
  sandbox: z.enum(["inherit", "require"]).optional(),
  streamTo: z.enum(["parent"]).optional(),
  attachments: z
    .array(
      z.object({
        name: z.string(),
        content: z.string(),
        encoding: z.enum(["utf8", "base64"]).optional(),
        mimeType: z.string().max(256).optional(),
      }),
    )
    .optional(),
  attachAs: z.object({ mountPath: z.string().max(1024).optional() }).optional(),
});

/** sessions_wait (this service's addition): messages of a session after `afterSeq`, long-polling. */
export const sessionsWaitArgsSchema = z.object({
  sessionKey: z.string().trim().min(1, "sessionKey required").max(512),
  afterSeq: looseNumber.optional(),
  timeoutSeconds: looseNumber.optional(),
  limit: looseNumber.optional(),
  includeTools: looseBoolean.optional(),
});
