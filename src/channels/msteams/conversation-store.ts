import type { Schema } from "../../storage/migrations";
import { first } from "../../storage/sql";
import type { ConversationReferences } from "./connector";

/**
 * SQL of Teams' conversation references in the tenant's ChannelInboxObject: the Bot Connector
 * (serviceUrl) of each conversation, from its latest authenticated activity. A reply, a typing
 * indicator, an announce or a hook delivery to `msteams:conversation:<id>` is sent there (the
 * Bot Framework has no other way to name it; the SDKs keep the same "conversation reference").
 */
export const MSTEAMS_CONVERSATIONS_SCHEMA: Schema = {
  module: "msteams-conversations",
  migrations: [
    {
      name: "create msteams_conversations",
      sql: "CREATE TABLE msteams_conversations (conversation_id TEXT PRIMARY KEY, service_url TEXT NOT NULL, updated_at INTEGER NOT NULL)",
    },
  ],
};

export class MsTeamsConversationStore implements ConversationReferences {
  constructor(private readonly sql: SqlStorage) {}

  /** Remembers where a conversation's connector is (the activity passed the token and serviceUrl checks). */
  remember(conversationId: string, serviceUrl: string, at: number): void {
    this.sql.exec(
      "INSERT INTO msteams_conversations (conversation_id, service_url, updated_at) VALUES (?, ?, ?) " +
        "ON CONFLICT (conversation_id) DO UPDATE SET service_url = excluded.service_url, updated_at = excluded.updated_at " +
        "WHERE excluded.updated_at >= msteams_conversations.updated_at",
      conversationId,
      serviceUrl,
      at,
    );
  }

  async serviceUrl(conversationId: string): Promise<string | null> {
    return (
      first<{ service_url: string }>(
        this.sql,
        "SELECT service_url FROM msteams_conversations WHERE conversation_id = ?",
        conversationId,
      )?.service_url ?? null
    );
  }
}
