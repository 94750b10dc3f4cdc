import type { SessionEntry, SessionMarks } from "../protocol/session";

/**
 * The Control UI's session marks (OpenClaw's sessions.patch `unread` / `pinned` / `archived`)
 * as entry fields, and the row flags derived from them. Pure.
 */

/** Entry fields a marks patch sets (number) or clears (null). */
export type MarkFields = {
  pinnedAt?: number | null;
  markedUnreadAt?: number | null;
  lastReadAt?: number | null;
  archivedAt?: number | null;
};

export function markFields(marks: SessionMarks, now: number): MarkFields {
  const fields: MarkFields = {};
  if (marks.unread === true) fields.markedUnreadAt = now;
  if (marks.unread === false) {
    fields.lastReadAt = now;
    fields.markedUnreadAt = null;
  }
  if (marks.pinned !== undefined) fields.pinnedAt = marks.pinned ? now : null;
  // Archiving unpins (OpenClaw); restoring leaves the pin as it is.
  if (marks.archived === true) {
    fields.archivedAt = now;
    fields.pinnedAt = null;
  }
  if (marks.archived === false) fields.archivedAt = null;
  return fields;
}

/** Why a marks patch cannot apply to this entry, in OpenClaw's words; null when it can. */
export function marksProblem(marks: SessionMarks, entry: SessionEntry | null, key: string): string | null {
  const others = Object.entries(marks).filter(
    ([field, value]) => value !== undefined && !["unread", "expectedMarkedUnreadAt", "agentId"].includes(field),
  );
  if (marks.expectedMarkedUnreadAt !== undefined && (marks.unread !== false || others.length > 0)) {
    return "expectedMarkedUnreadAt requires unread=false as the only mutation.";
  }
  if (marks.archived !== undefined && marks.expectedSessionId === undefined) {
    return `expectedSessionId required for session lifecycle patch: ${key}`;
  }
  if (marks.pinned === true && marks.archived !== false && entry?.archivedAt !== undefined) {
    return "cannot pin an archived session; restore it first";
  }
  return null;
}

/**
 * Whether a guarded patch is stale and must not apply (answered ok, unchanged, as OpenClaw does):
 * the unread mark moved since the client saw it, or the session was reset under it.
 */
export function marksStale(marks: SessionMarks, entry: SessionEntry | null): boolean {
  if (marks.expectedMarkedUnreadAt !== undefined && (entry?.markedUnreadAt ?? null) !== marks.expectedMarkedUnreadAt) {
    return true;
  }
  return marks.expectedSessionId !== undefined && entry !== null && entry.sessionId !== marks.expectedSessionId;
}

/** OpenClaw's row flags: unread when marked, or when something happened after the last read. */
export function markFlags(
  entry: Pick<SessionEntry, "markedUnreadAt" | "lastReadAt" | "lastInteractionAt" | "pinnedAt" | "archivedAt">,
) {
  const unread =
    entry.markedUnreadAt !== undefined ||
    (entry.lastInteractionAt !== undefined && entry.lastInteractionAt > (entry.lastReadAt ?? 0));
  return { unread, pinned: entry.pinnedAt !== undefined, archived: entry.archivedAt !== undefined };
}
