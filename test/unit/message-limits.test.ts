import { describe, expect, it } from "vitest";
import { cutMarker, fitMessage, MAX_MESSAGE_BYTES } from "../../src/model/message-limits";
import type { TranscriptMessage } from "../../src/protocol/session";

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
