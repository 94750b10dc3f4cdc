import type { SessionRef } from "../contracts/session-api";
import { newEntry } from "../model/entry";
import type { AppendRejected } from "../model/message-limits";
import { oversized, SESSION_MESSAGE_MAX_BYTES } from "../model/message-limits";
import type { MessageRecord } from "../model/message-record";
import { messagePreview } from "../model/session-row";
import type { ImportBody, ImportConflict } from "../protocol/import";
import type { SessionEntry, TranscriptMessage } from "../protocol/session";
import { dropUndefined } from "../util/encoding";

/**
 * Pure rules of an import page: which messages are written (at their source seq, with their
 * source id and time) and what the entry becomes. A seq the session already holds is skipped,
 * which makes pages idempotent and an interrupted import resumable; the held message must be
 * the same one (same id), else the source rewrote its transcript (OpenClaw resets in place)
 * and nothing is written.
 */

export type ImportRow = { record: Omit<MessageRecord, "json">; body: string };
export type ImportPlan = { created: boolean; entry: SessionEntry; rows: ImportRow[]; skipped: number };

/** The session as it is: its entry and how far imports wrote it (null: not an import). */
export type ImportState = { entry: SessionEntry; importedThrough: number | null } | null;

export function planImport(
  current: ImportState,
  ref: SessionRef,
  body: ImportBody,
  now: number,
  /** The id of the message the session holds at a seq ("" or undefined: none). */
  heldId: (seq: number) => string | undefined,
  /** The bytes of messages the session holds, and the most it may hold (the tenant's limit). */
  bytes: { session: number; max: number } = { session: 0, max: SESSION_MESSAGE_MAX_BYTES },
): ImportPlan | ImportConflict | AppendRejected {
  if (current) {
    const refusal = refuse(current, ref.key, body.sessionId) ?? rewritten(current.entry, ref.key, body, heldId);
    if (refusal) return { rejected: "conflict", message: refusal };
  }
  const stored = body.messages.map(({ __openclaw: _position, ...message }) => message as TranscriptMessage);
  const tooLarge = oversized(stored, now);
  if (tooLarge) return tooLarge;

  let entry = current?.entry ?? createdEntry(ref, body, now);
  let lastSeq = entry.messageCount;
  let last: TranscriptMessage | undefined;
  let preview = entry.lastMessagePreview;
  const rows: ImportRow[] = [];
  body.messages.forEach((message, index) => {
    const position = message.__openclaw;
    if (position.seq <= lastSeq) return;
    const kept = stored[index]!;
    rows.push({
      record: {
        seq: position.seq,
        id: position.id,
        role: message.role,
        createdAt: position.recordTimestampMs ?? message.timestamp ?? now,
      },
      body: JSON.stringify(kept),
    });
    lastSeq = position.seq;
    last = kept;
    preview = messagePreview(kept.content) ?? preview;
  });

  // Only what this page writes counts against the session's bytes (a page sent again adds none).
  const written = rows.map((row) => JSON.parse(row.body) as TranscriptMessage);
  const overLimit = oversized(written, now, bytes.session, bytes.max);
  if (overLimit) return overLimit;

  entry = dropUndefined({
    ...entry,
    messageCount: Math.max(lastSeq, body.throughSeq ?? 0),
    updatedAt: Math.max(entry.updatedAt, last?.timestamp ?? 0),
    lastMessagePreview: preview,
    // The source's own fields win, its timestamps and token counters included (imported
    // messages never add to the counters: the source's totals already count them).
    ...dropUndefined(body.entry ?? {}),
  });
  return { created: current === null, entry, rows, skipped: body.messages.length - rows.length };
}

/** Why an import may not write into an existing session, if it may not. */
function refuse(current: NonNullable<ImportState>, key: string, sessionId: string): string | undefined {
  const held = current.entry.sessionId;
  if (held !== sessionId) {
    return `Session ${key} already exists here with another transcript (sessionId ${held}); an import of ${sessionId} does not replace it`;
  }
  if (current.importedThrough === null) {
    return `Session ${key} (sessionId ${held}) was not created by an import; nothing is imported into it`;
  }
  if (current.importedThrough !== current.entry.messageCount) {
    return `Session ${key} has new messages since it was imported; importing more would interleave two histories`;
  }
  return undefined;
}

/** Why a page's already-held messages show the source rewrote its transcript, if they do. */
function rewritten(
  entry: SessionEntry,
  key: string,
  body: ImportBody,
  heldId: (seq: number) => string | undefined,
): string | undefined {
  for (const message of body.messages) {
    const { seq, id } = message.__openclaw;
    if (seq > entry.messageCount) return undefined;
    const held = heldId(seq);
    if (held !== id) {
      return `Session ${key} holds ${held ? `message ${held}` : "no message"} at seq ${seq} where the source now has ${id}: the source's transcript was reset in place or rewritten since it was imported`;
    }
  }
  return undefined;
}

function createdEntry(ref: SessionRef, body: ImportBody, now: number): SessionEntry {
  const createdAt = body.entry?.createdAt ?? body.messages[0]?.timestamp ?? body.entry?.updatedAt ?? now;
  return { ...newEntry(ref, undefined, createdAt), sessionId: body.sessionId };
}
