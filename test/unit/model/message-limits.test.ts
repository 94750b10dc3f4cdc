import { describe, expect, it } from "vitest";
import {
  cutMarker,
  fitMessage,
  MAX_MESSAGE_BYTES,
  oversized,
  SESSION_MESSAGE_MAX_BYTES,
  tooLargeMessage,
} from "../../../src/model/message-limits";
import type { TranscriptMessage } from "../../../src/protocol/session";

const size = (message: TranscriptMessage) => new TextEncoder().encode(JSON.stringify(message)).byteLength;

describe("fitMessage", () => {
  it("returns a message that fits as it is", () => {
    const message: TranscriptMessage = { role: "assistant", content: [{ type: "text", text: "short" }], timestamp: 1 };
    expect(fitMessage(message)).toEqual({ message, cutBytes: 0, json: JSON.stringify(message) });
  });

  it("cuts the end of a reply over the limit and says so, keeping its start", () => {
    const text = `start ${"é".repeat(MAX_MESSAGE_BYTES)}`;
    const message: TranscriptMessage = { role: "assistant", content: [{ type: "text", text }], timestamp: 1 };
    const { message: fitted, cutBytes } = fitMessage(message);
    expect(size(fitted)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    expect(cutBytes).toBeGreaterThan(0);
    const cut = (fitted.content as unknown as Array<{ text: string }>)[0]!.text;
    expect(cut.startsWith("start é")).toBe(true);
    expect(cut.endsWith(cutMarker(size(message)))).toBe(true);
    expect(fitted).toMatchObject({ role: "assistant", timestamp: 1 });
  });

  it("drops a tool result's details first, then cuts its text; string content too", () => {
    const big = "x".repeat(MAX_MESSAGE_BYTES);
    const result = {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "web",
      content: [{ type: "text", text: big }],
      details: { raw: big },
      isError: false,
      timestamp: 1,
    } as TranscriptMessage;
    const fitted = fitMessage(result).message as TranscriptMessage & { details: unknown };
    expect(fitted.details).toEqual({ truncated: true });
    expect(size(fitted)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
    const plain: TranscriptMessage = { role: "assistant", content: big, timestamp: 1 };
    expect(size(fitMessage(plain).message)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
  });

  it("keeps only the marker when no text is left to cut", () => {
    const message = {
      role: "assistant",
      content: [{ type: "image", data: "A".repeat(MAX_MESSAGE_BYTES), mimeType: "image/png" }],
      timestamp: 1,
    } as TranscriptMessage;
    const fitted = fitMessage(message).message;
    expect(fitted.content).toEqual([{ type: "text", text: cutMarker(size(message)) }]);
  });
});

describe("oversized: the per-session bound", () => {
  const message: TranscriptMessage = { role: "user", content: "hello", timestamp: 1 };
  const bytes = size(message);

  it("refuses messages that would take the session past its bound, saying what it holds", () => {
    expect(oversized([message], 1, 1_000 - bytes, 1_000)).toBeNull();
    const refused = oversized([message, message], 1, 1_000 - bytes, 1_000);
    expect(refused).toEqual({
      rejected: "too_large",
      bytes: 2 * bytes,
      sessionBytes: 1_000 - bytes,
      maxSessionBytes: 1_000,
    });
    // The limit in force (the tenant's transcriptBytesPerSession), not the built-in default.
    expect(tooLargeMessage(refused!)).toBe(
      `the session holds ${1_000 - bytes} bytes of messages; ${2 * bytes} more would pass the limit of 1000 bytes per session: continue in a new session`,
    );
    expect(SESSION_MESSAGE_MAX_BYTES).toBe(8 * 1024 ** 3);
  });

  it("names a single message over the per-message limit first", () => {
    const big: TranscriptMessage = { role: "user", content: "x".repeat(MAX_MESSAGE_BYTES), timestamp: 1 };
    const refused = oversized([big], 1, 0, 10);
    expect(refused).toEqual({ rejected: "too_large", bytes: size(big) });
    expect(tooLargeMessage(refused!)).toMatch(/^message is \d+ bytes of JSON; the limit is 1800000 bytes per message$/);
  });
});
