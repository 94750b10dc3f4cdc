import { describe, expect, it } from "vitest";
import type { StoredMessage } from "../../../src/model/message-record";
import { redactSecrets } from "../../../src/render/redact";
import {
  CHAT_HISTORY_OVERSIZED_TEXT,
  filterToolMessages,
  SESSIONS_HISTORY_MAX_BYTES,
  SESSIONS_HISTORY_OVERSIZED_TEXT,
  sanitizeChatHistory,
  sanitizeToolHistory,
  stripDirectiveTags,
  utf8Bytes,
} from "../../../src/render/sanitize";

const CHAT_SUFFIX = "\n...(truncated)...";
const TOOL_SUFFIX = "\n…(truncated)…";

function encodedBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}

function user(text: string, extra: Record<string, unknown> = {}): StoredMessage {
  return { role: "user", content: [{ type: "text", text }], ...extra };
}

function assistant(text: string, extra: Record<string, unknown> = {}): StoredMessage {
  return { role: "assistant", content: [{ type: "text", text }], ...extra };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function firstBlock(message: StoredMessage | undefined): Record<string, unknown> {
  const content = message?.content;
  if (!Array.isArray(content)) throw new Error("expected block content");
  return content[0] as Record<string, unknown>;
}

function firstBlockText(message: StoredMessage): unknown {
  return typeof message.content === "string" ? message.content : firstBlock(message).text;
}

describe("utf8Bytes", () => {
  it("counts the UTF-8 bytes of the JSON encoding, including multibyte characters", () => {
    for (const value of ["abc", "é", "€", "😀", { a: "日本語", b: ["🎉", 1] }, [user("ü€😀")]]) {
      expect(utf8Bytes(value)).toBe(encodedBytes(value));
    }
    expect(utf8Bytes("😀")).toBe(6); // quotes + 4-byte code point
  });

  it("counts lone surrogates as JSON.stringify escapes them", () => {
    const value = "a\ud800b";
    expect(utf8Bytes(value)).toBe(encodedBytes(value));
  });

  it("falls back to String(value) when there is no JSON form", () => {
    expect(utf8Bytes(undefined)).toBe("undefined".length);
  });
});

describe("filterToolMessages", () => {
  it("drops toolResult and tool roles and keeps everything else in order", () => {
    const messages = [
      user("a"),
      { role: "toolResult", content: [] },
      assistant("b"),
      { role: "tool", content: "x" },
      { role: "system", content: "s" },
    ];
    expect(filterToolMessages(messages).map((m) => m.role)).toEqual(["user", "assistant", "system"]);
  });
});

describe("stripDirectiveTags", () => {
  it("removes reply and audio directive tags, case- and whitespace-insensitively", () => {
    expect(stripDirectiveTags("[[reply_to_current]] hi")).toBe(" hi");
    expect(stripDirectiveTags("hi [[ Reply_To : 12345 ]]")).toBe("hi ");
    expect(stripDirectiveTags("[[audio_as_voice]]voice")).toBe("voice");
    expect(stripDirectiveTags("a[[AUDIO_AS_VOICE]]b")).toBe("ab");
  });

  it("leaves reply tags glued to a preceding word alone", () => {
    expect(stripDirectiveTags("http://x/[[reply_to_current]]")).toBe("http://x/[[reply_to_current]]");
  });

  it("leaves unknown double-bracket text alone", () => {
    expect(stripDirectiveTags("see [[wiki link]]")).toBe("see [[wiki link]]");
  });
});

describe("redactSecrets", () => {
  it("leaves ordinary text untouched and reports no redaction", () => {
    expect(redactSecrets("hello world, nothing secret")).toEqual({
      text: "hello world, nothing secret",
      redacted: false,
    });
  });

  it("masks long provider keys keeping the first 6 and last 4 characters", () => {
    const key = "sk-proj-abcdefghijklmnopqrstuvwxyz1234";
    const result = redactSecrets(`use ${key} please`);
    expect(result).toEqual({ text: "use sk-pro…1234 please", redacted: true });
  });

  it("masks tokens shorter than 18 characters completely", () => {
    expect(redactSecrets("key sk-abcdefgh1").text).toBe("key ***");
  });

  it("masks GitHub, Slack and AWS credentials", () => {
    const ghp = `ghp_${"a".repeat(36)}`;
    const pat = `github_pat_${"B".repeat(30)}`;
    const slack = "xoxb-1234567890-abcdefghij";
    const aws = "AKIAIOSFODNN7EXAMPLE";
    const { text } = redactSecrets(`${ghp} ${pat} ${slack} ${aws}`);
    expect(text).toBe(`ghp_aa…aaaa github…BBBB xoxb-1…ghij AKIAIO…MPLE`);
  });

  it("masks Authorization Bearer headers", () => {
    const token = "abcdefghijklmnopqrstuvwxyz0123";
    expect(redactSecrets(`Authorization: Bearer ${token}`).text).toBe("Authorization: Bearer abcdef…0123");
  });

  it("masks key=value style assignments", () => {
    expect(redactSecrets("OPENAI_API_KEY=abcdefghijklmnopqrstuvwxyz").text).toBe("OPENAI_API_KEY=abcdef…wxyz");
    expect(redactSecrets('token: "abc123"').text).toBe('token: "***"');
    expect(redactSecrets("my_secret =\tabcdefghijklmnopqrstuvwxyz").text).toBe("my_secret =\tabcdef…wxyz");
  });

  it("does not treat a label at the end of a line as an assignment of the next line", () => {
    expect(redactSecrets("Primary key:\nid").redacted).toBe(false);
  });

  it("never shows any part of a password", () => {
    expect(redactSecrets("password=correct-horse-battery-staple").text).toBe("password=***");
    expect(redactSecrets("--password hunter2").text).toBe("--password ***");
  });

  it("masks JSON secret fields without touching the field name", () => {
    const secret = "zyxwvutsrqponmlkjihgfedcba";
    expect(redactSecrets(`{"token": "${secret}"}`).text).toBe('{"token": "zyxwvu…dcba"}');
  });

  it("collapses PEM private key blocks to their BEGIN/END lines, even after a `key:` label", () => {
    const pem = [
      "-----BEGIN RSA PRIVATE KEY-----",
      "MIIEowIBAAKCAQEA1234567890",
      "abcdefghijklmnop",
      "-----END RSA PRIVATE KEY-----",
    ].join("\n");
    expect(redactSecrets(`key:\n${pem}\ndone`).text).toBe(
      "key:\n-----BEGIN RSA PRIVATE KEY-----\n…redacted…\n-----END RSA PRIVATE KEY-----\ndone",
    );
  });
});

describe("sanitizeChatHistory", () => {
  it("drops details and keeps __openclaw metadata", () => {
    const out = sanitizeChatHistory([
      { role: "toolResult", content: [], details: { huge: true }, __openclaw: { id: "e1", seq: 1 } },
    ]);
    expect(out).toEqual([{ role: "toolResult", content: [], __openclaw: { id: "e1", seq: 1 } }]);
  });

  it("drops usage and cost from non-assistant messages", () => {
    const [out] = sanitizeChatHistory([user("hi", { usage: { input: 1 }, cost: { total: 1 } })]);
    expect(out).not.toHaveProperty("usage");
    expect(out).not.toHaveProperty("cost");
  });

  it("keeps only finite numeric whitelisted usage keys and cost.total on assistant messages", () => {
    const usage = {
      input: 10,
      output: 20,
      totalTokens: 30,
      cacheRead: 5,
      cacheWrite: Number.NaN,
      cache_read_input_tokens: 2,
      cache_creation_input_tokens: Number.POSITIVE_INFINITY,
      inputTokens: "7",
      reasoning: 99,
      cost: { input: 0.1, output: 0.2, total: 0.3 },
    };
    const [out] = sanitizeChatHistory([assistant("ok", { usage })]);
    expect(out?.usage).toEqual({
      input: 10,
      output: 20,
      totalTokens: 30,
      cacheRead: 5,
      cache_read_input_tokens: 2,
      cost: { total: 0.3 },
    });
  });

  it("removes assistant usage entirely when nothing numeric survives", () => {
    const [out] = sanitizeChatHistory([assistant("ok", { usage: { input: "x" } })]);
    expect(out).not.toHaveProperty("usage");
  });

  it("truncates text, partialJson, string arguments and thinking to maxChars with the chat suffix", () => {
    const long = "x".repeat(20);
    const [out] = sanitizeChatHistory(
      [
        {
          role: "assistant",
          content: [
            { type: "text", text: long },
            { type: "toolCall", id: "t", name: "n", arguments: long, partialJson: long },
            { type: "toolCall", id: "t2", name: "n", arguments: { q: long } },
            { type: "thinking", thinking: long },
          ],
        },
      ],
      { maxChars: 5 },
    );
    const blocks = out?.content as Record<string, unknown>[];
    const cut = `xxxxx${CHAT_SUFFIX}`;
    expect(blocks[0]?.text).toBe(cut);
    expect(blocks[1]?.arguments).toBe(cut);
    expect(blocks[1]?.partialJson).toBe(cut);
    expect(blocks[2]?.arguments).toEqual({ q: long });
    expect(blocks[3]?.thinking).toBe(cut);
  });

  it("defaults maxChars to 12000", () => {
    const [kept] = sanitizeChatHistory([user("a".repeat(12_000))]);
    const [cut] = sanitizeChatHistory([user("a".repeat(12_001))]);
    expect(firstBlock(kept).text).toBe("a".repeat(12_000));
    expect(firstBlock(cut).text).toBe(`${"a".repeat(12_000)}${CHAT_SUFFIX}`);
  });

  it("never splits a surrogate pair when truncating", () => {
    const [out] = sanitizeChatHistory([user("a😀b")], { maxChars: 2 });
    expect(firstBlock(out).text).toBe(`a${CHAT_SUFFIX}`);
  });

  it("truncates string content and message-level text too", () => {
    const [out] = sanitizeChatHistory([{ role: "user", content: "abcdef", text: "ghijkl" }], {
      maxChars: 3,
    });
    expect(out?.content).toBe(`abc${CHAT_SUFFIX}`);
    expect(out?.text).toBe(`ghi${CHAT_SUFFIX}`);
  });

  it("strips inline directive tags from displayed text", () => {
    const [a, b] = sanitizeChatHistory([
      assistant("[[reply_to_current]]Hello [[audio_as_voice]]there"),
      { role: "assistant", content: "[[reply_to: 42]] Done" },
    ]);
    expect(firstBlock(a).text).toBe("Hello there");
    expect(b?.content).toBe(" Done");
  });

  it("drops thinkingSignature", () => {
    const [out] = sanitizeChatHistory([
      { role: "assistant", content: [{ type: "thinking", thinking: "hm", thinkingSignature: "sig" }] },
    ]);
    expect(firstBlock(out)).toEqual({ type: "thinking", thinking: "hm" });
  });

  it("replaces image data with omitted and the decoded byte length", () => {
    const data = btoa("0123456789"); // 10 bytes -> "MDEyMzQ1Njc4OQ=="
    const [out] = sanitizeChatHistory([user("x", { content: [{ type: "image", data, mimeType: "image/png" }] })]);
    expect(firstBlock(out)).toEqual({ type: "image", mimeType: "image/png", omitted: true, bytes: 10 });
  });

  it("omits assistant messages whose whole text is NO_REPLY", () => {
    const out = sanitizeChatHistory([
      user("ping"),
      assistant("NO_REPLY"),
      { role: "assistant", content: "  NO_REPLY\n" },
      assistant("NO_REPLY, but actually here is an answer"),
      user("NO_REPLY"),
    ]);
    expect(out.map((m) => firstBlockText(m))).toEqual(["ping", "NO_REPLY, but actually here is an answer", "NO_REPLY"]);
  });

  it("keeps assistant NO_REPLY text when it sits beside a tool call", () => {
    const msg: StoredMessage = {
      role: "assistant",
      content: [
        { type: "text", text: "NO_REPLY" },
        { type: "toolCall", id: "1", name: "x", arguments: {} },
      ],
    };
    expect(sanitizeChatHistory([msg])).toHaveLength(1);
  });

  it("replaces a message over 128 KiB with a placeholder that keeps role, timestamp and __openclaw", () => {
    const big: StoredMessage = {
      role: "toolResult",
      timestamp: 123,
      content: Array.from({ length: 12 }, () => ({ type: "text", text: "y".repeat(12_000) })),
      __openclaw: { id: "e9", seq: 9 },
    };
    const out = sanitizeChatHistory([user("before"), big]);
    expect(out[1]).toEqual({
      role: "toolResult",
      timestamp: 123,
      content: [{ type: "text", text: CHAT_HISTORY_OVERSIZED_TEXT }],
      __openclaw: { id: "e9", seq: 9, truncated: true, reason: "oversized" },
    });
    expect(out[0]).toEqual(user("before"));
  });

  it("uses the budget as the single-message limit when it is below 128 KiB", () => {
    const msg = user("z".repeat(500));
    const out = sanitizeChatHistory([msg], { budgetBytes: 300 });
    expect(firstBlock(out[0]).text).toBe(CHAT_HISTORY_OVERSIZED_TEXT);
  });

  it("caps the array to the budget keeping the newest messages (multibyte exact)", () => {
    const messages = ["é", "€€", "😀😀😀"].map((t, i) => user(t.repeat(10), { __openclaw: { seq: i + 1 } }));
    const exact = encodedBytes(messages);
    expect(sanitizeChatHistory(messages, { budgetBytes: exact })).toEqual(messages);
    const lessByOne = sanitizeChatHistory(messages, { budgetBytes: exact - 1 });
    expect(lessByOne).toEqual(messages.slice(1));
    expect(encodedBytes(lessByOne)).toBeLessThanOrEqual(exact - 1);
  });

  it("falls back to the last message's placeholder when the last message alone exceeds the budget", () => {
    const last = user("€".repeat(40), { timestamp: 7, __openclaw: { seq: 2 } });
    // The message fits the single-message limit but not inside "[...]".
    const budget = encodedBytes(last);
    const out = sanitizeChatHistory([user("old"), last], { budgetBytes: budget });
    expect(out).toEqual([
      {
        role: "user",
        timestamp: 7,
        content: [{ type: "text", text: CHAT_HISTORY_OVERSIZED_TEXT }],
        __openclaw: { seq: 2, truncated: true, reason: "oversized" },
      },
    ]);
  });

  it("does not mutate its input", () => {
    const input = deepFreeze([
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "t".repeat(50), thinkingSignature: "s" },
          { type: "image", data: "QUJD", mimeType: "image/png" },
          { type: "text", text: "[[reply_to_current]] hi" },
        ],
        details: {},
        usage: { input: 1, bogus: 2 },
        __openclaw: { id: "a", seq: 1 },
      },
    ] as StoredMessage[]);
    const snapshot = structuredClone(input);
    expect(() => sanitizeChatHistory(input, { maxChars: 10 })).not.toThrow();
    expect(input).toEqual(snapshot);
  });
});

describe("sanitizeToolHistory", () => {
  it("drops toolResult and tool messages unless includeTools is set", () => {
    const messages = [user("a"), { role: "toolResult", content: [] }, { role: "tool", content: "t" }, assistant("b")];
    expect(sanitizeToolHistory(messages).messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(sanitizeToolHistory(messages, { includeTools: true }).messages).toHaveLength(4);
  });

  it("drops details, usage and cost and reports contentTruncated", () => {
    const result = sanitizeToolHistory([assistant("ok", { usage: { input: 1 }, cost: 1, details: {} })]);
    expect(result.messages).toEqual([assistant("ok")]);
    expect(result.contentTruncated).toBe(true);
    expect(result.truncated).toBe(true);
    expect(result.droppedMessages).toBe(0);
  });

  it("reports nothing when no content was changed", () => {
    const result = sanitizeToolHistory([user("hi"), assistant("hello")]);
    expect(result).toMatchObject({
      truncated: false,
      droppedMessages: 0,
      contentTruncated: false,
      contentRedacted: false,
    });
  });

  it("redacts secrets in text, thinking, partialJson and string content", () => {
    const key = "sk-ant-abcdefghijklmnopqrstuvwxyz";
    const result = sanitizeToolHistory([
      {
        role: "assistant",
        content: [
          { type: "text", text: `key ${key}` },
          { type: "thinking", thinking: `think ${key}` },
          { type: "toolCall", id: "1", name: "x", arguments: {}, partialJson: `{"k":"${key}"}` },
        ],
      },
      { role: "user", content: `mine is ${key}` },
    ]);
    expect(result.contentRedacted).toBe(true);
    expect(JSON.stringify(result.messages)).not.toContain(key);
    expect(result.messages[1]?.content).toBe("mine is sk-ant…wxyz");
  });

  it("truncates text to 4000 chars with the tool suffix after redacting", () => {
    const key = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const text = `${"a".repeat(3990)} ${key} tail`;
    const result = sanitizeToolHistory([user(text)]);
    const out = firstBlock(result.messages[0]).text as string;
    expect(out.endsWith(TOOL_SUFFIX)).toBe(true);
    expect(out.length).toBe(4000 + TOOL_SUFFIX.length);
    expect(out).not.toContain("ghp_abcdefg");
    expect(result.contentTruncated).toBe(true);
    expect(result.contentRedacted).toBe(true);
  });

  it("drops thinkingSignature and replaces image data with omitted/bytes", () => {
    const result = sanitizeToolHistory([
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "hm", thinkingSignature: "sig" },
          { type: "image", data: btoa("abcd"), mimeType: "image/jpeg" },
        ],
      },
    ]);
    expect(result.messages[0]?.content).toEqual([
      { type: "thinking", thinking: "hm" },
      { type: "image", mimeType: "image/jpeg", omitted: true, bytes: 4 },
    ]);
    expect(result.contentTruncated).toBe(true);
  });

  it("caps the array at 80 KiB keeping the newest messages (multibyte text)", () => {
    // 3999 × "€" = ~12 KB UTF-8 per message; 10 messages ≈ 120 KB.
    const messages = Array.from({ length: 10 }, (_, i) => user("€".repeat(3999), { __openclaw: { seq: i + 1 } }));
    const result = sanitizeToolHistory(messages);
    expect(result.bytes).toBeLessThanOrEqual(SESSIONS_HISTORY_MAX_BYTES);
    expect(result.bytes).toBe(encodedBytes(result.messages));
    expect(result.messages.length).toBeLessThan(10);
    expect(result.droppedMessages).toBe(10 - result.messages.length);
    expect(result.truncated).toBe(true);
    expect(result.contentTruncated).toBe(false);
    expect(result.messages.at(-1)).toEqual(messages.at(-1));
    // Exactly the newest messages that fit: one more would overflow.
    const withOneMore = messages.slice(-(result.messages.length + 1));
    expect(encodedBytes(withOneMore)).toBeGreaterThan(SESSIONS_HISTORY_MAX_BYTES);
  });

  it("keeps everything at exactly 80 KiB and drops the oldest one byte over (4-byte chars)", () => {
    // 1999 emoji = 3998 UTF-16 chars (under the 4000-char cap) = 7996 UTF-8 bytes.
    const base = Array.from({ length: 10 }, () => user("😀".repeat(1999)));
    const padChars = SESSIONS_HISTORY_MAX_BYTES - encodedBytes([...base, user("")]);
    expect(padChars).toBeGreaterThan(0);
    expect(padChars).toBeLessThanOrEqual(4000);

    const atCap = [...base, user("a".repeat(padChars))];
    expect(encodedBytes(atCap)).toBe(SESSIONS_HISTORY_MAX_BYTES);
    const kept = sanitizeToolHistory(atCap);
    expect(kept.messages).toEqual(atCap);
    expect(kept.bytes).toBe(SESSIONS_HISTORY_MAX_BYTES);
    expect(kept.droppedMessages).toBe(0);

    const overByOne = [...base, user("a".repeat(padChars + 1))];
    const capped = sanitizeToolHistory(overByOne);
    expect(capped.messages).toEqual(overByOne.slice(1));
    expect(capped.droppedMessages).toBe(1);
    expect(capped.truncated).toBe(true);
  });

  it("returns a single placeholder when even the newest message exceeds 80 KiB", () => {
    const blocks = Array.from({ length: 10 }, () => ({ type: "text", text: "€".repeat(4000) }));
    const result = sanitizeToolHistory([user("older"), { role: "assistant", content: blocks }]);
    expect(result.messages).toEqual([{ role: "assistant", content: SESSIONS_HISTORY_OVERSIZED_TEXT }]);
    expect(result.droppedMessages).toBe(2);
    expect(result.truncated).toBe(true);
    expect(result.bytes).toBe(encodedBytes(result.messages));
  });

  it("reports 2 bytes for an empty history", () => {
    expect(sanitizeToolHistory([])).toEqual({
      messages: [],
      truncated: false,
      droppedMessages: 0,
      contentTruncated: false,
      contentRedacted: false,
      bytes: 2,
    });
  });

  it("does not mutate its input", () => {
    const input = deepFreeze([
      {
        role: "assistant",
        content: [
          { type: "text", text: "token=abcdefghijklmnopqrstuvwxyz" },
          { type: "image", data: "QUJD" },
        ],
        usage: { input: 1 },
      },
    ] as StoredMessage[]);
    const snapshot = structuredClone(input);
    sanitizeToolHistory(input);
    expect(input).toEqual(snapshot);
  });
});
