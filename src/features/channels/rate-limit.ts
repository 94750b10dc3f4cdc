import type { ChannelSender, PlatformRefusal, SendOutcome } from "./adapter";

/**
 * A platform's "too many requests", read in one place for every platform (issue 46): each
 * descriptor in PLATFORMS declares its RateLimitRule, its sender hands back the refused call's
 * answer as it came (`SendOutcome.refusal`), and `withRateLimitRule` (applied by
 * `channelSenderOf`, the one way the outbox gets a sender) turns it into the outbox's
 * `retryAfterMs`: the next attempt is due no sooner. A sender cannot forget the wait, and no
 * platform computes it twice. Pure apart from the clock an HTTP date is read against.
 */

/**
 * How a platform says "too many requests" and how long to wait. A refusal is rate-limited when its
 * status is 429 or `limitedBody` recognises its body (WhatsApp's error codes); the wait is the
 * `Retry-After` header (seconds or an HTTP date), else `bodyWaitSeconds` (Telegram's
 * `parameters.retry_after`); without either the outbox's own backoff applies.
 */
export type RateLimitRule = {
  limitedBody?(body: unknown): boolean;
  bodyWaitSeconds?(body: unknown): number | undefined;
};

/** The HTTP rule: a `429` with its `Retry-After` (Slack, LINE, Teams' Bot Connector, Google Chat). */
export const HTTP_429_RULE: RateLimitRule = {};

/** How long a refusal asks to be left alone, in ms; undefined: not a rate limit, or no wait named. */
export function rateLimitWaitMs(refusal: PlatformRefusal, rule: RateLimitRule, nowMs = Date.now()): number | undefined {
  if (refusal.status !== 429 && !rule.limitedBody?.(refusal.body)) return undefined;
  const header = retryAfterHeaderMs(refusal.retryAfter, nowMs);
  if (header !== undefined) return header;
  const seconds = rule.bodyWaitSeconds?.(refusal.body);
  return seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds * 1_000 : undefined;
}

/** `Retry-After` as RFC 9110 §10.2.3 has it: delay seconds, or an HTTP date (the wait until then); else undefined. */
export function retryAfterHeaderMs(value: string | null | undefined, nowMs: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return seconds > 0 ? seconds * 1_000 : undefined;
  }
  const at = Date.parse(text);
  return Number.isFinite(at) && at > nowMs ? at - nowMs : undefined;
}

/**
 * The sender the outbox gets for a platform: its refusals read by the platform's rule into
 * `retryAfterMs` (a longer wait the sender named itself is kept), the raw answer dropped.
 */
export function withRateLimitRule(sender: ChannelSender, rule: RateLimitRule): ChannelSender {
  return {
    get credentials() {
      return sender.credentials;
    },
    send: async (delivery, fromPart) => readRefusal(await sender.send(delivery, fromPart), rule),
  };
}

/** A send's outcome as the outbox takes it: a refusal read by the rule into `retryAfterMs`, the raw answer dropped. */
export function readRefusal(outcome: SendOutcome, rule: RateLimitRule): SendOutcome {
  const { refusal, ...rest } = outcome;
  if (!refusal || outcome.error === undefined) return rest;
  const waitMs = rateLimitWaitMs(refusal, rule);
  if (waitMs === undefined) return rest;
  return { ...rest, retryAfterMs: Math.max(waitMs, rest.retryAfterMs ?? 0) };
}
