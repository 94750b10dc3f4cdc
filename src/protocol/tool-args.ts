import { z } from "zod";

/**
 * Helpers of the tools' argument schemas (each tool's own is in its declaration, tool-specs/).
 * Numbers are JSON `number` (OpenClaw keeps them non-integer for Gemini compatibility) and
 * numeric strings are accepted; tools floor and clamp them.
 */

export const looseNumber = z.preprocess(
  (value) =>
    typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value,
  z.number().finite(),
);
export const looseBoolean = z.preprocess(
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
