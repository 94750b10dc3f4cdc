import { describe, expect, it } from "vitest";
import {
  DELTA_FULL_TEXT_MAX_CHARS,
  DELTA_INTERVAL_MAX_MS,
  DELTA_INTERVAL_MS,
  DeltaThrottle,
  deltaIntervalMs,
  deltaPayloads,
} from "../../../src/runs/deltas";

/** How the Control UI folds chat deltas into the text it shows (its chat view, read from its bundle). */
function controlUiText(shown: string | null, payload: Record<string, unknown>): string | null {
  const message = payload.message as { content: Array<{ text: string }> } | undefined;
  const full = message ? message.content.map((part) => part.text).join("") : null;
  const deltaText = payload.deltaText as string;
  if (payload.replace === true) return deltaText;
  if (shown === null) return full ?? deltaText;
  if (full !== null && (full.length - deltaText.length !== shown.length || !full.startsWith(shown))) return full;
  return `${shown}${deltaText}`;
}

/** How openclaw-node folds agent assistant frames into streamed chunks. */
function nodeChunks(frames: Array<Record<string, unknown>>): string {
  let cumulative = 0;
  let out = "";
  for (const data of frames) {
    const text = data.text as string | undefined;
    if (typeof data.delta === "string") {
      cumulative = (text ?? "").length;
      out += data.delta;
    } else if (text !== undefined && text.length > cumulative) {
      out += text.slice(cumulative);
      cumulative = text.length;
    }
  }
  return out;
}

describe("deltaPayloads", () => {
  it("keeps OpenClaw's shape for short texts: the whole text on both streams", () => {
    expect(deltaPayloads("hello", "lo", 7)).toEqual({
      agent: { text: "hello", delta: "lo" },
      chat: {
        state: "delta",
        deltaText: "lo",
        message: { role: "assistant", content: [{ type: "text", text: "hello" }], timestamp: 7 },
      },
    });
  });

  it("past the threshold, carries the whole text once per frame and clients still rebuild it", () => {
    const first = "a".repeat(DELTA_FULL_TEXT_MAX_CHARS + 1);
    const second = `${first}${"b".repeat(500)}`;
    const one = deltaPayloads(first, first, 1);
    const two = deltaPayloads(second, "b".repeat(500), 2);
    expect(one.chat).toEqual({ state: "delta", deltaText: first, replace: true });
    expect(one.agent).toEqual({ text: first });
    expect(two.chat).toEqual({ state: "delta", deltaText: "b".repeat(500) });
    expect(two.agent).toEqual({ text: second, delta: "b".repeat(500) });
    expect(controlUiText(controlUiText(null, one.chat), two.chat)).toBe(second);
    expect(nodeChunks([one.agent, two.agent])).toBe(second);
  });
});

describe("delta cadence", () => {
  it("waits longer between deltas as the text grows, up to a ceiling", () => {
    expect(deltaIntervalMs(10)).toBe(DELTA_INTERVAL_MS);
    expect(deltaIntervalMs(DELTA_FULL_TEXT_MAX_CHARS * 4)).toBe(DELTA_INTERVAL_MS * 4);
    expect(deltaIntervalMs(100 * 1024 * 1024)).toBe(DELTA_INTERVAL_MAX_MS);
  });

  it("a throttle over a long text emits at the longer interval", () => {
    let now = 100_000;
    const emitted: string[] = [];
    const throttle = new DeltaThrottle(
      (text) => emitted.push(text),
      () => now,
    );
    const long = "x".repeat(DELTA_FULL_TEXT_MAX_CHARS * 8);
    throttle.push(long);
    now += DELTA_INTERVAL_MS + 1;
    throttle.push(`${long}y`);
    expect(emitted).toHaveLength(1);
    throttle.cancel();
  });
});
