import type { ChannelSender } from "../adapter";
import { PAIRING_KIND } from "../adapter";
import { type PartRefused, sendOnePart } from "../send-parts";
import { type ChatApi, GOOGLECHAT_TYPING_TEXT, googleChatChunks, parseGoogleChatSpace } from "./chat-api";

/**
 * Google Chat's side of "exactly once": every message this service creates carries a
 * client-assigned id (`messageId=client-…`, the Chat API's own idempotency: the same id again
 * is `409 ALREADY_EXISTS`, never a second message), derived from what it answers. The typing
 * placeholder of a turn is `client-<hash of the inbound message name>`, so the reply, however
 * many times the outbox tries it and wherever it runs, PATCHes that very message; its further
 * parts are `…-<part>`. A resend after a crash between Google's 200 and the outbox's record is
 * a 409 (counted as sent) or the same PATCH again, not a duplicate.
 */

/** The run id's form of a turn's reply delivery key (inbox.ts `turnRunId` + reply.ts `:reply`). */
const TURN_REPLY_KEY = /^googlechat:(spaces\/[^/]+\/messages\/[^:]+):reply$/;

/** `client-` + 40 hex digits of SHA-256(seed): within the API's 63 characters, letters, digits and hyphens. */
export async function clientMessageId(seed: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(seed)));
  const hex = Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `client-${hex.slice(0, 40)}`;
}

/** The placeholder's client id for an inbound message (`spaces/…/messages/…`). */
export function placeholderIdOf(inboundMessageName: string): Promise<string> {
  return clientMessageId(`turn:${inboundMessageName}`);
}

/** Posts the `_OpenClaw is typing..._` placeholder of a turn (OpenClaw's `typingIndicator: "message"`); best effort. */
export async function postTypingPlaceholder(api: ChatApi, space: string, inboundMessageName: string): Promise<void> {
  const id = await placeholderIdOf(inboundMessageName);
  await api.request("POST", api.url(`${space}/messages`, `?messageId=${id}`), { text: GOOGLECHAT_TYPING_TEXT });
}

const ok = (status: number) => status >= 200 && status <= 299;

/**
 * The outbox's sender: a turn's reply into its placeholder (created when it is missing), every
 * other part and message created under its client id; a pairing code as one plain message.
 * `onUnauthorized` drops the cached access token (a revoked or expired one).
 */
export function googleChatSender(
  api: ChatApi,
  credentials: () => readonly string[],
  onUnauthorized: () => void,
): ChannelSender {
  return {
    get credentials() {
      return credentials();
    },
    async send(delivery, fromPart) {
      const space = parseGoogleChatSpace(delivery.target.to);
      if (!space) return { partsSent: fromPart, error: `not a Google Chat space: ${delivery.target.to}`, final: true };
      const part = fromPart;
      try {
        if (delivery.kind === PAIRING_KIND) {
          const answer = await api.request("POST", api.url(`${space}/messages`), { text: delivery.message });
          return ok(answer.status) ? { partsSent: 1 } : { partsSent: 0, ...failed(answer, onUnauthorized) };
        }
        // The outbox hands over its whole Delivery row: its key names the turn it answers.
        const key = (delivery as { idempotencyKey?: string }).idempotencyKey ?? delivery.message;
        const inbound = TURN_REPLY_KEY.exec(key)?.[1];
        const baseId = inbound ? await placeholderIdOf(inbound) : await clientMessageId(`delivery:${key}`);
        // One message per call: the outbox sends the next a pace later (../send-parts.ts).
        return await sendOnePart(googleChatChunks(delivery.message), part, async (text) => {
          const answer =
            part === 0 && inbound
              ? await intoPlaceholder(api, space, baseId, text)
              : await createOnce(api, space, part === 0 ? baseId : `${baseId}-${part}`, text);
          return ok(answer.status) ? null : failed(answer, onUnauthorized);
        });
      } catch (error) {
        return { partsSent: part, error: `Chat API: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
  };
}

/** The first part PATCHed into the placeholder; a missing placeholder (its POST failed) created with its id. */
async function intoPlaceholder(api: ChatApi, space: string, id: string, text: string): Promise<ChatAnswer> {
  const name = `${space}/messages/${id}`;
  const patched = await api.request("PATCH", api.url(name, "?updateMask=text"), { text });
  if (patched.status !== 404) return patched;
  const created = await api.request("POST", api.url(`${space}/messages`, `?messageId=${id}`), { text });
  // Created meanwhile (the placeholder's POST arrived late): replace its text after all.
  if (created.status === 409) return api.request("PATCH", api.url(name, "?updateMask=text"), { text });
  return created;
}

/** A message created under its client id; 409 means it already was (a resend): sent. */
async function createOnce(api: ChatApi, space: string, id: string, text: string): Promise<ChatAnswer> {
  const answer = await api.request("POST", api.url(`${space}/messages`, `?messageId=${id}`), { text });
  return answer.status === 409 ? { status: 200, body: answer.body } : answer;
}

type ChatAnswer = { status: number; body: Record<string, unknown>; retryAfter?: string | null };

/** Google's error text with the status; final when the space or the app's access is gone (retrying cannot help). */
function failed(answer: ChatAnswer, onUnauthorized: () => void): PartRefused {
  if (answer.status === 401) onUnauthorized();
  const error = answer.body.error as { message?: unknown } | undefined;
  const detail = typeof error?.message === "string" ? `: ${error.message.slice(0, 300)}` : "";
  const final = answer.status === 403 || answer.status === 404;
  const refusal = { status: answer.status, retryAfter: answer.retryAfter ?? null, body: answer.body };
  return {
    error: `Chat API answered ${answer.status}${detail}`,
    refusal,
    ...(final ? { final: true } : {}),
  };
}
