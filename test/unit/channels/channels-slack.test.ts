import { describe, expect, it } from "vitest";
import { withRateLimitRule } from "../../../src/features/channels/rate-limit";
import {
  markdownToSlackMrkdwn,
  SLACK_CHUNK_CHARS,
  slackPairingMessage,
} from "../../../src/features/channels/slack/format";
import { checkSlackRequest } from "../../../src/features/channels/slack/ingress";
import { slackPlatform } from "../../../src/features/channels/slack/platform";
import { decideSlack, type SlackRoutingInput, slackUpdateId } from "../../../src/features/channels/slack/routing";
import {
  slackSignature,
  timestampInWindow,
  verifySlackSignature,
} from "../../../src/features/channels/slack/signature";
import { parseSlackTarget, SlackWebApi } from "../../../src/features/channels/slack/web-api";
import { chunkText } from "../../../src/features/channels/telegram/format";
import type { SlackConfig, SlackEnvelope, SlackMessageEvent } from "../../../src/protocol/channels";
import { channelsConfigSchema } from "../../../src/protocol/channels";

const SECRET = "slack-signing-secret-0123456789abcdef";
const NOW_MS = 1_795_705_000_000;
const NOW_S = NOW_MS / 1000;
const BOT = { userId: "U0BOT", botId: "B0BOT" };

/** Slack's signature, computed here with WebCrypto directly (not through the module under test). */
async function referenceSign(body: string, at: number, secret = SECRET) {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(`v0:${at}:${body}`)));
  return `v0=${Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function envelope(event: Partial<SlackMessageEvent>, eventId = "Ev0001"): SlackEnvelope {
  return {
    type: "event_callback",
    event_id: eventId,
    team_id: "T0TEST",
    event: { type: "message", ts: "1795705000.000100", ...event } as SlackMessageEvent,
  };
}
const dm = (text: string, extra: Partial<SlackMessageEvent> = {}) =>
  envelope({ channel: "D0ALICE", channel_type: "im", user: "U0ALICE", text, ...extra });
const inChannel = (channel: string, text: string, extra: Partial<SlackMessageEvent> = {}) =>
  envelope({ channel, channel_type: "channel", user: "U0BOB", text, ...extra });

const CONFIG: SlackConfig = {
  mode: "http",
  dmPolicy: "pairing",
  groupPolicy: "open",
  channels: { C0OPEN: { requireMention: false }, C0MENTION: { requireMention: true } },
};

function decide(env: SlackEnvelope, slack: SlackConfig = CONFIG, extra: Partial<SlackRoutingInput> = {}) {
  return decideSlack({ envelope: env, slack, config: {}, agentId: "main", bot: BOT, approved: new Set(), ...extra });
}

describe("Slack v0 signature and timestamp window", () => {
  const body = JSON.stringify(dm("hello"));

  it("accepts Slack's signature of the exact body and timestamp", async () => {
    const at = String(NOW_S);
    expect(await slackSignature(SECRET, at, body)).toBe(await referenceSign(body, NOW_S));
    const input = {
      signingSecret: SECRET,
      timestamp: at,
      signature: await referenceSign(body, NOW_S),
      body,
      nowMs: NOW_MS,
    };
    expect(await verifySlackSignature(input)).toBe(true);
  });

  it("refuses another secret, another body, a malformed or missing signature", async () => {
    const at = String(NOW_S);
    const base = { signingSecret: SECRET, timestamp: at, body, nowMs: NOW_MS };
    expect(await verifySlackSignature({ ...base, signature: await referenceSign(body, NOW_S, "wrong") })).toBe(false);
    expect(await verifySlackSignature({ ...base, signature: await referenceSign(`${body} `, NOW_S) })).toBe(false);
    expect(await verifySlackSignature({ ...base, signature: (await referenceSign(body, NOW_S)).toUpperCase() })).toBe(
      false,
    );
    expect(
      await verifySlackSignature({ ...base, signature: (await referenceSign(body, NOW_S)).replace("v0=", "v1=") }),
    ).toBe(false);
    expect(await verifySlackSignature({ ...base, signature: undefined })).toBe(false);
    // A signature over a different timestamp does not fit this one.
    expect(await verifySlackSignature({ ...base, signature: await referenceSign(body, NOW_S - 1) })).toBe(false);
  });

  it("refuses timestamps more than five minutes old AND more than five minutes ahead", async () => {
    for (const [offset, fresh] of [
      [0, true],
      [-300, true],
      [300, true],
      [-301, false],
      [301, false],
      [-600, false],
      [600, false], // the real gateway processes this one (SPEC §7.10)
    ] as const) {
      const at = NOW_S + offset;
      expect(timestampInWindow(String(at), NOW_MS), `offset ${offset}`).toBe(fresh);
      const input = {
        signingSecret: SECRET,
        timestamp: String(at),
        signature: await referenceSign(body, at),
        body,
        nowMs: NOW_MS,
      };
      expect(await verifySlackSignature(input), `offset ${offset}`).toBe(fresh);
    }
    for (const junk of [undefined, "", "12.5", "-1", "1e9", "abc"]) expect(timestampInWindow(junk, NOW_MS)).toBe(false);
  });
});

describe("Slack ingress answers (before anything is stored)", () => {
  const signed = async (body: string, contentType = "application/json", at = NOW_S) =>
    checkSlackRequest({
      signingSecret: SECRET,
      timestamp: String(at),
      signature: await referenceSign(body, at),
      contentType,
      body,
      nowMs: NOW_MS,
    });

  it("answers url_verification with its challenge, 400 for non-JSON, 404 for an interactivity form post", async () => {
    const challenge = JSON.stringify({ token: "x", challenge: "chal-123", type: "url_verification" });
    expect(await signed(challenge)).toEqual({ ok: false, status: 200, json: { challenge: "chal-123" } });
    expect(await signed("{nope")).toEqual({ ok: false, status: 400 });
    expect(await signed("[1]")).toEqual({ ok: false, status: 400 });
    const form = `payload=${encodeURIComponent(JSON.stringify({ type: "block_actions" }))}`;
    expect(await signed(form, "application/x-www-form-urlencoded")).toEqual({ ok: false, status: 404 });
  });

  it("401 before looking at the body: unsigned, stale or future", async () => {
    const challenge = JSON.stringify({ challenge: "chal-123", type: "url_verification" });
    const unsigned = await checkSlackRequest({
      signingSecret: SECRET,
      timestamp: undefined,
      signature: undefined,
      contentType: "application/json",
      body: challenge,
      nowMs: NOW_MS,
    });
    expect(unsigned).toEqual({ ok: false, status: 401 });
    expect(await signed("{nope", "application/json", NOW_S - 600)).toEqual({ ok: false, status: 401 });
    expect(await signed(JSON.stringify(dm("x")), "application/json", NOW_S + 600)).toEqual({ ok: false, status: 401 });
  });

  it("accepts an event_callback under its dedupe key", async () => {
    const body = JSON.stringify(inChannel("C0OPEN", "hi"));
    expect(await signed(body)).toEqual({ ok: true, updateId: "C0OPEN:1795705000.000100", body });
    const other = JSON.stringify({ type: "event_callback", event_id: "Ev9", event: { type: "reaction_added" } });
    expect(await signed(other)).toMatchObject({ ok: true, updateId: "event:Ev9" });
    expect(await signed(JSON.stringify({ type: "app_rate_limited" }))).toEqual({ ok: false, status: 200 });
  });

  it("one message under two event ids (message + app_mention) is one update; the same event id is one update", () => {
    const message = inChannel("C0MENTION", "<@U0BOT> hi");
    const mention = envelope({ ...message.event, type: "app_mention", channel_type: undefined }, "Ev0002");
    expect(slackUpdateId(message)).toBe(slackUpdateId(mention));
    expect(slackUpdateId(message)).toBe(slackUpdateId({ ...message }));
    expect(slackUpdateId(inChannel("C0MENTION", "x", { ts: "1795705000.000200" }))).not.toBe(slackUpdateId(message));
  });
});

describe("Slack routing: access and session keys", () => {
  it("DM per dmScope, ids lower-cased in keys, route user:<id> in original case", () => {
    const keys = (["main", "per-peer", "per-channel-peer", "per-account-channel-peer"] as const).map((dmScope) => {
      const d = decide(dm("hi"), { ...CONFIG, dmPolicy: "open" }, { config: { session: { dmScope } } });
      if (d.action !== "turn") throw new Error(d.action);
      expect(d.turn.replyTarget).toEqual({ channel: "slack", to: "user:U0ALICE", accountId: "default" });
      expect(d.turn.seed).toMatchObject({ channel: "slack", chatType: "direct" });
      return d.turn.sessionKey;
    });
    expect(keys).toEqual([
      "agent:main:main",
      "agent:main:direct:u0alice",
      "agent:main:slack:direct:u0alice",
      "agent:main:slack:default:direct:u0alice",
    ]);
  });

  it("a DM thread stays in the DM's session; its reply goes to the thread", () => {
    const d = decide(dm("in a thread", { thread_ts: "1795705000.000001" }), { ...CONFIG, dmPolicy: "open" });
    expect(d.action === "turn" && d.turn.sessionKey).toBe("agent:main:main");
    expect(d.action === "turn" && d.turn.replyTarget.threadId).toBe("1795705000.000001");
  });

  it("dmPolicy: pairing asks (with the DM channel), allowlist and approvals admit, disabled ignores", () => {
    expect(decide(dm("hello"))).toEqual({
      action: "pairing",
      ask: { senderId: "U0ALICE", chatId: "D0ALICE", meta: { accountId: "default" } },
    });
    expect(decide(dm("hello"), CONFIG, { approved: new Set(["U0ALICE"]) }).action).toBe("turn");
    expect(decide(dm("hello"), { ...CONFIG, dmPolicy: "allowlist" }).action).toBe("ignore");
    expect(decide(dm("hello"), { ...CONFIG, dmPolicy: "allowlist", allowFrom: ["slack:u0alice"] }).action).toBe("turn");
    expect(decide(dm("hello"), { ...CONFIG, dmPolicy: "allowlist", allowFrom: ["*"] }).action).toBe("turn");
    expect(decide(dm("hello"), { ...CONFIG, dmPolicy: "disabled" }).action).toBe("ignore");
  });

  it("channels: key agent:main:slack:channel:<id lower>, threads below it, route channel:<id>", () => {
    const top = decide(inChannel("C0OPEN", "hello open channel"));
    if (top.action !== "turn") throw new Error(top.action);
    expect(top.turn.sessionKey).toBe("agent:main:slack:channel:c0open");
    expect(top.turn.replyTarget).toEqual({ channel: "slack", to: "channel:C0OPEN", accountId: "default" });
    expect(top.turn.seed.chatType).toBe("channel");
    expect(top.turn.ack).toEqual({ chatId: "C0OPEN" });
    const thread = decide(inChannel("C0OPEN", "thread reply", { thread_ts: "1795705347.000010" }));
    if (thread.action !== "turn") throw new Error(thread.action);
    expect(thread.turn.sessionKey).toBe("agent:main:slack:channel:c0open:thread:1795705347.000010");
    expect(thread.turn.replyTarget.threadId).toBe("1795705347.000010");
  });

  it("requireMention: <@BOT> or app_mention, with 👀 on the message; groupPolicy open answers unlisted channels", () => {
    expect(decide(inChannel("C0MENTION", "no mention here")).action).toBe("ignore");
    const mentioned = decide(inChannel("C0MENTION", "<@U0BOT> please help"));
    expect(mentioned.action === "turn" && mentioned.turn.ack).toEqual({
      chatId: "C0MENTION",
      reactToMessageId: "1795705000.000100",
    });
    const appMention = envelope({ type: "app_mention", channel: "C0MENTION", user: "U0BOB", text: "<@U0BOT> hi" });
    expect(decide(appMention).action).toBe("turn");
    // Unlisted: answered under "open" (requireMention defaults to true), ignored under "allowlist".
    expect(decide(inChannel("C0OTHER", "<@U0BOT> am I allowed")).action).toBe("turn");
    expect(decide(inChannel("C0OTHER", "no mention")).action).toBe("ignore");
    expect(decide(inChannel("C0OTHER", "<@U0BOT> hi"), { ...CONFIG, groupPolicy: "allowlist" }).action).toBe("ignore");
    expect(decide(inChannel("C0OPEN", "hi"), { ...CONFIG, groupPolicy: "disabled" }).action).toBe("ignore");
    const users = { ...CONFIG, channels: { C0OPEN: { requireMention: false, users: ["U0CAROL"] } } };
    expect(decide(inChannel("C0OPEN", "hi"), users).action).toBe("ignore");
  });

  it("bot messages, the bot's own user, edits and empty texts are ignored", () => {
    expect(decide(inChannel("C0OPEN", "beep", { subtype: "bot_message", bot_id: "B0OTHER" })).action).toBe("ignore");
    expect(decide(inChannel("C0OPEN", "my own echo", { user: "U0BOT" })).action).toBe("ignore");
    expect(decide(inChannel("C0OPEN", "x", { subtype: "message_changed" })).action).toBe("ignore");
    expect(decide(inChannel("C0OPEN", "  ")).action).toBe("ignore");
    expect(decide(inChannel("C0OPEN", "shared", { subtype: "thread_broadcast" })).action).toBe("turn");
  });
});

describe("Slack replies: mrkdwn, chunks, pairing text, targets", () => {
  it("renders the recorded Markdown sample as the recorded mrkdwn", () => {
    expect(markdownToSlackMrkdwn("**bold** and `code` and [link](https://example.com)\n\n- item 1\n- item 2")).toBe(
      "*bold* and `code` and <https://example.com|link>\n\n• item 1\n• item 2",
    );
  });

  it("keeps Slack's own markup, escapes the rest, renders italics, strikes, headings and fences", () => {
    expect(markdownToSlackMrkdwn("ECHO: <@U0BOT> please help")).toBe("ECHO: <@U0BOT> please help");
    expect(markdownToSlackMrkdwn("a < b & c > d <!here>")).toBe("a &lt; b &amp; c &gt; d <!here>");
    expect(markdownToSlackMrkdwn("*it* and _it_ and ~~gone~~ and __strong__")).toBe(
      "_it_ and _it_ and ~gone~ and *strong*",
    );
    expect(markdownToSlackMrkdwn("# Title\n```js\nconst a = 1 < 2;\n```")).toBe(
      "*Title*\n```\nconst a = 1 &lt; 2;\n```",
    );
    expect(markdownToSlackMrkdwn("`**not bold**`")).toBe("`**not bold**`");
  });

  it("a link's query `&` is posted as `&amp;` (a raw `&` starts an entity in Slack's markup), entities kept", () => {
    expect(markdownToSlackMrkdwn("[search](https://example.com/?q=a&page=2)")).toBe(
      "<https://example.com/?q=a&amp;page=2|search>",
    );
    expect(markdownToSlackMrkdwn("see <https://example.com/?a=1&b=2> and <https://x.io/?a=1&amp;b=2|x>")).toBe(
      "see <https://example.com/?a=1&amp;b=2> and <https://x.io/?a=1&amp;b=2|x>",
    );
  });

  it("chunks of 8000 on line boundaries: the recorded 9000 → 8000 + 999", () => {
    let long = "";
    for (let i = 1; long.length < 9000; i++)
      long += `line ${String(i).padStart(4, "0")} lorem ipsum dolor sit amet consectetur.\n`;
    const parts = chunkText(long.slice(0, 9000), SLACK_CHUNK_CHARS);
    expect(parts.map((p) => p.length)).toEqual([8000, 999]);
    expect(parts[1]!.startsWith("line 0161")).toBe(true);
    expect(chunkText("x".repeat(20_000), SLACK_CHUNK_CHARS).map((p) => p.length)).toEqual([8000, 8000, 4000]);
  });

  it("the pairing text is the recorded one", () => {
    expect(slackPairingMessage("U0ALICE", "3FL84BJR")).toBe(
      'OpenClaw: access not configured.\n\nYour Slack user id: U0ALICE\nPairing code:\n\n```\n3FL84BJR\n```\nAsk the bot owner to approve it on the Control UI\'s Channels page, or with:\n\n```\nPOST /v1/channels/slack/pairing/approve {"code":"3FL84BJR"}\n```',
    );
  });

  it("targets: user:U… is a DM to open, channel:C… and bare ids are conversations, threadId is thread_ts", () => {
    expect(parseSlackTarget({ channel: "slack", to: "user:U0ALICE" })).toEqual({ user: "U0ALICE" });
    expect(parseSlackTarget({ channel: "slack", to: "channel:C0OPEN", threadId: "17.1" })).toEqual({
      channel: "C0OPEN",
      threadTs: "17.1",
    });
    expect(parseSlackTarget({ channel: "slack", to: "D0ALICE" })).toEqual({ channel: "D0ALICE" });
    expect(parseSlackTarget({ channel: "slack", to: "slack:U0ALICE" })).toEqual({ user: "U0ALICE" });
    expect(parseSlackTarget({ channel: "slack", to: "#general" })).toBeNull();
  });
});

describe("channels.slack config", () => {
  it("accepts OpenClaw's HTTP-mode block and refuses Socket Mode and unread credentials", () => {
    const block = {
      enabled: true,
      mode: "http",
      botToken: "xoxb-test-0000-fake",
      signingSecret: SECRET,
      webhookPath: "/slack/events",
      dmPolicy: "pairing",
      allowFrom: [],
      groupPolicy: "open",
      channels: { C0OPEN: { requireMention: false }, C0MENTION: { requireMention: true } },
      apiRoot: "http://127.0.0.1:18693/api/",
    };
    expect(channelsConfigSchema.safeParse({ slack: block }).success).toBe(true);
    expect(channelsConfigSchema.safeParse({ slack: { ...block, mode: "socket" } }).success).toBe(false);
    const appToken = channelsConfigSchema.safeParse({ slack: { ...block, appToken: "xapp-1" } });
    expect(appToken.success).toBe(false);
    expect(JSON.stringify(appToken.error?.issues)).toContain("only botToken and signingSecret are read");
  });
});

describe("the Slack sender", () => {
  /** The sender as the outbox gets it (channelSenderOf): refusals read by Slack's rate-limit rule. */
  const outboxSender = (api: SlackWebApi) => withRateLimitRule(api.sender(), slackPlatform.rateLimit);
  const policy = { allowLoopback: true, allowedHosts: [], ownOrigins: [] };

  /** A Web API answering each call with the next of `answers` (default ok), recording method, body and auth. */
  async function withFakeApi(
    answers: Array<[number, Record<string, unknown>?]>,
    body: (api: SlackWebApi) => Promise<void>,
  ) {
    const calls: Array<{ method: string; body: Record<string, string>; auth: string | null }> = [];
    const original = globalThis.fetch;
    globalThis.fetch = (async (url: string, init: RequestInit) => {
      const method = String(url).split("/").pop()!;
      calls.push({
        method,
        body: Object.fromEntries(new URLSearchParams(String(init.body))),
        auth: new Headers(init.headers).get("authorization"),
      });
      if (method === "conversations.open") return Response.json({ ok: true, channel: { id: "D0ALICE" } });
      const [status, answer] = answers.shift() ?? [200];
      return Response.json(answer ?? { ok: true, ts: "1.1" }, { status });
    }) as typeof fetch;
    try {
      await body(new SlackWebApi("xoxb-test", "http://127.0.0.1:9/api", policy));
    } finally {
      globalThis.fetch = original;
    }
    return calls;
  }

  it("stops at a failed part and resumes after the parts already sent; a user: route opens the DM", async () => {
    const text = `${"a".repeat(7999)}\n${"b".repeat(7999)}\nccc`;
    const target = { channel: "slack", to: "user:U0ALICE", threadId: "17.5" };
    const outcomes: unknown[] = [];
    const calls = await withFakeApi([[200], [500, { ok: false, error: "internal_error" }]], async (api) => {
      const sender = outboxSender(api);
      // One part per call: the outbox paces the next.
      for (const fromPart of [0, 1, 1, 2])
        outcomes.push(await sender.send({ target, message: text, kind: "channel-reply" }, fromPart));
    });
    expect(outcomes).toEqual([
      { partsSent: 1, moreParts: true },
      { partsSent: 1, error: "slack answered 500: internal_error" },
      { partsSent: 2, moreParts: true },
      { partsSent: 3 },
    ]);
    const posts = calls.filter((c) => c.method === "chat.postMessage");
    expect(posts.map((c) => c.body.text![0])).toEqual(["a", "b", "b", "c"]);
    expect(posts[0]!.body).toMatchObject({ channel: "D0ALICE", thread_ts: "17.5", unfurl_links: "false" });
    expect(calls[0]).toEqual({ method: "conversations.open", body: { users: "U0ALICE" }, auth: "Bearer xoxb-test" });
  });

  it("reads a 429's Retry-After header (its descriptor's rule) as how long the outbox must wait", async () => {
    const original = globalThis.fetch;
    globalThis.fetch = (async () =>
      Response.json(
        { ok: false, error: "ratelimited" },
        { status: 429, headers: { "retry-after": "12" } },
      )) as typeof fetch;
    try {
      const api = new SlackWebApi("xoxb-test", "http://127.0.0.1:9/api", policy);
      const target = { channel: "slack", to: "channel:C0OPEN" };
      expect(await outboxSender(api).send({ target, message: "hi", kind: "channel-reply" }, 0)).toEqual({
        partsSent: 0,
        error: "slack answered 429: ratelimited",
        retryAfterMs: 12_000,
      });
    } finally {
      globalThis.fetch = original;
    }
  });

  it("an ok:false answer with HTTP 200 is a failure; a pairing message is posted as prepared", async () => {
    const calls = await withFakeApi([[200, { ok: false, error: "not_in_channel" }]], async (api) => {
      const target = { channel: "slack", to: "channel:C0OPEN" };
      expect(await outboxSender(api).send({ target, message: "**x**", kind: "channel-reply" }, 0)).toEqual({
        partsSent: 0,
        error: "slack answered 200: not_in_channel",
      });
      expect(
        await outboxSender(api).send(
          { target: { channel: "slack", to: "D0ALICE" }, message: "**x**", kind: "pairing" },
          0,
        ),
      ).toEqual({
        partsSent: 1,
      });
    });
    expect(calls.map((c) => c.body)).toEqual([
      { channel: "C0OPEN", text: "*x*", unfurl_links: "false" },
      { channel: "D0ALICE", text: "**x**", unfurl_links: "false" },
    ]);
  });
});
