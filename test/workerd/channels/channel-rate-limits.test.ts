import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import type { RateLimitCall } from "../../peers/rate-limit-peer";
import { call, freshTenant, type TestTenant, until } from "../support/helpers";
import { scriptedReplyAgents } from "../support/scripted-reply";

/**
 * Every platform's rate limit and pace, through the one path every platform's sends take
 * (issue 46; src/features/channels/rate-limit.ts, the outbox): the first send of a three-part
 * reply is refused with the platform's own "too many requests" (Telegram's `retry_after` body,
 * a `Retry-After` header in seconds or as an HTTP date, WhatsApp's pair-rate code), and then
 * - the retry comes no sooner than the platform asked (by the peer's clock),
 * - the parts go out in order, at least a second apart (OpenClaw's pace),
 * - each part is accepted once.
 * The worker, the run, the session's outbox and its timers are real; the platform APIs and the
 * model are the test peer's (test/peers/rate-limit-peer.ts). A reply reaches Telegram, Slack,
 * WhatsApp, LINE and Google Chat as a hook's delivery (`/hooks/agent` with `channel` + `to`);
 * Teams needs the conversation's serviceUrl, learned from an inbound activity, so its reply is
 * that activity's turn's.
 */

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const HOOK_TOKEN = "rate-limit-hook-token-0123456789";
/** The wait every refusal names (but WhatsApp's pair rate, which names none: 6 s is implied). */
const RETRY_AFTER_S = 2;
/** OpenClaw's pace (1 s), less the peer clock's rounding. */
const PACE_FLOOR_MS = 990;

/** `count` lines of `chars - 1` letters: chunked at `chars`, each line is one part. */
function reply(chars: number, count: number): string {
  return Array.from({ length: count }, (_, i) => String.fromCharCode(97 + i).repeat(chars - 1)).join("\n");
}

/** The part a send carried, by its first letter (every platform's form of the text). */
function firstLetter(platform: string, body: any): string {
  const text: string =
    platform === "whatsapp"
      ? body.text.body
      : platform === "line"
        ? body.messages.map((m: { text: string }) => m.text[0]).join("")
        : body.text;
  return platform === "line" ? text : text[0]!;
}

/** A PKCS#8 PEM of a fresh RSA key: the Google Chat service account's private key. */
async function servicePrivateKey(): Promise<string> {
  const pair = (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  const der = new Uint8Array((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
  const base64 = btoa(String.fromCharCode(...der));
  return `-----BEGIN PRIVATE KEY-----\n${base64.match(/.{1,64}/g)!.join("\n")}\n-----END PRIVATE KEY-----\n`;
}

type Case = {
  platform: string;
  /** The channel's config, its APIs at `root` (the scenario's place on the peer). */
  config(root: string): Promise<Record<string, unknown>>;
  /** The platform's rate-limit answer to the first send; `waitMs(refusedAt)`: how long it asked. */
  refusal(): {
    status: number;
    headers?: Record<string, string>;
    /** The peer answers `Retry-After` as the HTTP date this long after the refusal. */
    retryAfterDateInMs?: number;
    body: unknown;
    notBefore(refusedAt: number, retryAfter: string | undefined): number;
  };
  /** The reply and how the parts' first letters arrive (LINE: five messages in one call). */
  reply: string;
  parts: string[];
  /** Starts the turn whose reply goes to the chat. */
  trigger(t: TestTenant, root: string): Promise<void>;
};

const after = (ms: number) => (refusedAt: number) => refusedAt + ms;
/** A `429` with `Retry-After: RETRY_AFTER_S` and the platform's body. */
const retryAfterRefusal = (body: unknown) => () => ({
  status: 429,
  headers: { "retry-after": String(RETRY_AFTER_S) },
  body,
  notBefore: after(RETRY_AFTER_S * 1_000),
});

function hookTo(channel: string, to: string) {
  return async (t: TestTenant) => {
    const res = await call(`${t.prefix}/hooks/agent`, {
      method: "POST",
      token: null,
      headers: { authorization: `Bearer ${HOOK_TOKEN}` },
      json: { message: "tell me a long story", channel, to },
    });
    expect(res.status, res.text).toBeLessThan(300);
  };
}

const CASES: Case[] = [
  {
    platform: "telegram",
    config: async (root) => ({ botToken: "42:rate", webhookSecret: "tg-rate-secret-0123456789", apiRoot: root }),
    refusal: () => ({
      status: 429,
      body: {
        ok: false,
        error_code: 429,
        description: `Too Many Requests: retry after ${RETRY_AFTER_S}`,
        parameters: { retry_after: RETRY_AFTER_S },
      },
      notBefore: after(RETRY_AFTER_S * 1_000),
    }),
    reply: reply(4000, 3),
    parts: ["a", "b", "c"],
    trigger: hookTo("telegram", "7000123"),
  },
  {
    platform: "slack",
    config: async (root) => ({
      mode: "http",
      botToken: "xoxb-rate",
      signingSecret: "slack-rate-secret",
      apiRoot: `${root}/api/`,
    }),
    refusal: retryAfterRefusal({ ok: false, error: "ratelimited" }),
    reply: reply(8000, 3),
    parts: ["a", "b", "c"],
    trigger: hookTo("slack", "channel:C0RATE"),
  },
  {
    platform: "whatsapp",
    config: async (root) => ({
      phoneNumberId: "106540352242777",
      accessToken: "EAAG-rate",
      appSecret: "wa-rate-app-secret-0123456789",
      verifyToken: "wa-rate-verify-token-0123",
      apiRoot: `${root}/v23.0`,
    }),
    // Meta's pair rate limit: a 400 naming no wait; one message per 6 s to one user is implied.
    refusal: () => ({
      status: 400,
      body: { error: { code: 131056, message: "(#131056) (Business Account, Consumer Account) pair rate limit hit" } },
      notBefore: after(6_000),
    }),
    reply: reply(4000, 3),
    parts: ["a", "b", "c"],
    trigger: hookTo("whatsapp", "+15551230000"),
  },
  {
    platform: "line",
    config: async (root) => ({
      channelAccessToken: "line-rate-token",
      channelSecret: "line-rate-secret-0123",
      apiRoot: root,
    }),
    refusal: retryAfterRefusal({ message: "The API rate limit has been exceeded. Try again later." }),
    // Seven parts are two pushes (5 + 2): LINE's calls, not its messages, are paced.
    reply: reply(5000, 7),
    parts: ["abcde", "fg"],
    trigger: hookTo("line", `U${"0123456789abcdef".repeat(2)}`),
  },
  {
    platform: "googlechat",
    config: async (root) => ({
      serviceAccount: { client_email: "rate@example.iam.gserviceaccount.com", private_key: await servicePrivateKey() },
      audienceType: "project-number",
      audience: "123456789",
      apiRoot: root,
      tokenUrl: `${root}/token`,
    }),
    // An HTTP date (whole seconds, set by the peer 3 s after it refuses): due no sooner than that instant.
    refusal: () => ({
      status: 429,
      retryAfterDateInMs: 3_000,
      body: { error: { code: 429, message: "Resource has been exhausted", status: "RESOURCE_EXHAUSTED" } },
      notBefore: (_refusedAt, header) => Date.parse(header!),
    }),
    reply: reply(4000, 3),
    parts: ["a", "b", "c"],
    trigger: hookTo("googlechat", "spaces/AAAArate"),
  },
  {
    platform: "msteams",
    config: async (root) => ({
      appId: "rate-app-id",
      appPassword: "rate-app-password",
      apiRoot: root,
      tokenUrl: `${root}/token`,
    }),
    refusal: retryAfterRefusal({ error: { code: "TooManyRequests", message: "Too many requests" } }),
    reply: reply(4000, 3),
    parts: ["a", "b", "c"],
    // The activity as the Teams webhook commits it after its checks (the door is tested elsewhere).
    trigger: async (t, root) => {
      const activity = {
        type: "message",
        id: "1700000000777",
        channelId: "msteams",
        serviceUrl: `${root}/`,
        conversation: { id: "a:dm-rate", conversationType: "personal", tenantId: "azure-tenant" },
        from: { id: "29:rate-user", aadObjectId: "rate-user", name: "Rae" },
        recipient: { id: "28:rate-app-id", name: "OpenClaw" },
        text: "tell me a long story",
      };
      const inbox = env.CHANNEL_INBOX.getByName(t.id) as unknown as {
        accept(channel: string, updateId: string, body: string, origin: string | null): Promise<unknown>;
      };
      await inbox.accept("msteams", "a:dm-rate:1700000000777", JSON.stringify(activity), null);
    },
  },
];

describe("a platform's rate limit and pace, on every platform", () => {
  for (const platform of CASES) {
    it(`${platform.platform}: a refused first send waits what the platform asked, the parts ≥ 1 s apart, each once`, async () => {
      const scenario = `rl-${platform.platform}-${crypto.randomUUID()}`;
      const root = `${peer}/ratelimit/${scenario}/${platform.platform}`;
      const refusal = platform.refusal();
      await fetch(`${peer}/ratelimit/${scenario}/script`, { method: "POST", body: JSON.stringify(refusal) });
      const t = await freshTenant(`rl-${platform.platform}`);
      const put = await t.config({
        agents: await scriptedReplyAgents(scenario, platform.reply),
        hooks: { enabled: true, token: HOOK_TOKEN },
        channels: { [platform.platform]: { enabled: true, dmPolicy: "open", ...(await platform.config(root)) } },
      });
      expect(put.status, put.text).toBe(200);
      await platform.trigger(t, root);

      const sendsOf = async () =>
        ((await (await fetch(`${peer}/ratelimit/${scenario}/calls`)).json()) as RateLimitCall[]).filter((c) => c.send);
      // The refused send, then every part once.
      const sends = await until(sendsOf, (all) => all.length >= platform.parts.length + 1, 45_000);
      const [refused, ...accepted] = sends;
      expect(refused!.status).toBeGreaterThanOrEqual(400);
      expect(accepted.every((s) => s.status < 300)).toBe(true);
      expect(accepted.map((s) => firstLetter(platform.platform, s.body))).toEqual(platform.parts);
      expect(firstLetter(platform.platform, refused!.body)).toBe(platform.parts[0]);
      // No sooner than the platform asked (the peer's clock).
      const notBefore = refusal.notBefore(refused!.at, refused!.retryAfter);
      expect(notBefore).toBeGreaterThan(refused!.at + PACE_FLOOR_MS);
      expect(accepted[0]!.at).toBeGreaterThanOrEqual(notBefore - 10);
      for (let i = 1; i < accepted.length; i++) {
        const gap = accepted[i]!.at - accepted[i - 1]!.at;
        expect(gap, `part ${i + 1}`).toBeGreaterThanOrEqual(PACE_FLOOR_MS);
        expect(gap).toBeLessThan(15_000);
      }
      // Delivered, and nothing went again.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await sendsOf()).toHaveLength(sends.length);
    }, 60_000);
  }

  it("a wait past the outbox's bound (Retry-After: 99999999) makes the delivery dead at once, not parked for years", async () => {
    const scenario = `rl-far-${crypto.randomUUID()}`;
    const root = `${peer}/ratelimit/${scenario}/slack`;
    const refusal = { status: 429, headers: { "retry-after": "99999999" }, body: { ok: false, error: "ratelimited" } };
    await fetch(`${peer}/ratelimit/${scenario}/script`, { method: "POST", body: JSON.stringify(refusal) });
    const t = await freshTenant("rl-far");
    const put = await t.config({
      agents: await scriptedReplyAgents(scenario, "hello"),
      hooks: { enabled: true, token: HOOK_TOKEN },
      channels: {
        slack: { enabled: true, dmPolicy: "open", ...(await CASES.find((c) => c.platform === "slack")!.config(root)) },
      },
    });
    expect(put.status, put.text).toBe(200);
    await hookTo("slack", "channel:C0RATE")(t);
    const dead = await until(
      async () => {
        const sessions = (await t.call("/v1/sessions")).data.sessions as Array<{ key: string }>;
        const lists = await Promise.all(
          sessions.map(async (s) => (await t.call(`/v1/sessions/${encodeURIComponent(s.key)}/deliveries`)).data),
        );
        return lists.flatMap((list) => (list.deliveries ?? []) as Array<{ status: string; lastError?: string }>);
      },
      (deliveries) => deliveries.some((d) => d.status === "dead"),
      20_000,
    );
    expect(dead.find((d) => d.status === "dead")?.lastError).toMatch(/asked to wait 99999999 s, past the 3600 s/);
    const sends = ((await (await fetch(`${peer}/ratelimit/${scenario}/calls`)).json()) as RateLimitCall[]).filter(
      (c) => c.send,
    );
    expect(sends).toHaveLength(1);
  }, 60_000);
});
