import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import INGRESS from "../../e2e/ingress-config.json";
import { freshTenant } from "../support/helpers";

/**
 * Every unauthenticated ingress answers before it reads more than its limit (issue 44, finding
 * 4): an announced `content-length` over the limit is 413 unread, a wrong Telegram secret or
 * hook token 401 unread, and a body without `content-length` is read only up to the limit
 * (413). Each body here is endless: an ingress that read it whole would never answer. Against
 * `wrangler dev`, with the workerd RSS: test/e2e/ingress-body-limits.e2e.mjs.
 */

const TELEGRAM_SECRET = INGRESS.telegramSecret;
const HOOK_TOKEN = INGRESS.hookToken;
const CHUNK_BYTES = 64 * 1024;

/** An endless body; `pulled()` says how many bytes the reader took. */
function endlessBody() {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += CHUNK_BYTES;
      controller.enqueue(new Uint8Array(CHUNK_BYTES).fill(0x20));
    },
  });
  return { stream, pulled: () => pulled };
}

async function post(path: string, headers: Record<string, string>, announced?: number) {
  const body = endlessBody();
  const res = await exports.default.fetch(`http://svc.test${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...headers,
      ...(announced ? { "content-length": String(announced) } : {}),
    },
    body: body.stream,
  });
  await res.arrayBuffer();
  return { status: res.status, pulledBytes: body.pulled() };
}

describe("unauthenticated ingress bodies", () => {
  it("are refused by their announced size or their token unread, and cut at the limit when chunked", async () => {
    const t = await freshTenant("ingress");
    const put = await t.config(INGRESS.config);
    expect(put.status, put.text).toBe(200);
    const telegram = { "x-telegram-bot-api-secret-token": TELEGRAM_SECRET };
    const form = { "content-type": "application/x-www-form-urlencoded" };
    // Headers that could be Slack's (the signature itself is checked once the body is read).
    const slackSigned = {
      "x-slack-request-timestamp": String(Math.floor(Date.now() / 1000)),
      "x-slack-signature": `v0=${"0".repeat(64)}`,
    };
    const cases: Array<[string, string, Record<string, string>, number | undefined, number, number]> = [
      // name, path, headers, announced size, status, most bytes the ingress may take
      [
        "Telegram, wrong secret",
        "/telegram-webhook",
        { "x-telegram-bot-api-secret-token": "wrong" },
        undefined,
        401,
        0,
      ],
      ["Telegram, announced 90 MB", "/telegram-webhook", telegram, 90_000_000, 413, 0],
      ["Telegram, chunked past 1 MB", "/telegram-webhook", telegram, undefined, 413, 1_000_000],
      ["Slack, announced 90 MB", "/slack/events", {}, 90_000_000, 413, 0],
      ["Slack, no signature", "/slack/events", {}, undefined, 401, 0],
      ["Slack, chunked past 1 MB", "/slack/events", slackSigned, undefined, 413, 1_000_000],
      ["hook, no token", "/hooks/agent", {}, undefined, 401, 0],
      ["hook, announced 90 MB", "/hooks/agent", { authorization: `Bearer ${HOOK_TOKEN}` }, 90_000_000, 413, 0],
      [
        "hook, chunked past 256 KiB",
        "/hooks/agent",
        { authorization: `Bearer ${HOOK_TOKEN}` },
        undefined,
        413,
        262_144,
      ],
      ["OAuth token, announced 90 MB", "/oauth/token", form, 90_000_000, 413, 0],
      ["OAuth token, chunked past 64 KiB", "/oauth/token", form, undefined, 413, 65_536],
    ];
    for (const [name, path, headers, announced, status, mostBytes] of cases) {
      const answer = await post(`${t.prefix}${path}`, headers, announced);
      expect(answer.status, name).toBe(status);
      // The stream's own read-ahead may take a few chunks beyond what the ingress read.
      expect(answer.pulledBytes, name).toBeLessThanOrEqual(mostBytes + 8 * CHUNK_BYTES);
    }
  });
});
