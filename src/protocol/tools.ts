import { z } from "zod";

/**
 * Tool argument schemas. Numbers are JSON `number` (OpenClaw keeps them non-integer for
 * Gemini compatibility) and numeric strings are accepted; tools floor and clamp them.
 */

const looseNumber = z.preprocess(
  (value) => (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value),
  z.number().finite(),
);
const looseBoolean = z.preprocess(
  (value) => (value === "true" ? true : value === "false" ? false : value),
  z.boolean(),
);

/** Optional string fields OpenClaw ignores when they are not strings. */
const ignoredUnlessString = (max: number) => z.preprocess((v) => (typeof v === "string" ? v : undefined), z.string().max(max).optional());

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
