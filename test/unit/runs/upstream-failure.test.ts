import { afterEach, describe, expect, it, vi } from "vitest";
import { anthropicRunner } from "../../../src/runs/runners/anthropic";
import type { RunnerRequest } from "../../../src/runs/runners/runner";
import { UPSTREAM_DETAIL_MAX_CHARS, upstreamDetail } from "../../../src/runs/runners/upstream-failure";

// One rule for every text an upstream sends about a failure: redacted, then cut to 200
// characters (the OpenAI refusal's rule, now also the Anthropic stream's `error` event).

const KEY = "sk-ant-echo-Zq81tL0vWm3Kp7Rj5NwXhc";

afterEach(() => vi.unstubAllGlobals());

describe("upstreamDetail", () => {
  it("redacts before it cuts, so a key across the cut leaves no piece", () => {
    const text = `${"x".repeat(UPSTREAM_DETAIL_MAX_CHARS - 10)} ${KEY} and more`;
    const detail = upstreamDetail(text, [KEY]);
    expect(detail).toHaveLength(UPSTREAM_DETAIL_MAX_CHARS);
    expect(detail).not.toContain(KEY.slice(0, 10));
  });
});

describe("the Anthropic runner's stream error", () => {
  it("is cut to 200 characters and carries no credential of the attempt", async () => {
    const message = `overloaded ${KEY} ${"y".repeat(1_000)}`;
    const sse = [
      `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { id: "m1", usage: { input_tokens: 1 } } })}\n\n`,
      `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message } })}\n\n`,
    ].join("");
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } })),
    );
    const request = {
      config: { type: "anthropic", baseUrl: "https://api.anthropic.com/v1", model: "claude" },
      input: {},
      context: [{ role: "user", content: "hi" }],
      credentials: new Set([KEY]),
      outbound: { allowLoopback: false, allowedHosts: [], ownOrigins: [] },
      signal: new AbortController().signal,
      onText: () => {},
    } as unknown as RunnerRequest;
    const failure = await anthropicRunner(request).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/^model stream error: overloaded \[REDACTED\] y+$/);
    expect(failure!.length).toBe("model stream error: ".length + UPSTREAM_DETAIL_MAX_CHARS);
    expect(failure).not.toContain(KEY);
  });
});
