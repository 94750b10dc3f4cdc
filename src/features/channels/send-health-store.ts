import type { Schema } from "../../storage/migrations";
import { first } from "../../storage/sql";
import { type ChannelSendResult, type SendHealth, sendHealthWorthWriting, withSendResult } from "./send-health";

/** SQL of the channel accounts' send health in the tenant's ChannelInboxObject: one JSON row per channel. */
export const SEND_HEALTH_SCHEMA: Schema = {
  module: "channel-send-health",
  migrations: [
    {
      name: "create channel_send_health",
      sql: "CREATE TABLE channel_send_health (channel TEXT PRIMARY KEY, health TEXT NOT NULL)",
    },
  ],
};

export class SendHealthStore {
  /** The newest health per channel, when newer than its row (sendHealthWorthWriting). */
  private readonly newest = new Map<string, SendHealth>();

  constructor(private readonly sql: SqlStorage) {}

  get(channel: string): SendHealth {
    return this.newest.get(channel) ?? this.stored(channel);
  }

  record(channel: string, result: ChannelSendResult, at: number): void {
    const stored = this.stored(channel);
    const health = withSendResult(this.get(channel), channel, result, at);
    this.newest.set(channel, health);
    if (!sendHealthWorthWriting(stored, health)) return;
    this.sql.exec(
      "INSERT INTO channel_send_health (channel, health) VALUES (?, ?) ON CONFLICT (channel) DO UPDATE SET health = excluded.health",
      channel,
      JSON.stringify(health),
    );
  }

  private stored(channel: string): SendHealth {
    const row = first<{ health: string }>(
      this.sql,
      "SELECT health FROM channel_send_health WHERE channel = ?",
      channel,
    );
    return row ? (JSON.parse(row.health) as SendHealth) : {};
  }
}
