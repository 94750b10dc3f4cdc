import { first, type SqlExec } from "../storage/sql";

/**
 * The `session_progress` and `message_bytes` tables of the tenant index: per session, its
 * message bytes as its last update said and the fan-out high-water mark (one row, written
 * once per update); and their tenant-wide byte total (message_bytes, key ''), kept by
 * difference for the transcriptBytesPerTenant limit, never summed over rows.
 */
export class SessionProgressStore {
  constructor(private readonly sql: SqlExec) {}

  /**
   * What a session's update changes here, in one row: its message bytes (the tenant's total
   * moves by the difference) when `messageBytes` is given, and the messages not fanned out
   * before when `messages` is (the high-water mark moves to the last). Returns those messages.
   */
  recordProgress<M extends { seq: number }>(
    key: string,
    sessionId: string,
    messageBytes: number | undefined,
    messages: M[] | undefined,
  ): M[] {
    if (key === "") return messages ?? [];
    const row = first<{ bytes: number; delivered_session_id: string | null; delivered_seq: number }>(
      this.sql,
      "SELECT bytes, delivered_session_id, delivered_seq FROM session_progress WHERE key = ?",
      key,
    );
    const before = {
      bytes: row?.bytes ?? 0,
      sessionId: row?.delivered_session_id ?? null,
      seq: row?.delivered_seq ?? 0,
    };
    const after = before.sessionId === sessionId ? before.seq : 0;
    const fresh = messages?.filter((m) => m.seq > after) ?? [];
    const bytes = messageBytes ?? before.bytes;
    const delivered = fresh.length > 0 ? { sessionId, seq: fresh.at(-1)!.seq } : before;
    if (bytes === before.bytes && delivered === before) return fresh;
    this.sql.exec(
      `INSERT INTO session_progress (key, bytes, delivered_session_id, delivered_seq) VALUES (?, ?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET bytes = excluded.bytes, delivered_session_id = excluded.delivered_session_id,
         delivered_seq = excluded.delivered_seq`,
      key,
      bytes,
      delivered.sessionId,
      delivered.seq,
    );
    if (bytes !== before.bytes) this.addToMessageBytesTotal(bytes - before.bytes);
    return fresh;
  }

  /** The message bytes of all the tenant's sessions, as their last updates said. */
  messageBytesTotal(): number {
    return first<{ bytes: number }>(this.sql, "SELECT bytes FROM message_bytes WHERE key = ''")?.bytes ?? 0;
  }

  /** Forgets a removed session's progress; its bytes leave the tenant's total. */
  remove(key: string): void {
    const removed =
      key === ""
        ? null
        : first<{ bytes: number }>(this.sql, "DELETE FROM session_progress WHERE key = ? RETURNING bytes", key);
    if (removed) this.addToMessageBytesTotal(-removed.bytes);
  }

  private addToMessageBytesTotal(delta: number): void {
    this.sql.exec(
      "INSERT INTO message_bytes (key, bytes) VALUES ('', ?) ON CONFLICT(key) DO UPDATE SET bytes = max(0, bytes + excluded.bytes)",
      delta,
    );
  }
}
