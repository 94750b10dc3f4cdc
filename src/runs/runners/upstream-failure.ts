/**
 * A model provider's HTTP refusal as a run records it (`model endpoint answered <status>: <body>`),
 * written by the model runners and read back by the OpenAI routes, which answer it with the
 * status OpenClaw maps it to. One home for the format, so the two cannot drift apart.
 */

import { redactCredentials } from "../../secrets/redact-credentials";

const PREFIX = "model endpoint answered ";
/** Characters of an upstream's refusal kept in the error (enough for its message, not a page). */
export const UPSTREAM_DETAIL_MAX_CHARS = 200;
/** Characters read past the kept part, so a credential crossing the cut is still recognised whole. */
const UPSTREAM_DETAIL_MARGIN_CHARS = 4096;

/**
 * The start of a refusal's body with the credentials the request sent removed (every form
 * redactCredentials knows), then cut to UPSTREAM_DETAIL_MAX_CHARS: redacted before the cut, so
 * the cut cannot leave half a key that no longer looks like one.
 */
export async function upstreamFailureDetail(
  response: Response,
  credentials: ReadonlyArray<string | undefined>,
): Promise<string> {
  return upstreamDetail(await response.text().catch(() => ""), credentials);
}

/**
 * Any text an upstream sent about a failure (a refusal's body, a stream's `error` event) as a
 * run keeps it: redacted, then cut to UPSTREAM_DETAIL_MAX_CHARS. The one rule for every runner.
 */
export function upstreamDetail(text: string, credentials: Iterable<string | undefined>): string {
  const values = [...credentials];
  const longest = Math.max(0, ...values.map((value) => value?.length ?? 0));
  const read = text.slice(0, UPSTREAM_DETAIL_MAX_CHARS + UPSTREAM_DETAIL_MARGIN_CHARS + 4 * longest);
  return redactCredentials(read, values).slice(0, UPSTREAM_DETAIL_MAX_CHARS);
}

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
