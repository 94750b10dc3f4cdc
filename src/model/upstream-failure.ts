/**
 * A model provider's HTTP refusal as a run records it (`model endpoint answered <status>: <body>`),
 * written by the model runners and read back by the OpenAI routes, which answer it with the
 * status OpenClaw maps it to. One home for the format, so the two cannot drift apart.
 */

const PREFIX = "model endpoint answered ";

export function upstreamFailureText(status: number, detail: string): string {
  return `${PREFIX}${status}${detail ? `: ${detail}` : ""}`;
}

/** The provider's status and its own error message (from an OpenAI- or Anthropic-shaped body), or null. */
export function parseUpstreamFailure(text: string | undefined): { status: number; message: string } | null {
  const match = text?.startsWith(PREFIX) ? /^(\d{3})(?:: ([\s\S]*))?$/.exec(text.slice(PREFIX.length)) : null;
  if (!match) return null;
  const detail = match[2] ?? "";
  let message = detail;
  try {
    const body = JSON.parse(detail) as { error?: { message?: unknown } | string; message?: unknown };
    const inner = typeof body.error === "object" ? body.error?.message : (body.error ?? body.message);
    if (typeof inner === "string") message = inner;
  } catch {
    // Not JSON: the body's text is the message.
  }
  return { status: Number(match[1]), message };
}
