import type { Schema } from "../../storage/migrations";
import { all, first } from "../../storage/sql";
import type { ChannelTurn } from "./adapter";

/**
 * SQL of the bursts a channel inbox holds (src/features/channels/debounce.ts): each held update with the
 * turn it was decided into, until its burst became one turn. A burst is `sealed` (its members
 * fixed, named by its first update) just before its run starts, so a crash after the start
 * finds the same members and the same run, and a message arriving meanwhile starts a new burst.
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
  ],
};

export type HeldUpdate = { channel: string; updateId: string; turn: ChannelTurn; sealedBy: string | null };
export type Burst = { key: string; channel: string; lastReceivedAt: number };

type HeldRow = { channel: string; update_id: string; turn: string; sealed_by: string | null };

export class DebounceStore {
  constructor(private readonly sql: SqlStorage) {}

  hold(key: string, channel: string, updateId: string, turn: ChannelTurn, receivedAt: number): void {
    this.sql.exec(
      `INSERT INTO channel_bursts (channel, update_id, burst_key, turn, received_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
      channel,
      updateId,
      key,
      JSON.stringify(turn),
      receivedAt,
    );
  }

  /** When the burst's last held message arrived, if it has any. */
  lastArrival(key: string): number | undefined {
    return (
      first<{ last: number | null }>(
        this.sql,
        "SELECT max(received_at) AS last FROM channel_bursts WHERE burst_key = ?",
        key,
      )?.last ?? undefined
    );
  }

  has(key: string): boolean {
    return first(this.sql, "SELECT 1 AS one FROM channel_bursts WHERE burst_key = ? LIMIT 1", key) !== undefined;
  }

  /** Every burst held, with when its last message came (its window runs from there). */
  bursts(): Burst[] {
    return all<{ burst_key: string; channel: string; last: number }>(
      this.sql,
      "SELECT burst_key, min(channel) AS channel, max(received_at) AS last FROM channel_bursts GROUP BY burst_key",
    ).map((row) => ({ key: row.burst_key, channel: row.channel, lastReceivedAt: row.last }));
  }

  /**
   * The members of the burst to turn now, in arrival order: one sealed before (a crash after
   * its seal), else every held update of the key, sealed now by the first of them.
   */
  seal(key: string): HeldUpdate[] {
    const sealed = first<{ sealed_by: string }>(
      this.sql,
      "SELECT sealed_by FROM channel_bursts WHERE burst_key = ? AND sealed_by IS NOT NULL LIMIT 1",
      key,
    );
    if (!sealed) {
      const firstHeld = first<{ update_id: string }>(
        this.sql,
        "SELECT update_id FROM channel_bursts WHERE burst_key = ? ORDER BY received_at, rowid LIMIT 1",
        key,
      );
      if (!firstHeld) return [];
      this.sql.exec("UPDATE channel_bursts SET sealed_by = ? WHERE burst_key = ?", firstHeld.update_id, key);
    }
    const by = sealed?.sealed_by ?? null;
    return all<HeldRow>(
      this.sql,
      `SELECT channel, update_id, turn, sealed_by FROM channel_bursts
       WHERE burst_key = ? AND sealed_by ${by === null ? "IS NOT NULL" : "= ?"} ORDER BY received_at, rowid`,
      ...(by === null ? [key] : [key, by]),
    ).map((row) => ({
      channel: row.channel,
      updateId: row.update_id,
      turn: JSON.parse(row.turn) as ChannelTurn,
      sealedBy: row.sealed_by,
    }));
  }

  /** The updates were handled (in the transaction that finishes them): no longer held. */
  release(members: ReadonlyArray<{ channel: string; updateId: string }>): void {
    for (const member of members) {
      this.sql.exec("DELETE FROM channel_bursts WHERE channel = ? AND update_id = ?", member.channel, member.updateId);
    }
  }
}
