import type { TranscriptMessage } from "../protocol/session";

/** Append outcome for a message over the size limit (a result, not a throw: RPC-friendly). */
export type AppendRejected = { rejected: "too_large"; bytes: number };

/** Stays under the platform's 2 MB row limit with room for the row's other columns. */
export const MAX_MESSAGE_BYTES = 1_800_000;

/** The first message over the size limit, if any (checked before anything is written). */
export function oversized(messages: TranscriptMessage[], now: number): AppendRejected | null {
  for (const raw of messages) {
    const bytes = utf8Length(JSON.stringify(raw.timestamp === undefined ? { ...raw, timestamp: now } : raw));
    if (bytes > MAX_MESSAGE_BYTES) return { rejected: "too_large", bytes };
  }
  return null;
}

/** The refusal text for a message over MAX_MESSAGE_BYTES. */
export function tooLargeMessage(bytes: number): string {
  return `message is ${bytes} bytes of JSON; the limit is ${MAX_MESSAGE_BYTES} bytes per message`;
}

/** UTF-8 byte length; skips encoding when the string cannot possibly be over the limit. */
function utf8Length(text: string): number {
  if (text.length * 3 <= MAX_MESSAGE_BYTES) return text.length;
  return new TextEncoder().encode(text).byteLength;
}
