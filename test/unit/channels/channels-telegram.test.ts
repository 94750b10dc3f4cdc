import { describe, expect, it } from "vitest";
import { readRefusal } from "../../../src/features/channels/rate-limit";
import { queueChannelReply } from "../../../src/features/channels/reply";
import { directSessionKey, groupSessionKey } from "../../../src/features/channels/session-route";
import {
  parseTelegramTarget,
  TelegramBotApi,
  telegramRateLimit,
} from "../../../src/features/channels/telegram/bot-api";
import {
  chunkText,
  htmlToPlainText,
  markdownToTelegramHtml,
  pairingMessage,
} from "../../../src/features/channels/telegram/format";
import { telegramPlatform } from "../../../src/features/channels/telegram/platform";
import { decideTelegram, mentionsBot, type RoutingInput } from "../../../src/features/channels/telegram/routing";
import type { RunRecord } from "../../../src/model/run-types";
import type { TelegramConfig, TelegramUpdate } from "../../../src/protocol/channels";

const BOT = { id: 123456789, username: "chan_test_bot" };

function dm(text: string, from = 555100): TelegramUpdate {
  return {
    update_id: 1,
    message: {
      message_id: 10,
      from: { id: from, is_bot: false, first_name: "User", username: "user555100" },
      chat: { id: from, type: "private" },
      text,
    },
  };
}

function group(chatId: number, text: string, extra: Record<string, unknown> = {}): TelegramUpdate {
  const at = text.indexOf("@chan_test_bot");
  return {
    update_id: 2,
    message: {
      message_id: 11,
      from: { id: 777, is_bot: false, first_name: "Member" },
      chat: { id: chatId, type: "supergroup" },
      text,
      ...(at >= 0 ? { entities: [{ type: "mention", offset: at, length: 14 }] } : {}),
      ...extra,
    },
  };
}

function decide(update: TelegramUpdate, telegram: TelegramConfig, extra: Partial<RoutingInput> = {}) {
  return decideTelegram({ update, telegram, config: {}, agentId: "main", bot: BOT, approved: new Set(), ...extra });
}

describe("Telegram direct messages", () => {
  it("pairing asks an unknown sender for a code; an approved or allowFrom sender gets a turn", () => {
    expect(decide(dm("hi"), { dmPolicy: "pairing" })).toMatchObject({
      action: "pairing",
      ask: { senderId: "555100", chatId: "555100", meta: { username: "user555100", accountId: "default" } },
    });
    expect(decide(dm("hi"), {}, { approved: new Set(["555100"]) }).action).toBe("turn");
    expect(decide(dm("hi"), { allowFrom: ["telegram:555100"] }).action).toBe("turn");
    expect(decide(dm("hi"), { allowFrom: [555100] }).action).toBe("turn");
  });

  it("allowlist ignores unlisted senders, open answers everyone, disabled nobody", () => {
    expect(decide(dm("hi"), { dmPolicy: "allowlist" }).action).toBe("ignore");
    expect(decide(dm("hi"), { dmPolicy: "allowlist", allowFrom: ["*"] }).action).toBe("turn");
    expect(decide(dm("hi"), { dmPolicy: "open" }).action).toBe("turn");
    expect(decide(dm("hi"), { dmPolicy: "disabled", allowFrom: ["555100"] }).action).toBe("ignore");
  });

  it("routes per session.dmScope with the recorded keys and route", () => {
    const keyFor = (dmScope: "main" | "per-peer" | "per-channel-peer" | "per-account-channel-peer") => {
      const decision = decide(dm("hi"), { dmPolicy: "open" }, { config: { session: { dmScope } } });
      return decision.action === "turn" ? decision.turn.sessionKey : null;
    };
    expect(keyFor("main")).toBe("agent:main:main");
    expect(keyFor("per-peer")).toBe("agent:main:direct:555100");
    expect(keyFor("per-channel-peer")).toBe("agent:main:telegram:direct:555100");
    expect(keyFor("per-account-channel-peer")).toBe("agent:main:telegram:default:direct:555100");
    const decision = decide(dm("hi"), { dmPolicy: "open" });
    expect(decision).toMatchObject({
      action: "turn",
      turn: {
        replyTarget: { channel: "telegram", to: "telegram:555100", accountId: "default" },
        seed: { chatType: "direct", channel: "telegram" },
        ack: { chatId: "555100" },
      },
    });
  });

  it("ignores the bot's own messages, bots, edits and messages without text", () => {
    expect(decide(dm("hi", BOT.id), { dmPolicy: "open" }).action).toBe("ignore");
    expect(decide({ update_id: 3, edited_message: {} }, { dmPolicy: "open" }).action).toBe("ignore");
    expect(decide(dm("   "), { dmPolicy: "open" }).action).toBe("ignore");
  });
});

describe("Telegram groups", () => {
  const groups = { "-100111": { requireMention: true }, "-100222": { requireMention: false } };

  it("listed groups are the allowlist, even with groupPolicy open", () => {
    expect(decide(group(-100999, "@chan_test_bot hi"), { groupPolicy: "open", groups }).action).toBe("ignore");
    expect(decide(group(-100999, "hi"), { groupPolicy: "open" }).action).toBe("ignore"); // requireMention defaults on
    expect(decide(group(-100999, "@chan_test_bot hi"), { groupPolicy: "open" }).action).toBe("turn");
    expect(decide(group(-100999, "@chan_test_bot hi"), {}).action).toBe("ignore"); // default allowlist
    expect(decide(group(-100222, "hi"), { groupPolicy: "disabled", groups }).action).toBe("ignore");
  });

  it("requireMention: a mention entity or a reply to the bot; the 👀 ack only where a mention was required", () => {
    expect(decide(group(-100111, "no mention"), { groupPolicy: "open", groups }).action).toBe("ignore");
    const mentioned = decide(group(-100111, "@chan_test_bot please"), { groupPolicy: "open", groups });
    expect(mentioned).toMatchObject({
      action: "turn",
      turn: {
        sessionKey: "agent:main:telegram:group:-100111",
        text: "@chan_test_bot please",
        ack: { chatId: "-100111", reactToMessageId: 11 },
        replyTarget: { to: "telegram:-100111" },
        seed: { chatType: "group", displayName: "Group -100111" },
      },
    });
    const reply = group(-100111, "answer", { reply_to_message: { from: { id: BOT.id, is_bot: true } } });
    expect(decide(reply, { groupPolicy: "open", groups }).action).toBe("turn");
    const open = decide(group(-100222, "talk"), { groupPolicy: "open", groups });
    expect(open.action === "turn" && open.turn.ack.reactToMessageId).toBe(undefined);
  });

  it("a mention of someone else is no mention", () => {
    const update = group(-100111, "@other_bot hi");
    update.message!.entities = [{ type: "mention", offset: 0, length: 10 }];
    expect(mentionsBot(update.message!, BOT)).toBe(false);
  });

  it("forum topics get their own session; a forum message without a thread is the General topic", () => {
    const forum = { id: -100222, type: "supergroup", is_forum: true };
    const topic = decide(group(-100222, "t", { chat: forum, message_thread_id: 42, is_topic_message: true }), {
      groupPolicy: "open",
      groups,
    });
    expect(topic).toMatchObject({
      action: "turn",
      turn: {
        sessionKey: "agent:main:telegram:group:-100222:topic:42",
        replyTarget: { to: "telegram:-100222:topic:42", threadId: 42 },
        ack: { typingThreadId: 42 },
      },
    });
    const general = decide(group(-100222, "g", { chat: forum }), { groupPolicy: "open", groups });
    expect(general.action === "turn" && general.turn.sessionKey).toBe("agent:main:telegram:group:-100222:topic:1");
  });
});

describe("session keys", () => {
  it("are shared by every channel", () => {
    expect(
      directSessionKey({ config: {}, agentId: "Ops", channel: "slack", accountId: "default", peerId: "U0ALICE" }),
    ).toBe("agent:ops:main");
    expect(
      directSessionKey({
        config: { session: { dmScope: "per-channel-peer" } },
        agentId: "main",
        channel: "slack",
        accountId: "default",
        peerId: "U0ALICE",
      }),
    ).toBe("agent:main:slack:direct:u0alice");
    expect(
      groupSessionKey({ agentId: "main", channel: "slack", groupId: "C0OPEN", thread: { kind: "thread", id: "1.2" } }),
    ).toBe("agent:main:slack:group:c0open:thread:1.2");
  });
});

describe("Telegram formatting", () => {
  it("renders the recorded Markdown as Telegram HTML", () => {
    expect(markdownToTelegramHtml("**bold** and `code` and [link](https://example.com)\n\n- item 1\n- item 2")).toBe(
      '<b>bold</b> and <code>code</code> and <a href="https://example.com">link</a>\n\n• item 1\n• item 2',
    );
    expect(markdownToTelegramHtml("a < b & *c*")).toBe("a &lt; b &amp; <i>c</i>");
    expect(markdownToTelegramHtml("```js\nif (a<b) {}\n```")).toBe(
      '<pre><code class="language-js">if (a&lt;b) {}</code></pre>',
    );
    expect(markdownToTelegramHtml("`**not bold**`")).toBe("<code>**not bold**</code>");
  });

  it("the plain-text retry drops tags and spells links out", () => {
    expect(htmlToPlainText('<b>x</b> <a href="https://example.com">link</a> &lt;y&gt;')).toBe(
      "x link (https://example.com) <y>",
    );
  });

  it("chunks at 4000 on line boundaries; 4096 without breaks is 4000 + 96", () => {
    const lines = `${Array.from({ length: 90 }, (_, i) => `${i} ${"x".repeat(96)}`).join("\n")}\n`;
    const chunks = chunkText(lines);
    expect(chunks.length).toBe(3);
    expect(chunks.every((c) => c.length <= 4000)).toBe(true);
    expect(chunks.slice(0, -1).every((c) => c.endsWith("\n"))).toBe(true);
    expect(chunks.join("")).toBe(lines.trimEnd());
    expect(chunkText("y".repeat(4096)).map((c) => c.length)).toEqual([4000, 96]);
    expect(chunkText("short")).toEqual(["short"]);
  });

  it("the pairing message is OpenClaw's", () => {
    expect(pairingMessage("555100", "WQR4U7TB")).toBe(
      'OpenClaw: access not configured.\n\nYour Telegram user id: 555100\nPairing code:\n\n<pre><code>WQR4U7TB\n</code></pre>\nAsk the bot owner to approve it on the Control UI\'s Channels page, or with:\n\n<pre><code>POST /v1/channels/telegram/pairing/approve {"code":"WQR4U7TB"}\n</code></pre>',
    );
  });

  it("targets name the chat and topic", () => {
    expect(parseTelegramTarget({ channel: "telegram", to: "telegram:-100222:topic:42" })).toEqual({
      chatId: "-100222",
      threadId: 42,
    });
    expect(parseTelegramTarget({ channel: "telegram", to: "telegram:555100" })).toEqual({ chatId: "555100" });
    expect(parseTelegramTarget({ channel: "telegram", to: "channel:abc" })).toBe(null);
  });
});

describe("chat turn replies", () => {
  const run = (replyTarget?: RunRecord["input"]["replyTarget"]) =>
    ({ runId: "telegram:7", input: { replyTarget } }) as unknown as RunRecord;

  it("are queued once per run under the run's key, never for NO_REPLY or an empty answer", () => {
    const queued: unknown[] = [];
    const outbox = { enqueue: (input: unknown) => queued.push(input) };
    const target = { channel: "telegram", to: "telegram:1" };
    queueChannelReply(outbox, run(target), "hello");
    queueChannelReply(outbox, run(target), "NO_REPLY");
    queueChannelReply(outbox, run(target), "  ");
    queueChannelReply(outbox, run(undefined), "not a chat turn");
    expect(queued).toEqual([{ idempotencyKey: "telegram:7:reply", kind: "channel-reply", target, message: "hello" }]);
  });
});

describe("channels config", () => {
  it("accepts a pasted block's harmless keys and refuses credentials it would not keep secret", async () => {
    const { tenantConfigSchema } = await import("../../../src/protocol/config");
    const pasted = {
      enabled: true,
      botToken: "1:x",
      webhookHost: "127.0.0.1",
      webhookPort: 8787,
      streaming: "progress",
    };
    expect(tenantConfigSchema.safeParse({ channels: { telegram: pasted } }).success).toBe(true);
    const nested = tenantConfigSchema.safeParse({ channels: { telegram: { accounts: { b: { botToken: "2:y" } } } } });
    expect(nested.success).toBe(false);
    expect(nested.error?.issues[0]?.path).toEqual(["channels", "telegram", "accounts", "b", "botToken"]);
    expect(tenantConfigSchema.safeParse({ channels: { discord: { token: "x" } } }).success).toBe(false);
  });
});

describe("the Telegram sender", () => {
  const policy = { allowLoopback: true, allowedHosts: [], ownOrigins: [] };

  /** A Bot API answering each sendMessage with the next of `answers` (default ok), recording bodies. */
  async function withFakeApi(answers: Array<[number, string?]>, body: (api: TelegramBotApi) => Promise<void>) {
    const sent: Array<Record<string, unknown>> = [];
    const original = globalThis.fetch;
    globalThis.fetch = (async (_url: string, init: RequestInit) => {
      sent.push(JSON.parse(String(init.body)));
      const [status, description] = answers.shift() ?? [200];
      return new Response(JSON.stringify(status === 200 ? { ok: true, result: {} } : { ok: false, description }), {
        status,
      });
    }) as typeof fetch;
    try {
      await body(new TelegramBotApi("1:t", "http://127.0.0.1:9", policy));
    } finally {
      globalThis.fetch = original;
    }
    return sent;
  }

  it("sends one part per call (the outbox paces the next), stops at a failed part and resumes after the parts sent", async () => {
    const text = `${"a".repeat(3999)}\n${"b".repeat(3999)}\nccc`;
    const target = { channel: "telegram", to: "telegram:-100222:topic:42" };
    const outcomes: unknown[] = [];
    const sent = await withFakeApi([[200], [500, "Internal Server Error"]], async (api) => {
      for (const fromPart of [0, 1, 1, 2])
        outcomes.push(readRefusal(await api.sendReply(target, text, fromPart), telegramRateLimit));
    });
    expect(outcomes).toEqual([
      { partsSent: 1, moreParts: true },
      { partsSent: 1, error: "telegram answered 500: Internal Server Error" },
      { partsSent: 2, moreParts: true },
      { partsSent: 3 },
    ]);
    expect(sent.map((b) => String(b.text)[0])).toEqual(["a", "b", "b", "c"]);
    expect(sent[0]).toMatchObject({ chat_id: "-100222", message_thread_id: 42, parse_mode: "HTML" });
  });

  it("reads a 429's parameters.retry_after (its descriptor's rule) as how long the outbox must wait", async () => {
    const original = globalThis.fetch;
    globalThis.fetch = (async () =>
      new Response(
        JSON.stringify({
          ok: false,
          error_code: 429,
          description: "Too Many Requests: retry after 7",
          parameters: { retry_after: 7 },
        }),
        { status: 429 },
      )) as unknown as typeof fetch;
    try {
      const api = new TelegramBotApi("1:t", "http://127.0.0.1:9", policy);
      const outcome = await api.sendReply({ channel: "telegram", to: "telegram:5" }, "hi", 0);
      expect(readRefusal(outcome, telegramPlatform.rateLimit)).toEqual({
        partsSent: 0,
        error: "telegram answered 429: Too Many Requests: retry after 7",
        retryAfterMs: 7_000,
      });
    } finally {
      globalThis.fetch = original;
    }
  });

  it("re-sends a part Telegram cannot parse as plain text, once", async () => {
    const sent = await withFakeApi([[400, "Bad Request: can't parse entities"]], async (api) => {
      expect(await api.sendReply({ channel: "telegram", to: "telegram:5" }, "see [x](https://e.com)", 0)).toEqual({
        partsSent: 1,
      });
    });
    expect(sent).toEqual([
      { chat_id: "5", text: 'see <a href="https://e.com">x</a>', parse_mode: "HTML" },
      { chat_id: "5", text: "see x (https://e.com)" },
    ]);
  });
});

describe("the Telegram sender's declared credentials", () => {
  it("are the token and its secret half (the bot id before the colon is public)", () => {
    const bot = new TelegramBotApi("7654321:AAEchoBotToken-Zq81tL0vWm3Kp7Rj5Nw", "https://api.telegram.org", {
      allowLoopback: false,
      allowedHosts: [],
      ownOrigins: [],
    });
    expect(bot.sender().credentials).toEqual([
      "7654321:AAEchoBotToken-Zq81tL0vWm3Kp7Rj5Nw",
      "AAEchoBotToken-Zq81tL0vWm3Kp7Rj5Nw",
    ]);
  });
});
