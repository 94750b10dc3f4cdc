import { DEFAULT_LIMITS } from "../policy/limit-rules";
import type { TranscriptMessage } from "../protocol/session";

/**
 * Append outcome for a message over the size limit, or for messages that would take the
 * session past its limit (`sessionBytes`: what it holds now, `maxSessionBytes`: the tenant's
 * transcriptBytesPerSession in force). A result, not a throw: RPC-friendly.
 */
export type AppendRejected = { rejected: "too_large"; bytes: number; sessionBytes?: number; maxSessionBytes?: number };

/** Stays under the platform's 2 MB row limit with room for the row's other columns. */
export const MAX_MESSAGE_BYTES = 1_800_000;

/**
 * Message bytes one session object may hold over all its transcripts (a reset keeps the old
 * ones) by default: the tenant limit transcriptBytesPerSession (src/policy/limit-rules.ts)
 * is the bound in force, this its built-in default.
 */
export const SESSION_MESSAGE_MAX_BYTES = DEFAULT_LIMITS.transcriptBytesPerSession;
/** Past this share of its limit, every append to a session logs `session.nearly_full`. */
export const SESSION_MESSAGE_WARN_SHARE = 0.8;

/**
 * The first message over the size limit, if any, else a refusal when the messages would take
 * the session past `maxSessionBytes` (checked before anything is written).
 */
export function oversized(
  messages: TranscriptMessage[],
  now: number,
  sessionBytes = 0,
  maxSessionBytes = SESSION_MESSAGE_MAX_BYTES,
): AppendRejected | null {
  let adding = 0;
  for (const raw of messages) {
    const bytes = utf8Length(JSON.stringify(raw.timestamp === undefined ? { ...raw, timestamp: now } : raw));
    if (bytes > MAX_MESSAGE_BYTES) return { rejected: "too_large", bytes };
    adding += bytes;
  }
  if (sessionBytes + adding > maxSessionBytes) {
    return { rejected: "too_large", bytes: adding, sessionBytes, maxSessionBytes };
  }
  return null;
}

/** The refusal text for a message over MAX_MESSAGE_BYTES, or for a session that is full. */
export function tooLargeMessage(rejected: {
  bytes: number;
  sessionBytes?: number | undefined;
  maxSessionBytes?: number | undefined;
}): string {
  if (rejected.sessionBytes !== undefined) {
    return `the session holds ${rejected.sessionBytes} bytes of messages; ${rejected.bytes} more would pass the limit of ${rejected.maxSessionBytes ?? SESSION_MESSAGE_MAX_BYTES} bytes per session: continue in a new session`;
  }
  return `message is ${rejected.bytes} bytes of JSON; the limit is ${MAX_MESSAGE_BYTES} bytes per message`;
}

/** Room kept for the marker (and JSON escapes) when a message is cut to fit. */
const CUT_MARGIN_BYTES = 1_024;

/**
 * A message the service wrote itself (a run's reply, a tool's result, a step) cut to fit
 * MAX_MESSAGE_BYTES, where a user's own message would be refused: the run already happened,
 * so its reply is kept, shortened. Its `details` go first (tool results carry the same data
 * as text), then the longest texts lose their end, each followed by a marker saying how many
 * bytes were cut; a message with nothing left to cut keeps only the marker. `cutBytes` is 0
 * for a message that fits (returned as it is); `json` is the message as stored.
 */
export function fitMessage(message: TranscriptMessage): { message: TranscriptMessage; cutBytes: number; json: string } {
  const json = JSON.stringify(message);
  const bytes = utf8Length(json);
  if (bytes <= MAX_MESSAGE_BYTES) return { message, cutBytes: 0, json };
  let fitted: TranscriptMessage = message;
  if ("details" in fitted && fitted.details !== undefined) fitted = { ...fitted, details: { truncated: true } };
  for (let attempt = 0; attempt < 4; attempt++) {
    const size = utf8Length(JSON.stringify(fitted));
    if (size <= MAX_MESSAGE_BYTES) break;
    fitted = cutLongestText(fitted, size - MAX_MESSAGE_BYTES + CUT_MARGIN_BYTES, bytes);
  }
  if (utf8Length(JSON.stringify(fitted)) > MAX_MESSAGE_BYTES) {
    fitted = { ...fitted, content: [{ type: "text", text: cutMarker(bytes) }] } as TranscriptMessage;
    if ("details" in fitted) delete (fitted as { details?: unknown }).details;
  }
  const fittedJson = JSON.stringify(fitted);
  return { message: fitted, cutBytes: bytes - utf8Length(fittedJson), json: fittedJson };
}

/** The marker a cut text ends with. */
export function cutMarker(originalBytes: number): string {
  return `\n\n[truncated: this message was ${originalBytes} bytes of JSON; the limit is ${MAX_MESSAGE_BYTES} bytes per message]`;
}

/** The longest text shortened by about `excess` bytes of JSON (in proportion: texts mix 1- to 4-byte characters). */
function cutLongestText(message: TranscriptMessage, excess: number, originalBytes: number): TranscriptMessage {
  const marker = cutMarker(originalBytes);
  const cut = (text: string) => {
    const bytesPerUnit = utf8Length(JSON.stringify(text)) / Math.max(1, text.length);
    const units = Math.ceil((excess + marker.length * 3) / bytesPerUnit);
    return `${text.slice(0, Math.max(0, text.length - units))}${marker}`;
  };
  const content = message.content as unknown;
  if (typeof content === "string") return { ...message, content: cut(content) } as TranscriptMessage;
  if (!Array.isArray(content)) return message;
  let longest = -1;
  content.forEach((part, i) => {
    const text = (part as { text?: unknown })?.text;
    if (typeof text === "string" && (longest < 0 || text.length > (content[longest] as { text: string }).text.length))
      longest = i;
  });
  if (longest < 0) return message;
  const parts = content.map((part, i) =>
    i === longest ? { ...(part as object), text: cut((part as { text: string }).text) } : part,
  );
  return { ...message, content: parts } as TranscriptMessage;
}

/** UTF-8 byte length; skips encoding when the string cannot possibly be over the limit. */
function utf8Length(text: string): number {
  if (text.length * 3 <= MAX_MESSAGE_BYTES) return text.length;
  return new TextEncoder().encode(text).byteLength;
}
