import { describe, expect, it } from "vitest";
import type { ChannelSender, SendOutcome } from "../../../src/features/channels/adapter";
import { PLATFORMS } from "../../../src/features/channels/platforms";
import {
  HTTP_429_RULE,
  rateLimitWaitMs,
  readRefusal,
  retryAfterHeaderMs,
  withRateLimitRule,
} from "../../../src/features/channels/rate-limit";
import { telegramRateLimit } from "../../../src/features/channels/telegram/bot-api";
import { whatsappRateLimit } from "../../../src/features/channels/whatsapp/graph-api";

/**
 * A platform's "too many requests" read in one place (src/features/channels/rate-limit.ts):
 * `Retry-After` in seconds or as an HTTP date, the body's own wait (Telegram), the platform's
 * rate-limit codes (WhatsApp), and every registered platform's descriptor declaring its rule.
 * The outbox's side (the wait on its timer) is in test/unit/delivery/outbox.test.ts; every
 * platform end to end in test/workerd/channels/channel-rate-limits.test.ts.
 */

const NOW = Date.parse("2026-11-29T10:00:00Z");

describe("Retry-After", () => {
  it("reads delay seconds and an HTTP date (the wait until then); nothing else", () => {
    expect(retryAfterHeaderMs("12", NOW)).toBe(12_000);
    expect(retryAfterHeaderMs(" 3 ", NOW)).toBe(3_000);
    expect(retryAfterHeaderMs("Sun, 29 Nov 2026 10:00:07 GMT", NOW)).toBe(7_000);
    for (const value of [null, undefined, "", "0", "-5", "1.5", "soon", "Sun, 29 Nov 2026 09:59:00 GMT"])
      expect(retryAfterHeaderMs(value, NOW), String(value)).toBeUndefined();
  });
});

describe("a refusal read by a platform's rule", () => {
  it("a 429's Retry-After is the wait; a refusal that is not a rate limit has none, whatever its header", () => {
    expect(rateLimitWaitMs({ status: 429, retryAfter: "4" }, HTTP_429_RULE, NOW)).toBe(4_000);
    expect(rateLimitWaitMs({ status: 429 }, HTTP_429_RULE, NOW)).toBeUndefined();
    expect(rateLimitWaitMs({ status: 503, retryAfter: "30" }, HTTP_429_RULE, NOW)).toBeUndefined();
  });

  it("Telegram: the body's parameters.retry_after, unless a header names the wait", () => {
    const body = { ok: false, error_code: 429, parameters: { retry_after: 7 } };
    expect(rateLimitWaitMs({ status: 429, body }, telegramRateLimit, NOW)).toBe(7_000);
    expect(rateLimitWaitMs({ status: 429, retryAfter: "2", body }, telegramRateLimit, NOW)).toBe(2_000);
    expect(rateLimitWaitMs({ status: 400, body }, telegramRateLimit, NOW)).toBeUndefined();
  });

  it("WhatsApp: Meta's rate-limit codes in any status; the pair rate implies 6 s, the others a header or backoff", () => {
    const error = (code: number) => ({ error: { code, message: `(#${code})` } });
    expect(rateLimitWaitMs({ status: 400, body: error(131056) }, whatsappRateLimit, NOW)).toBe(6_000);
    expect(rateLimitWaitMs({ status: 400, retryAfter: "9", body: error(130429) }, whatsappRateLimit, NOW)).toBe(9_000);
    expect(rateLimitWaitMs({ status: 400, body: error(80007) }, whatsappRateLimit, NOW)).toBeUndefined();
    expect(
      rateLimitWaitMs({ status: 400, retryAfter: "9", body: error(131047) }, whatsappRateLimit, NOW),
    ).toBeUndefined();
  });

  it("every registered platform declares a rule that reads a 429 with Retry-After", () => {
    for (const platform of PLATFORMS)
      expect(rateLimitWaitMs({ status: 429, retryAfter: "5" }, platform.rateLimit, NOW), platform.name).toBe(5_000);
  });
});

describe("the sender the outbox gets (withRateLimitRule)", () => {
  const refused: SendOutcome = {
    partsSent: 1,
    error: "slack answered 429: ratelimited",
    refusal: { status: 429, retryAfter: "3", body: { ok: false } },
  };

  it("turns the refusal into retryAfterMs and drops the raw answer; a longer wait the sender named is kept", () => {
    expect(readRefusal(refused, HTTP_429_RULE)).toEqual({
      partsSent: 1,
      error: "slack answered 429: ratelimited",
      retryAfterMs: 3_000,
    });
    expect(readRefusal({ ...refused, retryAfterMs: 60_000 }, HTTP_429_RULE).retryAfterMs).toBe(60_000);
    expect(readRefusal({ partsSent: 2, moreParts: true }, HTTP_429_RULE)).toEqual({ partsSent: 2, moreParts: true });
  });

  it("wraps send and keeps the sender's credentials as it reads them at the time", async () => {
    let token = "first";
    const sender: ChannelSender = {
      get credentials() {
        return [token];
      },
      send: async () => refused,
    };
    const wrapped = withRateLimitRule(sender, HTTP_429_RULE);
    expect(
      await wrapped.send({ target: { channel: "slack", to: "C1" }, message: "x", kind: "reply" }, 1),
    ).toMatchObject({
      retryAfterMs: 3_000,
    });
    token = "renewed";
    expect(wrapped.credentials).toEqual(["renewed"]);
  });
});
