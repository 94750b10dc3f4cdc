import type { Schema } from "../../storage/migrations";
import { all } from "../../storage/sql";
import type { HistoryLine } from "./inbound-envelope";

/**
 * SQL of the recent group messages that did not address the bot (ChannelInboxObject), given to
 * the model as OpenClaw's `Conversation context` when the bot is next addressed in that chat,
 * then cleared. Bounded: OpenClaw's group history limit per chat, GROUP_HISTORY_TOTAL_MAX rows
 * per tenant (oldest pruned first), each text cut at GROUP_HISTORY_TEXT_MAX_CHARS.
 */
export const GROUP_HISTORY_SCHEMA: Schema = {
  module: "channel-group-history",
  migrations: [
    {
      name: "create channel_group_history",
      sql: `CREATE TABLE channel_group_history (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_key TEXT NOT NULL,
        message_id TEXT NOT NULL,
        at_ms INTEGER NOT NULL,
        sender_name TEXT NOT NULL,
        text TEXT NOT NULL
      )`,
    },
    {
      name: "index channel_group_history_chat",
      sql: "CREATE INDEX channel_group_history_chat ON channel_group_history (chat_key, seq)",
    },
  ],
};

/** OpenClaw's default group history limit (`messages.groupChat.historyLimit`). */
export const GROUP_HISTORY_LIMIT = 50;
export const GROUP_HISTORY_TOTAL_MAX = 2_000;
export const GROUP_HISTORY_TEXT_MAX_CHARS = 2_000;

/** A chat's unmentioned messages, kept for its next turn. */
export type GroupHistoryPort = {
  record(chatKey: string, line: HistoryLine): void;
  /** The chat's kept lines, oldest first, and the last one's position (for `clear`). */
  recent(chatKey: string): { lines: HistoryLine[]; upTo: number };
  clear(chatKey: string, upTo: number): void;
};

export class GroupHistoryStore implements GroupHistoryPort {
  constructor(private readonly sql: SqlStorage) {}

  record(chatKey: string, line: HistoryLine): void {
    this.sql.exec(
      "INSERT INTO channel_group_history (chat_key, message_id, at_ms, sender_name, text) VALUES (?, ?, ?, ?, ?)",
      chatKey,
      line.messageId,
      line.timestampMs,
      line.senderName.slice(0, GROUP_HISTORY_TEXT_MAX_CHARS),
      line.text.slice(0, GROUP_HISTORY_TEXT_MAX_CHARS),
    );
    this.sql.exec(
      `DELETE FROM channel_group_history WHERE chat_key = ? AND seq NOT IN
        (SELECT seq FROM channel_group_history WHERE chat_key = ? ORDER BY seq DESC LIMIT ?)`,
      chatKey,
      chatKey,
      GROUP_HISTORY_LIMIT,
    );
    this.sql.exec(
      `DELETE FROM channel_group_history WHERE seq <=
        (SELECT seq FROM channel_group_history ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
      GROUP_HISTORY_TOTAL_MAX,
    );
  }

  recent(chatKey: string): { lines: HistoryLine[]; upTo: number } {
    const rows = all<{ seq: number; message_id: string; at_ms: number; sender_name: string; text: string }>(
      this.sql,
      "SELECT seq, message_id, at_ms, sender_name, text FROM channel_group_history WHERE chat_key = ? ORDER BY seq",
      chatKey,
    );
    return {
      lines: rows.map((r) => ({
        messageId: r.message_id,
        timestampMs: r.at_ms,
        senderName: r.sender_name,
        text: r.text,
      })),
      upTo: rows.at(-1)?.seq ?? 0,
    };
  }

  clear(chatKey: string, upTo: number): void {
    this.sql.exec("DELETE FROM channel_group_history WHERE chat_key = ? AND seq <= ?", chatKey, upTo);
  }
}
