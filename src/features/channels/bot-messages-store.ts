import type { Schema } from "../../storage/migrations";
import { boundRecentRows } from "../../storage/recent-rows";
import { first } from "../../storage/sql";
import { BOT_MESSAGE_TTL_MS, BOT_MESSAGES_MAX, type BotMessagesPort } from "./bot-messages";

export const BOT_MESSAGES_SCHEMA: Schema = {
  module: "bot-messages",
  migrations: [
    {
      name: "create bot_messages",
      sql: `CREATE TABLE bot_messages (
        channel TEXT NOT NULL,
        message_id TEXT NOT NULL,
        sent_at INTEGER NOT NULL,
        PRIMARY KEY (channel, message_id)
      )`,
    },
    { name: "index bot_messages_age", sql: "CREATE INDEX bot_messages_age ON bot_messages (sent_at)" },
  ],
};

/** SQL of the bot's recent messages (ChannelInboxObject's storage; bot-messages.ts). */
export class BotMessagesStore implements BotMessagesPort {
  constructor(
    private readonly sql: SqlStorage,
    private readonly maxRows = BOT_MESSAGES_MAX,
  ) {}

  has(channel: string, messageId: string, now: number): boolean {
    const row = first<{ n: number }>(
      this.sql,
      "SELECT 1 AS n FROM bot_messages WHERE channel = ? AND message_id = ? AND sent_at > ?",
      channel,
      messageId,
      now - BOT_MESSAGE_TTL_MS,
    );
    return row !== undefined;
  }

  note(channel: string, messageIds: readonly string[], now: number): void {
    if (messageIds.length === 0) return;
    for (const messageId of messageIds) {
      this.sql.exec(
        "INSERT OR REPLACE INTO bot_messages (channel, message_id, sent_at) VALUES (?, ?, ?)",
        channel,
        messageId,
        now,
      );
    }
    const bounds = { table: "bot_messages", atColumn: "sent_at", cutoff: now - BOT_MESSAGE_TTL_MS };
    boundRecentRows(this.sql, { ...bounds, maxRows: this.maxRows });
  }
}
