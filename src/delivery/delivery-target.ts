import { parseAgentSessionKey } from "../keys/session-key";
import type { DeliveryTarget } from "../model/delivery";
import type { SessionEntry } from "../protocol/session";
import { dropUndefined } from "../util/encoding";

/**
 * Where "posted to the session's channel" goes: its delivery context, else the last
 * channel + recipient, else a group/channel key (`<channel>:group|channel:<id>[:thread:<t>]`),
 * else the origin. Null when the session has no route (nothing to deliver to).
 */
export function deliveryTargetOf(
  entry: Pick<
    SessionEntry,
    "key" | "deliveryContext" | "lastChannel" | "lastTo" | "lastAccountId" | "lastThreadId" | "origin"
  >,
): DeliveryTarget | null {
  const ctx = entry.deliveryContext;
  if (ctx?.channel && ctx.to)
    return clean({ channel: ctx.channel, to: ctx.to, accountId: ctx.accountId, threadId: ctx.threadId });
  if (entry.lastChannel && entry.lastTo) {
    return clean({
      channel: entry.lastChannel,
      to: entry.lastTo,
      accountId: entry.lastAccountId,
      threadId: entry.lastThreadId,
    });
  }
  const rest = parseAgentSessionKey(entry.key)?.rest ?? entry.key;
  const match = /^([^:]+):(group|channel):([^:]+)(?::thread:([^:]+))?/.exec(rest);
  if (match) return clean({ channel: match[1]!, to: `${match[2]}:${match[3]}`, threadId: match[4] });
  if (entry.origin?.provider && entry.origin.to) {
    return clean({
      channel: entry.origin.provider,
      to: entry.origin.to,
      accountId: entry.origin.accountId,
      threadId: entry.origin.threadId,
    });
  }
  return null;
}

function clean(target: {
  channel: string;
  to: string;
  accountId?: string | undefined;
  threadId?: string | number | undefined;
}): DeliveryTarget {
  return dropUndefined(target) as DeliveryTarget;
}

/** Exponential backoff for attempt n (1-based): 1 s, 2 s, 4 s … capped at 5 minutes. */
export function deliveryBackoffMs(attempt: number): number {
  return Math.min(300_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

export const DEFAULT_DELIVERY_ATTEMPTS = 5;

/**
 * The longest a platform's own wait (`retry_after`, `Retry-After`) holds a delivery back: 1 hour.
 * The wait comes from the platform's (or a tenant's `apiRoot`'s) answer, so a `Retry-After:
 * 99999999` or a far-off date would park the delivery for years, never dead; a wait past this
 * makes it dead at once instead, saying what was asked.
 */
export const PLATFORM_WAIT_MAX_MS = 60 * 60 * 1_000;

/**
 * Between two parts of one reply on a chat platform: OpenClaw 2026.9.6 sent a long reply's
 * chunks about a second apart (../shared/peer/channels/SPEC.md §3.6), under the platforms' per-chat rate limits.
 */
export const REPLY_PART_SPACING_MS = 1_000;
