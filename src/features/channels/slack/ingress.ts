import { slackUpdateId } from "./routing";
import { verifySlackSignature } from "./signature";

/**
 * The answers of the Slack Request URL before anything is stored (SPEC §4.1): signature and
 * timestamp (401, empty), then the body: `url_verification` answered with its challenge, a
 * non-JSON body 400 (empty), an interactivity form post 404 (no handler here), an
 * `event_callback` accepted with its dedupe key (routing.ts, `slackUpdateId`). Pure.
 */

export const DEFAULT_SLACK_WEBHOOK_PATH = "/slack/events";

export type SlackIngressVerdict =
  | { ok: true; updateId: string; body: string }
  | { ok: false; status: 200 | 400 | 401 | 404; json?: Record<string, unknown> };

export async function checkSlackRequest(input: {
  signingSecret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  contentType: string | undefined;
  body: string;
  nowMs: number;
}): Promise<SlackIngressVerdict> {
  const signed = await verifySlackSignature({
    signingSecret: input.signingSecret,
    timestamp: input.timestamp,
    signature: input.signature,
    body: input.body,
    nowMs: input.nowMs,
  });
  if (!signed) return { ok: false, status: 401 };
  // Interactivity (block actions, shortcuts) arrives form-encoded; nothing here handles it.
  if ((input.contentType ?? "").includes("application/x-www-form-urlencoded")) return { ok: false, status: 404 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(input.body);
  } catch {
    return { ok: false, status: 400 };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return { ok: false, status: 400 };
  const envelope = parsed as { type?: unknown; challenge?: unknown; event_id?: unknown; event?: unknown };
  if (envelope.type === "url_verification") return { ok: false, status: 200, json: { challenge: envelope.challenge } };
  if (
    envelope.type !== "event_callback" ||
    typeof envelope.event_id !== "string" ||
    !/^[A-Za-z0-9_-]{1,128}$/.test(envelope.event_id)
  )
    return { ok: false, status: 200 };
  const event = typeof envelope.event === "object" && envelope.event !== null ? envelope.event : undefined;
  return {
    ok: true,
    updateId: slackUpdateId({ event_id: envelope.event_id, event: event as Record<string, unknown> | undefined }),
    body: input.body,
  };
}
