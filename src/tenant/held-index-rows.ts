import type { IndexColumns, SessionRow } from "../model/session-row";
import type { IndexStore } from "./index-store";
import type { SessionIdsStore } from "./session-ids-store";
import { isNewer } from "./sessions-store";

type HeldRow = { row: SessionRow; version: number; columns: IndexColumns };

/** How long a held row may wait in memory before it is written. */
export const HELD_ROWS_WRITE_MS = 100;

/**
 * Index rows handed over with a fresh message (chat.inject in the tenant object), held in
 * memory in front of the SQL store instead of written at once. A write would keep the answer
 * they came with (and every frame after it) waiting for SQLite's commit; held, the rows of a
 * burst become one write of the newest per key, made before the store's next statement (so a
 * read may write) or within HELD_ROWS_WRITE_MS. Nothing is lost with a crash: the session
 * object handed the row over unacknowledged and sends it again at its retry alarm
 * (Publisher.forgetHandOff).
 */
export class HeldIndexRows {
  /** The newest held row per key. */
  private held = new Map<string, HeldRow>();
  private writeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly store: Pick<IndexStore, "beforeEachStatement" | "upsertSession"> & {
      sessionIds: Pick<SessionIdsStore, "transcriptAsWritten">;
    },
  ) {
    store.beforeEachStatement(() => this.write());
  }

  /**
   * A handed-off row: held when the index knows its transcript; a transcript new to the index
   * is upserted now (recording it), and one of a deleted session is dropped.
   */
  hold(row: SessionRow, version: number, columns: IndexColumns): "stored" | "stale" | "deleted" | "held" {
    const known = this.store.sessionIds.transcriptAsWritten(row.sessionId);
    if (known?.deleted) return "deleted";
    if (!known) return this.store.upsertSession(row, version, columns);
    const held = this.held.get(row.key);
    if (!held || isNewer(row, version, { updatedAt: held.row.updatedAt, version: held.version }))
      this.held.set(row.key, { row, version, columns });
    this.writeTimer ??= setTimeout(() => this.write(), HELD_ROWS_WRITE_MS);
    return "held";
  }

  /** Writes the held rows (each upserted with the store's ordering check). */
  write(): void {
    this.cancelTimer();
    if (this.held.size === 0) return;
    const rows = this.held;
    this.held = new Map();
    for (const { row, version, columns } of rows.values()) {
      try {
        this.store.upsertSession(row, version, columns);
      } catch (error) {
        // The others are still written; the session sends this one again at its alarm.
        console.error(`index: a held row of ${row.key} could not be written`, error);
      }
    }
  }

  /** Forgets the held rows (the tenant's storage is being dropped). */
  discard(): void {
    this.cancelTimer();
    this.held.clear();
  }

  private cancelTimer(): void {
    if (this.writeTimer !== undefined) clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
  }
}
