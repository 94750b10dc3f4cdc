/**
 * OpenClaw refuses a session mutation without a usable target before it validates params
 * (`SESSION_MUTATION_TARGET_REQUIRED`): for admin callers only the run-starting `chat.send`,
 * for everyone else every mutation of one session.
 */

/** Methods that mutate one session, and the param naming it. */
const MUTATION_TARGETS: Record<string, "key" | "sessionKey"> = {
  "chat.send": "sessionKey",
  "chat.abort": "sessionKey",
  "chat.inject": "sessionKey",
  "sessions.abort": "key",
  "sessions.patch": "key",
  "sessions.delete": "key",
  "sessions.reset": "key",
};

const ADMIN_REQUIRED = new Set(["chat.send"]);

/** The error details when `method` lacks its target, else null. */
export function missingMutationTarget(
  method: string,
  params: unknown,
  isAdmin: boolean,
): { code: "SESSION_MUTATION_TARGET_REQUIRED"; method: string } | null {
  const field = MUTATION_TARGETS[method];
  if (!field || (isAdmin && !ADMIN_REQUIRED.has(method))) return null;
  const value = typeof params === "object" && params !== null ? (params as Record<string, unknown>)[field] : undefined;
  if (typeof value === "string" && value.trim() !== "") return null;
  return { code: "SESSION_MUTATION_TARGET_REQUIRED", method };
}
