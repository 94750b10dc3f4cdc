import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { lineInbound, lineSender } from "../../../src/features/channels/line/adapter";
import { type LineEvent, lineUpdateId, parseLineWebhook } from "../../../src/features/channels/line/events";
import {
  LINE_CHUNK_CHARS,
  linePairingMessage,
  lineReplyParts,
  markdownToLineText,
} from "../../../src/features/channels/line/format";
import { checkLineRequest, lineHeadersRefusal } from "../../../src/features/channels/line/ingress";
import { LineMessagingApi, parseLineTarget } from "../../../src/features/channels/line/messaging-api";
import { decideLine } from "../../../src/features/channels/line/routing";
import { LINE_REPLY_TOKEN_TTL_MS, planLineCalls } from "../../../src/features/channels/line/send-plan";
import { lineSignature, verifyLineSignature } from "../../../src/features/channels/line/signature";
import { type LineConfig, lineConfigSchema } from "../../../src/protocol/channels";
import type { TenantConfig } from "../../../src/protocol/config";
// @ts-expect-error: a plain .mjs peer without types
import { FAKE_LINE_TOKEN, startFakeLine } from "../../peers/fake-line.mjs";

const SECRET = "line-channel-secret-0123456789ab";
const ALICE = "U1111111111111111111111111111aaaa";
const BOB = "U4444444444444444444444444444bbbb";
const OPEN = "C2222222222222222222222222222open";
const MENT = "C3333333333333333333333333333ment";
const OTHER = "C5555555555555555555555555555othr";

/** One message sent, and LINE's id for it. */
const sentOne = { partsSent: 1, sentMessageIds: [expect.any(String)] };

function messageEvent(text: string, source: LineEvent["source"], extra: Partial<LineEvent["message"]> = {}): LineEvent {
  return {
    type: "message",
    mode: "active",
    timestamp: 1_795_884_549_080,
    webhookEventId: "01EV1",
    source,
    replyToken: "rt-1",
    message: { id: "1795884479820", type: "text", text, ...extra },
  };
}

describe("LINE signature (X-Line-Signature)", () => {
  const body = '{"destination":"Ubot","events":[]}';

  it("is base64 HMAC-SHA256 of the raw body, and only that body and secret verify", async () => {
    // Computed here with WebCrypto directly, not through the module under test.
    const enc = new TextEncoder();
    const key = await crypto.subtle.importKey("raw", enc.encode(SECRET), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    const reference = btoa(
      String.fromCharCode(...new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(body)))),
    );
    expect(await lineSignature(SECRET, body)).toBe(reference);
    expect(await verifyLineSignature({ channelSecret: SECRET, signature: reference, body })).toBe(true);
    expect(await verifyLineSignature({ channelSecret: "other", signature: reference, body })).toBe(false);
    expect(await verifyLineSignature({ channelSecret: SECRET, signature: reference, body: `${body} ` })).toBe(false);
    expect(await verifyLineSignature({ channelSecret: SECRET, signature: undefined, body })).toBe(false);
    expect(await verifyLineSignature({ channelSecret: SECRET, signature: "not base64!", body })).toBe(false);
  });
});

describe("LINE webhook bodies", () => {
  it("keeps active events with a dedupe key; accepts unknown types and extra properties; standby is dropped", () => {
    const parsed = parseLineWebhook(
      JSON.stringify({
        destination: "Ubot",
        extra: 1,
        events: [
          messageEvent("hi", { type: "user", userId: ALICE }),
          { type: "brandNewEvent", mode: "active", webhookEventId: "01NEW", surprise: { x: 1 } },
          { ...messageEvent("standby", { type: "user", userId: ALICE }), mode: "standby" },
        ],
      }),
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.events.map((e) => e.updateId)).toEqual(["message:1795884479820", "event:01NEW"]);
  });

  it("refuses non-JSON and a non-array events (400, where the real gateway answers 500)", () => {
    expect(parseLineWebhook("not json").ok).toBe(false);
    expect(parseLineWebhook('{"events":"x"}').ok).toBe(false);
    expect(parseLineWebhook('{"destination":"U","events":[]}')).toEqual({ ok: true, events: [] });
  });

  it("dedupes a message by its LINE message id, across a new webhookEventId", () => {
    const first = messageEvent("hi", { type: "user", userId: ALICE });
    const redelivered = { ...first, webhookEventId: "01EV-other", deliveryContext: { isRedelivery: true } };
    expect(lineUpdateId(redelivered)).toBe(lineUpdateId(first));
    expect(lineUpdateId({ type: "join", webhookEventId: "01JOIN" })).toBe("event:01JOIN");
  });
});

describe("LINE routing", () => {
  const line: LineConfig = lineConfigSchema.parse({
    dmPolicy: "pairing",
    groupPolicy: "allowlist",
    groupAllowFrom: [ALICE],
    groups: { [OPEN]: { requireMention: false }, [MENT]: { requireMention: true } },
  });
  const base = { line, config: {}, agentId: "main", approved: new Set<string>() };

  it("asks an unknown DM sender to pair; an approved one gets a turn in agent:main:main routed to line:<id>", () => {
    const event = messageEvent("hello", { type: "user", userId: ALICE });
    expect(decideLine({ ...base, event })).toMatchObject({ action: "pairing", ask: { senderId: ALICE } });
    const turn = decideLine({ ...base, event, approved: new Set([ALICE]) });
    expect(turn).toMatchObject({
      action: "turn",
      turn: { sessionKey: "agent:main:main", replyTarget: { channel: "line", to: `line:${ALICE}` } },
    });
  });

  it("admits groups by sender, keys them agent:main:line:group:<id lower-cased>, and needs a mention where required", () => {
    const open = decideLine({
      ...base,
      event: messageEvent("hi group", { type: "group", groupId: OPEN, userId: ALICE }),
    });
    expect(open).toMatchObject({
      action: "turn",
      turn: { sessionKey: `agent:main:line:group:${OPEN.toLowerCase()}`, replyTarget: { to: `line:group:${OPEN}` } },
    });
    const bob = decideLine({ ...base, event: messageEvent("bob", { type: "group", groupId: OPEN, userId: BOB }) });
    expect(bob.action).toBe("ignore");
    const noMention = decideLine({
      ...base,
      event: messageEvent("x", { type: "group", groupId: MENT, userId: ALICE }),
    });
    expect(noMention).toEqual({ action: "ignore", reason: "no mention" });
    const mention = { mention: { mentionees: [{ type: "user", userId: "Ubot", isSelf: true }] } };
    const mentioned = decideLine({
      ...base,
      event: messageEvent("@FakeLineBot hi", { type: "group", groupId: MENT, userId: ALICE }, mention),
    });
    expect(mentioned.action).toBe("turn");
    // Unlisted group: the sender is allowed, so it is answered (recorded), on a mention.
    const unlisted = decideLine({
      ...base,
      event: messageEvent("hello?", { type: "group", groupId: OTHER, userId: ALICE }, mention),
    });
    expect(unlisted.action).toBe("turn");
    const quote = decideLine({
      ...base,
      event: messageEvent("re", { type: "room", roomId: "R9", userId: ALICE }, { quotedMessageId: "bot-1" }),
      botMessageIds: new Set(["bot-1"]),
    });
    expect(quote).toMatchObject({ action: "turn", turn: { replyTarget: { to: "line:room:R9" } } });
  });

  it("a quote of one of the bot's messages is a mention where one is required; a quote of another message is not", () => {
    const inMentionGroup = { type: "group" as const, groupId: MENT, userId: ALICE };
    const botMessageIds = new Set(["bot-7"]);
    const quoteOfBot = decideLine({
      ...base,
      event: messageEvent("and then?", inMentionGroup, { quotedMessageId: "bot-7" }),
      botMessageIds,
    });
    expect(quoteOfBot).toMatchObject({ action: "turn", turn: { replyTarget: { to: `line:group:${MENT}` } } });
    const quoteOfOther = decideLine({
      ...base,
      event: messageEvent("and then?", inMentionGroup, { quotedMessageId: "member-3" }),
      botMessageIds,
    });
    expect(quoteOfOther).toEqual({ action: "ignore", reason: "no mention" });
  });
});

describe("LINE formatting", () => {
  it("flattens Markdown as recorded", () => {
    expect(markdownToLineText("**bold** and `code` and [link](https://example.com)\n\n- item 1\n- item 2")).toBe(
      "bold and code and link (https://example.com)\n\n• item 1\n• item 2",
    );
  });

  it("chunks 12,000 characters of 50-character lines into 4999 + 4999 + 1999 (recorded)", () => {
    const lines = Array.from(
      { length: 240 },
      (_, i) => `line ${String(i + 1).padStart(4, "0")} lorem ipsum dolor sit amet consectetur.`,
    );
    const parts = lineReplyParts(lines.join("\n"));
    expect(parts.map((p) => p.length)).toEqual([4999, 4999, 1999]);
    expect(parts.every((p) => p.length <= LINE_CHUNK_CHARS)).toBe(true);
  });

  it("pairing text keeps OpenClaw's LINE wording and names this service's approval", () => {
    const text = linePairingMessage(ALICE, "GACF7KP9");
    expect(
      text.startsWith(
        `OpenClaw: access not configured.\n\nYour lineUserId: ${ALICE}\nPairing code:\n\`\`\`\nGACF7KP9\n\`\`\``,
      ),
    ).toBe(true);
    expect(text).toContain('POST /v1/channels/line/pairing/approve {"code":"GACF7KP9"}');
  });
});

describe("LINE send plan", () => {
  const token = { token: "rt", eventAtMs: 1_000 };
  it("replies with the first 5 parts, pushes the rest; a resumed or late delivery only pushes", () => {
    expect(planLineCalls({ partCount: 7, fromPart: 0, replyToken: token, nowMs: 2_000 })).toEqual([
      { kind: "reply", from: 0, to: 5 },
      { kind: "push", from: 5, to: 7 },
    ]);
    expect(planLineCalls({ partCount: 7, fromPart: 5, replyToken: token, nowMs: 2_000 })).toEqual([
      { kind: "push", from: 5, to: 7 },
    ]);
    expect(
      planLineCalls({ partCount: 2, fromPart: 0, replyToken: token, nowMs: 1_000 + LINE_REPLY_TOKEN_TTL_MS }),
    ).toEqual([{ kind: "push", from: 0, to: 2 }]);
  });
});

describe("the LINE sender against the fake Messaging API", () => {
  let fake: { port: number; close(): Promise<void> };
  let root: string;
  const policy = { allowLoopback: true, allowedHosts: [], ownOrigins: [] };
  beforeAll(async () => {
    fake = await startFakeLine(0);
    root = `http://127.0.0.1:${fake.port}`;
  });
  afterAll(() => fake.close());
  beforeEach(() => fetch(`${root}/__reset`, { method: "POST" }));
  const calls = async () =>
    (
      (await (await fetch(`${root}/__calls`)).json()) as {
        calls: { seq: number; path: string; status: number; body: any; retryKey: string | null }[];
      }
    ).calls;
  const target = { channel: "line", to: `line:${ALICE}` };
  const fresh = () => ({ token: `rt-${Math.random()}`, eventAtMs: Date.now() });

  it("30,000 characters: one reply of 5 messages, then (the outbox's next call) a push of the 6th", async () => {
    const api = new LineMessagingApi(FAKE_LINE_TOKEN, root, policy);
    const parts = lineReplyParts("x".repeat(30_000));
    expect(parts).toHaveLength(6);
    const delivery = { id: "d1", target, parts, replyToken: fresh() };
    const first = await api.send(delivery, 0);
    const second = await api.send(delivery, first.partsSent);
    const sent = await calls();
    // LINE's ids of the six messages (the fake's `sentMessages[].id`): a quote of one is a mention.
    const answered = sent.flatMap((c) => c.body.messages.map((_: unknown, i: number) => `${c.seq}${i}`));
    expect(answered).toHaveLength(6);
    expect(first).toEqual({ partsSent: 5, moreParts: true, sentMessageIds: answered.slice(0, 5) });
    expect(second).toEqual({ partsSent: 6, sentMessageIds: answered.slice(5) });
    expect(sent.map((c) => [c.path, c.body.messages.length, c.status])).toEqual([
      ["/v2/bot/message/reply", 5, 200],
      ["/v2/bot/message/push", 1, 200],
    ]);
  });

  it("a refused or failing reply token falls back to push at once, so the reply is not lost", async () => {
    const api = new LineMessagingApi(FAKE_LINE_TOKEN, root, policy);
    const expired = fresh();
    await fetch(`${root}/__expire`, { method: "POST", body: JSON.stringify({ replyToken: expired.token }) });
    expect(await api.send({ id: "d2", target, parts: ["hi"], replyToken: expired }, 0)).toEqual(sentOne);
    await fetch(`${root}/__fail`, {
      method: "POST",
      body: JSON.stringify({ path: "/v2/bot/message/reply", status: 500 }),
    });
    expect(await api.send({ id: "d3", target, parts: ["hi"], replyToken: fresh() }, 0)).toEqual(sentOne);
    expect((await calls()).map((c) => [c.path, c.status])).toEqual([
      ["/v2/bot/message/reply", 400],
      ["/v2/bot/message/push", 200],
      ["/v2/bot/message/reply", 500],
      ["/v2/bot/message/push", 200],
    ]);
  });

  it("a push 500 is an error at that part; the resend carries the same retry key, and a second resend is LINE's 409 (not shown twice)", async () => {
    const api = new LineMessagingApi(FAKE_LINE_TOKEN, root, policy);
    await fetch(`${root}/__fail`, {
      method: "POST",
      body: JSON.stringify({ path: "/v2/bot/message/push", status: 500 }),
    });
    const first = await api.send({ id: "d4", target, parts: ["a"] }, 0);
    expect(first.partsSent).toBe(0);
    expect(first.error).toMatch(/^line answered 500/);
    expect(await api.send({ id: "d4", target, parts: ["a"] }, 0)).toEqual(sentOne);
    expect(await api.send({ id: "d4", target, parts: ["a"] }, 0)).toEqual({ partsSent: 1 }); // LINE's 409 names no messages: none new are remembered.
    const pushes = (await calls()).filter((c) => c.path === "/v2/bot/message/push");
    expect(pushes.map((c) => c.status)).toEqual([500, 200, 409]);
    expect(new Set(pushes.map((c) => c.retryKey)).size).toBe(1);
  });

  it("a wrong channel access token is the fake's 401, reported; targets parse as recorded", async () => {
    const api = new LineMessagingApi("wrong", root, policy);
    expect((await api.send({ id: "d5", target, parts: ["a"] }, 0)).error).toMatch(/^line answered 401/);
    expect(parseLineTarget({ channel: "line", to: `line:group:${OPEN}` })).toBe(OPEN);
    expect(parseLineTarget({ channel: "line", to: "slack:U1" })).toBeNull();
  });
});

describe("the LINE webhook's answers before storing", () => {
  const batch = JSON.stringify({
    destination: "Ubot",
    events: [
      messageEvent("one", { type: "user", userId: ALICE }),
      { ...messageEvent("two", { type: "user", userId: ALICE }), message: { id: "2", type: "text", text: "two" } },
    ],
  });

  it("answers 400 / 401 / 400 with the recorded bodies; a batch is one update per event", async () => {
    const signature = await lineSignature(SECRET, batch);
    expect(await checkLineRequest({ channelSecret: SECRET, signature: undefined, body: batch })).toEqual({
      ok: false,
      status: 400,
      body: { error: "Missing X-Line-Signature header" },
    });
    expect(await checkLineRequest({ channelSecret: "wrong", signature, body: batch })).toMatchObject({
      status: 401,
      body: { error: "Invalid signature" },
    });
    const notJson = "nope";
    expect(
      await checkLineRequest({ channelSecret: SECRET, signature: await lineSignature(SECRET, notJson), body: notJson }),
    ).toMatchObject({ status: 400, body: { error: "Invalid webhook payload" } });
    const verdict = await checkLineRequest({ channelSecret: SECRET, signature, body: batch });
    expect(verdict.ok && verdict.updates.map((u) => u.updateId)).toEqual(["message:1795884479820", "message:2"]);
    expect(verdict.ok && JSON.parse(verdict.updates[1]!.body)).toMatchObject({
      destination: "Ubot",
      event: { message: { text: "two" } },
    });
  });
});

describe("the LINE adapter against the fake Messaging API", () => {
  let fake: { port: number; close(): Promise<void> };
  let api: LineMessagingApi;
  const policy = { allowLoopback: true, allowedHosts: [], ownOrigins: [] };
  const config = {} as TenantConfig;
  beforeAll(async () => {
    fake = await startFakeLine(0);
    api = new LineMessagingApi(FAKE_LINE_TOKEN, `http://127.0.0.1:${fake.port}`, policy);
  });
  afterAll(() => fake.close());
  const calls = async () =>
    (
      (await (await fetch(`http://127.0.0.1:${fake.port}/__calls`)).json()) as {
        calls: { path: string; body: any; retryKey: string | null }[];
      }
    ).calls;

  it("decides a stored event, shows loading in 1:1 chats only, sends pairing text as is and replies flattened", async () => {
    const inbound = lineInbound({ line: () => ({ dmPolicy: "pairing" }), api: async () => api });
    const stored = JSON.stringify({ destination: "Ubot", event: messageEvent("hi", { type: "user", userId: ALICE }) });
    expect(await inbound.decide({ body: stored, config, approved: new Set() })).toMatchObject({ action: "pairing" });
    const unconfigured = lineInbound({ line: () => undefined, api: async () => api });
    expect(await unconfigured.decide({ body: stored, config, approved: new Set() })).toBeNull();
    await inbound.acknowledge(config, { chatId: ALICE });
    await inbound.acknowledge(config, { chatId: OPEN });
    const sender = lineSender(api);
    const target = { channel: "line", to: `line:${ALICE}` };
    const pairing = linePairingMessage(ALICE, "ABCD2345");
    const delivery = { idempotencyKey: "run-1:reply", target, kind: "channel-reply", message: "**hi**" };
    expect(await sender.send({ target, kind: "pairing", message: pairing }, 0)).toEqual(sentOne);
    expect(await sender.send(delivery, 0)).toEqual(sentOne);
    const sent = await calls();
    expect(sent.map((c) => c.path)).toEqual([
      "/v2/bot/chat/loading/start",
      "/v2/bot/message/push",
      "/v2/bot/message/push",
    ]);
    expect(sent[1]!.body.messages[0].text).toBe(pairing);
    expect(sent[1]!.retryKey).toBeNull();
    expect(sent[2]!.body.messages[0].text).toBe("hi");
    expect(sent[2]!.retryKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("asks the host's bot messages whether a quoted message is the bot's (LINE's ids, under the channel line)", async () => {
    const asked: Array<[string, string]> = [];
    const botMessages = {
      has: (channel: string, id: string) => {
        asked.push([channel, id]);
        return channel === "line" && id === "bot-9";
      },
      note: () => undefined,
    };
    const line = { groupAllowFrom: [ALICE], groups: { [MENT]: { requireMention: true } } };
    const inbound = lineInbound({ line: () => line, api: async () => api, botMessages });
    const quoting = (quotedMessageId: string) =>
      JSON.stringify({
        destination: "Ubot",
        event: messageEvent("re", { type: "group", groupId: MENT, userId: ALICE }, { quotedMessageId }),
      });
    const approved = new Set<string>();
    expect(await inbound.decide({ body: quoting("bot-9"), config, approved })).toMatchObject({ action: "turn" });
    expect(await inbound.decide({ body: quoting("other-1"), config, approved })).toEqual({
      action: "ignore",
      reason: "no mention",
    });
    expect(asked).toEqual([
      ["line", "bot-9"],
      ["line", "other-1"],
    ]);
  });
});

describe("the LINE webhook's answers before reading", () => {
  it("refuses a missing signature (400) and an announced body over 64 KB (413) unread", () => {
    expect(lineHeadersRefusal(undefined, "10")).toMatchObject({ status: 400 });
    expect(lineHeadersRefusal("sig", String(80 * 1024))).toEqual({
      ok: false,
      status: 413,
      body: { error: "Payload too large" },
    });
    expect(lineHeadersRefusal("sig", String(64 * 1024))).toBeNull();
    expect(lineHeadersRefusal("sig", undefined)).toBeNull();
  });
});
