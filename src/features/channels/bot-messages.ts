/**
 * The bot's own recent messages per channel, as the platforms name them (LINE's
 * `sentMessages[].id`): a user's quote of one of them addresses the bot as a mention does.
 * The senders return the ids of what they sent (SendOutcome.sentMessageIds), the outbox reports
 * them with the send's result, and the tenant's channel inbox keeps them, bounded as Slack's
 * bot threads are (slack/threads.ts): BOT_MESSAGES_MAX rows per inbox, BOT_MESSAGE_TTL_MS of age.
 */

/** A quote of a bot message older than this no longer counts as a mention (OpenClaw's sent caches keep 24 hours). */
export const BOT_MESSAGE_TTL_MS = 24 * 60 * 60 * 1_000;
/** At most this many bot messages remembered per inbox (oldest dropped first). */
export const BOT_MESSAGES_MAX = 5_000;

/** What the routing asks of the remembered bot messages (and what the inbox tells them). */
export type BotMessagesPort = {
  /** Whether `messageId` is a message the bot sent on `channel` within the TTL. */
  has(channel: string, messageId: string, now: number): boolean;
  /** Remembers messages the bot just sent on `channel`. */
  note(channel: string, messageIds: readonly string[], now: number): void;
};
