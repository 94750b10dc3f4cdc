import type { Schema } from "../../storage/migrations";
import { all, first } from "../../storage/sql";
import type { ChannelTurn } from "./adapter";

/**
 * SQL of the bursts a channel inbox holds (src/features/channels/debounce.ts): each held update
 * with the turn it was decided into, until its burst became one turn. A burst is `sealed` (its
 * members fixed, named by its first update) just before its run starts, so a crash after the start
 * finds the same members and the same run, and a message arriving meanwhile starts a new burst.
 *
 * A held update is its own row in `channel_updates` (inbox-store.ts), still `pending` but with
 * its `burst_key` and `turn` set, so the drain passes it by (its pending index keeps the few open
 * updates, so every query here reads only those). Billing (issue 48): a burst table of its own
 * wrote three rows per held update (the row, its key, its burst index), the update's move to
 * `held` two more, its release one: six rows per debounced DM, now one (the hold's update of
 * columns no index covers).
 */
export const DEBOUNCE_SCHEMA: Schema = {
  module: "channel-debounce",
  migrations: [
    {
      name: "create channel_bursts",
      sql: `CREATE TABLE channel_bursts (
        channel TEXT NOT NULL,
        update_id TEXT NOT NULL,
        burst_key TEXT NOT NULL,
        turn TEXT NOT NULL,
        received_at INTEGER NOT NULL,
        sealed_by TEXT,
        PRIMARY KEY (channel, update_id)
      )`,
    },
    { name: "index channel_bursts_key", sql: "CREATE INDEX channel_bursts_key ON channel_bursts (burst_key)" },
    // Billing (issue 48): the held updates' burst columns move onto their own rows. A burst held
    // by an older version keeps its members, turns and seal, and its updates are pending again.
    {
      name: "bursts on channel_updates",
      sql: `ALTER TABLE channel_updates ADD COLUMN burst_key TEXT;
        ALTER TABLE channel_updates ADD COLUMN turn TEXT;
        ALTER TABLE channel_updates ADD COLUMN sealed_by TEXT;
        UPDATE channel_updates SET
            state = 'pending',
            burst_key = (SELECT b.burst_key FROM channel_bursts b
              WHERE b.channel = channel_updates.channel AND b.update_id = channel_updates.update_id),
            turn = (SELECT b.turn FROM channel_bursts b
              WHERE b.channel = channel_updates.channel AND b.update_id = channel_updates.update_id),
            sealed_by = (SELECT b.sealed_by FROM channel_bursts b
              WHERE b.channel = channel_updates.channel AND b.update_id = channel_updates.update_id)
          WHERE state = 'held';
        DROP TABLE channel_bursts`,
    },
  ],
};

export type HeldUpdate = { channel: string; updateId: string; turn: ChannelTurn; sealedBy: string | null };
export type Burst = { key: string; channel: string; lastReceivedAt: number };

type HeldRow = { channel: string; update_id: string; turn: string; sealed_by: string | null };

/** The open updates a burst holds (the `pending` index's rows with a burst). */
const HELD = "state = 'pending' AND burst_key";

export class DebounceStore {
  constructor(private readonly sql: SqlStorage) {}

  /** Holds an accepted update for the burst `key` (the drain passes it by from now on). */
  hold(key: string, channel: string, updateId: string, turn: ChannelTurn): void {
    this.sql.exec(
      "UPDATE channel_updates SET burst_key = ?, turn = ? WHERE channel = ? AND update_id = ? AND state = 'pending'",
      key,
      JSON.stringify(turn),
      channel,
      updateId,
    );
  }

  /** When the burst's last held message arrived, if it has any. */
  lastArrival(key: string): number | undefined {
    return (
      first<{ last: number | null }>(
        this.sql,
        `SELECT max(received_at) AS last FROM channel_updates WHERE ${HELD} = ?`,
        key,
      )?.last ?? undefined
    );
  }

  has(key: string): boolean {
    return first(this.sql, `SELECT 1 AS one FROM channel_updates WHERE ${HELD} = ? LIMIT 1`, key) !== undefined;
  }

  /** Every burst held, with when its last message came (its window runs from there). */
  bursts(): Burst[] {
    return all<{ burst_key: string; channel: string; last: number }>(
      this.sql,
      `SELECT burst_key, min(channel) AS channel, max(received_at) AS last FROM channel_updates
       WHERE ${HELD} IS NOT NULL GROUP BY burst_key`,
    ).map((row) => ({ key: row.burst_key, channel: row.channel, lastReceivedAt: row.last }));
  }

  /**
   * The members of the burst to turn now, in arrival order: one sealed before (a crash after
   * its seal), else every held update of the key, sealed now by the first of them. A seal now
   * also records the first member's typing acknowledgement as sent (`acked`), as the turn would
   * record it before sending it (one row written, not two): `ackOwed` says the turn still sends it.
   */
  seal(key: string): { members: HeldUpdate[]; ackOwed: boolean } {
    const sealed = first<{ sealed_by: string }>(
      this.sql,
      `SELECT sealed_by FROM channel_updates WHERE ${HELD} = ? AND sealed_by IS NOT NULL LIMIT 1`,
      key,
    );
    let ackOwed = false;
    if (!sealed) {
      const firstHeld = first<{ update_id: string; acked: number }>(
        this.sql,
        `SELECT update_id, acked FROM channel_updates WHERE ${HELD} = ? ORDER BY received_at, rowid LIMIT 1`,
        key,
      );
      if (!firstHeld) return { members: [], ackOwed };
      ackOwed = firstHeld.acked === 0;
      this.sql.exec(
        `UPDATE channel_updates SET sealed_by = ?1, acked = CASE WHEN update_id = ?1 THEN 1 ELSE acked END
         WHERE ${HELD} = ?2`,
        firstHeld.update_id,
        key,
      );
    }
    const by = sealed?.sealed_by ?? null;
    const members = all<HeldRow>(
      this.sql,
      `SELECT channel, update_id, turn, sealed_by FROM channel_updates
       WHERE ${HELD} = ? AND sealed_by ${by === null ? "IS NOT NULL" : "= ?"} ORDER BY received_at, rowid`,
      ...(by === null ? [key] : [key, by]),
    ).map((row) => ({
      channel: row.channel,
      updateId: row.update_id,
      turn: JSON.parse(row.turn) as ChannelTurn,
      sealedBy: row.sealed_by,
    }));
    return { members, ackOwed };
  }
}
