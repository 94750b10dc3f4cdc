import type { Schema } from "../storage/migrations";
import { first } from "../storage/sql";
import { type ChannelSendResult, type SendHealth, withSendResult } from "./send-health";

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
  constructor(private readonly sql: SqlStorage) {}

  get(channel: string): SendHealth {
    const row = first<{ health: string }>(
      this.sql,
      "SELECT health FROM channel_send_health WHERE channel = ?",
      channel,
    );
    return row ? (JSON.parse(row.health) as SendHealth) : {};
  }

  record(channel: string, result: ChannelSendResult, at: number): void {
    const health = withSendResult(this.get(channel), channel, result, at);
    this.sql.exec(
      "INSERT INTO channel_send_health (channel, health) VALUES (?, ?) ON CONFLICT (channel) DO UPDATE SET health = excluded.health",
      channel,
      JSON.stringify(health),
    );
  }
}
