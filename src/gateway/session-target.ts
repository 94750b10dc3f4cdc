import type { Method } from "../registry/method";

/**
 * OpenClaw refuses a session mutation without a usable target before it validates params
 * (`SESSION_MUTATION_TARGET_REQUIRED`): for admin callers only a method that starts a run (its
 * run starts require participation), for everyone else every method that declares the session
 * it changes (`mutatesSession` in its `defineMethod`).
 */

/** The error details when `method` lacks its target, else null. */
export function missingMutationTarget(
  name: string,
  method: Pick<Method, "mutatesSession" | "startsRun">,
  params: unknown,
  isAdmin: boolean,
): { code: "SESSION_MUTATION_TARGET_REQUIRED"; method: string } | null {
  const field = method.mutatesSession;
  if (!field || (isAdmin && !method.startsRun)) return null;
  const value = typeof params === "object" && params !== null ? (params as Record<string, unknown>)[field] : undefined;
  if (typeof value === "string" && value.trim() !== "") return null;
  return { code: "SESSION_MUTATION_TARGET_REQUIRED", method: name };
}
