/** Small pure rules about tool calls shared by the runners and the loop. */

/**
 * OpenClaw's strict id sanitizer: only `[A-Za-z0-9]` reach the provider (`call_2_0` →
 * `call20`); the transcript keeps the provider's id verbatim.
 */
export function sanitizeToolCallId(id: string): string {
  const clean = id.replace(/[^A-Za-z0-9]/g, "");
  return clean === "" ? "sanitizedtoolid" : clean;
}

/** A call's arguments as an object: the model's JSON text parsed; anything else is `{}`. */
export function parseToolArguments(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
