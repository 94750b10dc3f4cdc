import type { Schema } from "../../../storage/migrations";
import { boundRecentRows } from "../../../storage/recent-rows";
import { first } from "../../../storage/sql";
import { BOT_THREAD_TTL_MS, BOT_THREADS_MAX, type BotThreadsPort } from "./threads";

export const BOT_THREADS_SCHEMA: Schema = {
  module: "slack-bot-threads",
  migrations: [
    {
      name: "create slack_bot_threads",
      sql: `CREATE TABLE slack_bot_threads (
        channel_id TEXT NOT NULL,
        thread_ts TEXT NOT NULL,
        posted_at INTEGER NOT NULL,
        PRIMARY KEY (channel_id, thread_ts)
      )`,
    },
    { name: "index slack_bot_threads_age", sql: "CREATE INDEX slack_bot_threads_age ON slack_bot_threads (posted_at)" },
  ],
};

/** SQL of the threads the bot posted in (ChannelInboxObject's storage). */
export class BotThreadsStore implements BotThreadsPort {
  constructor(
    private readonly sql: SqlStorage,
    private readonly maxRows = BOT_THREADS_MAX,
  ) {}

  has(channelId: string, threadTs: string, now: number): boolean {
    return (
      first<{ n: number }>(
        this.sql,
        "SELECT 1 AS n FROM slack_bot_threads WHERE channel_id = ? AND thread_ts = ? AND posted_at > ?",
        channelId,
        threadTs,
        now - BOT_THREAD_TTL_MS,
      ) !== undefined
    );
  }

  note(channelId: string, threadTs: string, now: number): void {
    this.sql.exec(
      `INSERT INTO slack_bot_threads (channel_id, thread_ts, posted_at) VALUES (?, ?, ?)
       ON CONFLICT (channel_id, thread_ts) DO UPDATE SET posted_at = max(posted_at, excluded.posted_at)`,
      channelId,
      threadTs,
      now,
    );
    // Bounded in age and rows: expired threads go, then the oldest past the cap.
    const bounds = { table: "slack_bot_threads", atColumn: "posted_at", cutoff: now - BOT_THREAD_TTL_MS };
    boundRecentRows(this.sql, { ...bounds, maxRows: this.maxRows });
  }
}
