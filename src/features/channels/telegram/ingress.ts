import { constantTimeEqual } from "../../../auth/tokens";

/**
 * The Telegram webhook's answers before anything is stored (SPEC §3.1): the secret-token
 * header (before the body is read), then the body. Pure; the route commits an accepted update and answers 200.
 */

export const SECRET_HEADER = "x-telegram-bot-api-secret-token";
export const DEFAULT_WEBHOOK_PATH = "/telegram-webhook";

export type IngressVerdict =
  | { ok: true; updateId: string; body: string }
  | { ok: false; status: 400 | 401 | 500; text: string };

/** Whether the secret-token header is the webhook's secret (checked before the body is read). */
export function telegramSecretOk(secretHeader: string | undefined, expectedSecret: string): boolean {
  return secretHeader !== undefined && constantTimeEqual(secretHeader, expectedSecret);
}

/** The answer for a request whose secret was (or was not) right, from its body alone. */
export function telegramUpdateVerdict(secretOk: boolean, body: string): IngressVerdict {
  if (!secretOk) return { ok: false, status: 401, text: "unauthorized" };
  if (body.length === 0) return { ok: false, status: 400, text: "empty payload" };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return { ok: false, status: 400, text: (error as Error).message };
  }
  const updateId = (parsed as { update_id?: unknown } | null)?.update_id;
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed) || !Number.isSafeInteger(updateId))
    return { ok: false, status: 500, text: "" };
  return { ok: true, updateId: String(updateId), body };
}
