/**
 * Slack thread follow-ups, as OpenClaw's Slack monitor decides them: in a channel, a reply in a
 * thread without a new `<@bot>` still addresses the bot (an implicit mention: 👀, answered in
 * the thread, session `…:thread:<thread_ts>`) when the thread is under the bot's own message
 * (Slack's `parent_user_id` is the bot user, OpenClaw's "reply_to_bot") or the bot has posted in
 * that thread (OpenClaw's "bot_thread_participant", its sent-thread cache). A thread the bot
 * never posted in stays unaddressed. DMs are not concerned (a DM is always answered).
 *
 * The threads the bot posted in are remembered by the inbox when it starts a turn whose reply
 * goes into a thread (the reply is what the bot posts there), bounded as OpenClaw bounds its
 * cache: BOT_THREADS_MAX rows per inbox (oldest dropped first) and BOT_THREAD_TTL_MS of age.
 */

/** OpenClaw's sent-thread cache: a thread stays the bot's for 24 hours after it last posted there. */
export const BOT_THREAD_TTL_MS = 24 * 60 * 60 * 1_000;
/** OpenClaw's cache size: at most 5,000 threads remembered (per inbox here). */
export const BOT_THREADS_MAX = 5_000;

/** What the routing asks of the remembered threads. */
export type BotThreadsPort = {
  /** Whether the bot posted in the thread `threadTs` of `channelId` within the TTL. */
  has(channelId: string, threadTs: string, now: number): boolean;
  /** Remembers that the bot posts in the thread (its reply goes there). */
  note(channelId: string, threadTs: string, now: number): void;
};

/** The facts of a channel message that decide whether it follows up a thread of the bot's. */
export type ThreadReplyFacts = {
  /** The thread the message is in (`thread_ts`), when it is a reply in one (not the thread's root). */
  threadTs?: string;
  /** Slack's `parent_user_id`: who posted the thread's root message. */
  parentUserId?: string;
  botUserId: string;
  /** Whether the bot posted in the thread (BotThreadsPort.has). */
  botPostedInThread: boolean;
};

/** Whether a channel message without a mention of the bot is a follow-up in one of the bot's threads. */
export function isThreadFollowUp(facts: ThreadReplyFacts): boolean {
  if (!facts.threadTs) return false;
  return facts.parentUserId === facts.botUserId || facts.botPostedInThread;
}
