import type { Schema } from "../../storage/migrations";
import { first } from "../../storage/sql";

/**
 * SQL of conversation references in the tenant's ChannelInboxObject: where a platform reaches a
 * conversation when it cannot be named by its id alone (Teams: the Bot Connector `serviceUrl`
 * of the conversation's latest authenticated activity, as the Bot Framework SDKs keep a
 * "conversation reference"). A reply, a typing indicator, an announce or a hook delivery reads
 * it. Bounded: CONVERSATION_REFERENCES_MAX per channel, the least recently seen pruned first.
 */
export const CONVERSATION_REFERENCE_SCHEMA: Schema = {
  module: "channel-conversation-references",
  migrations: [
    {
      name: "create channel_conversation_references",
      sql: `CREATE TABLE channel_conversation_references (
        channel TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        reference TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (channel, conversation_id)
      )`,
    },
    {
      name: "index channel_conversation_references_age",
      sql: "CREATE INDEX channel_conversation_references_age ON channel_conversation_references (channel, updated_at)",
    },
  ],
};

/** Conversations remembered per channel; past this the least recently seen is forgotten. */
export const CONVERSATION_REFERENCES_MAX = 10_000;

/** Reads a conversation's reference (null: never seen, or forgotten). */
export type ConversationReferences = {
  reference(channel: string, conversationId: string): Promise<string | null>;
};

/** Reads and keeps conversation references (the inbox's side: it sees the activities). */
export type ConversationMemory = ConversationReferences & {
  remember(channel: string, conversationId: string, reference: string): void;
};

export class ConversationReferenceStore implements ConversationMemory {
  constructor(
    private readonly sql: SqlStorage,
    private readonly now: () => number = Date.now,
    private readonly max = CONVERSATION_REFERENCES_MAX,
  ) {}

  /** Keeps the latest reference; an older activity (a redelivery) does not overwrite a newer one. */
  remember(channel: string, conversationId: string, reference: string, at = this.now()): void {
    const known = first<{ updated_at: number }>(
      this.sql,
      "SELECT updated_at FROM channel_conversation_references WHERE channel = ? AND conversation_id = ?",
      channel,
      conversationId,
    );
    if (known) {
      this.sql.exec(
        "UPDATE channel_conversation_references SET reference = ?, updated_at = ? " +
          "WHERE channel = ? AND conversation_id = ? AND updated_at <= ?",
        reference,
        at,
        channel,
        conversationId,
        at,
      );
      return;
    }
    this.sql.exec(
      "INSERT INTO channel_conversation_references (channel, conversation_id, reference, updated_at) VALUES (?, ?, ?, ?)",
      channel,
      conversationId,
      reference,
      at,
    );
    this.sql.exec(
      "DELETE FROM channel_conversation_references WHERE channel = ? AND conversation_id IN " +
        "(SELECT conversation_id FROM channel_conversation_references WHERE channel = ? " +
        "ORDER BY updated_at DESC LIMIT -1 OFFSET ?)",
      channel,
      channel,
      this.max,
    );
  }

  async reference(channel: string, conversationId: string): Promise<string | null> {
    return (
      first<{ reference: string }>(
        this.sql,
        "SELECT reference FROM channel_conversation_references WHERE channel = ? AND conversation_id = ?",
        channel,
        conversationId,
      )?.reference ?? null
    );
  }
}
