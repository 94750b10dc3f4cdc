import { LINE_ANSWERS, LINE_MAX_BODY_BYTES, type LineEvent, parseLineWebhook } from "./events";
import { verifyLineSignature } from "./signature";

/**
 * The answers of the LINE webhook before anything is stored (SPEC §3.1): no signature 400, a
 * wrong one 401, a signed body that is not a webhook 400, then one stored update per event
 * (a batch holds several, each its own turn, recorded), each keyed for dedupe. The console's
 * "Verify" (no events) is answered 200 with nothing stored. Pure.
 */

export const DEFAULT_LINE_WEBHOOK_PATH = "/line/webhook";

/** One event as the inbox stores it: the bot's id (`destination`) kept beside the event. */
export type StoredLineUpdate = { destination?: string; event: LineEvent };

export type LineIngressVerdict =
  | { ok: true; updates: { updateId: string; body: string }[] }
  | { ok: false; status: 400 | 401; body: { error: string } };

/**
 * The answer a request gets before its body is read (SPEC §3.1: "checked before the body is
 * read"): no signature 400, an announced body over 64 KB 413; null when the body may be read
 * (the reader still stops at 64 KB, whatever was announced).
 */
export function lineHeadersRefusal(
  signature: string | undefined,
  contentLength: string | undefined,
): { ok: false; status: 400 | 413; body: { error: string } } | null {
  if (!signature) return { ok: false, ...LINE_ANSWERS.missingSignature };
  if (contentLength !== undefined && Number(contentLength) > LINE_MAX_BODY_BYTES)
    return { ok: false, ...LINE_ANSWERS.tooLarge };
  return null;
}

export async function checkLineRequest(input: {
  channelSecret: string;
  signature: string | undefined;
  body: string;
}): Promise<LineIngressVerdict> {
  if (!input.signature) return { ok: false, ...LINE_ANSWERS.missingSignature };
  const signed = await verifyLineSignature(input);
  if (!signed) return { ok: false, ...LINE_ANSWERS.invalidSignature };
  const parsed = parseLineWebhook(input.body);
  if (!parsed.ok) return { ok: false, ...LINE_ANSWERS.invalidPayload };
  const destination = (JSON.parse(input.body) as { destination?: unknown }).destination;
  return {
    ok: true,
    updates: parsed.events.map(({ updateId, event }) => ({
      updateId,
      body: JSON.stringify({ ...(typeof destination === "string" ? { destination } : {}), event }),
    })),
  };
}
