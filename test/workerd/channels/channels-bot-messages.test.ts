import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BOT_MESSAGE_TTL_MS } from "../../../src/features/channels/bot-messages";
import { BotMessagesStore } from "../../../src/features/channels/bot-messages-store";

/**
 * The bot's own recent messages (issue 47, LINE: a quote of the bot's message is a mention): the
 * ids a send reports reach the tenant's ChannelInboxObject through recordSend (the RPC the
 * session's outbox calls), are kept per channel, bounded in age and rows.
 */

describe("the bot's messages in the channel inbox", () => {
  it("recordSend keeps the ids of a successful send under its channel; a failure or another channel adds none", async () => {
    const inbox = env.CHANNEL_INBOX.getByName("bot-messages-record");
    await inbox.recordSend("line", { ok: true, sentMessageIds: ["600001", "600002"] });
    await inbox.recordSend("line", { ok: false, error: "line answered 500" });
    await runInDurableObject(inbox, (_object, state) => {
      const messages = new BotMessagesStore(state.storage.sql);
      const now = Date.now();
      expect(messages.has("line", "600001", now)).toBe(true);
      expect(messages.has("line", "600002", now)).toBe(true);
      expect(messages.has("line", "600003", now)).toBe(false);
      expect(messages.has("telegram", "600001", now)).toBe(false);
    });
  });

  it("is bounded: forgotten after 24 hours, the oldest dropped past the row cap", async () => {
    await runInDurableObject(env.CHANNEL_INBOX.getByName("bot-messages-bounds"), (_object, state) => {
      const messages = new BotMessagesStore(state.storage.sql, 3);
      const at = 1_800_000_000_000;
      messages.note("line", ["m1"], at);
      expect(messages.has("line", "m1", at + BOT_MESSAGE_TTL_MS - 1)).toBe(true);
      expect(messages.has("line", "m1", at + BOT_MESSAGE_TTL_MS)).toBe(false);
      messages.note("line", ["m2", "m3"], at + 2);
      messages.note("line", ["m4"], at + 4);
      expect(["m1", "m2", "m3", "m4"].map((id) => messages.has("line", id, at + 10))).toEqual([
        false,
        true,
        true,
        true,
      ]);
      // An expired message is deleted on the next note.
      messages.note("line", ["m5"], at + BOT_MESSAGE_TTL_MS + 100);
      const rows = state.storage.sql.exec("SELECT message_id FROM bot_messages").toArray();
      expect(rows.map((row) => row.message_id)).toEqual(["m5"]);
    });
  });
});
