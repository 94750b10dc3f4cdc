import { describe, expect, it } from "vitest";
import {
  accountSendStatus,
  isAuthFailure,
  SENT_AT_WRITE_EVERY_MS,
  type SendHealth,
  sendHealthWorthWriting,
  withSendResult,
} from "../../../src/features/channels/send-health";

// What channels.status says of a channel account from the outbox's send results (OpenClaw's
// `lastError` and `statusIssues`): auth failures recognised per platform and shown first.

const T0 = Date.UTC(2026, 10, 28, 12);

describe("channel send health", () => {
  it("recognises a refused token per platform, and nothing else as auth", () => {
    expect(isAuthFailure("telegram", "telegram answered 401: Unauthorized")).toBe(true);
    expect(isAuthFailure("telegram", "telegram answered 404: Not Found")).toBe(true);
    expect(isAuthFailure("telegram", "telegram answered 403: Forbidden: bot was blocked by the user")).toBe(false);
    expect(isAuthFailure("telegram", "telegram answered 500")).toBe(false);
    expect(isAuthFailure("slack", "slack answered 200: invalid_auth")).toBe(true);
    expect(isAuthFailure("slack", "slack answered 200: token_revoked")).toBe(true);
    expect(isAuthFailure("slack", "slack answered 200: channel_not_found")).toBe(false);
    expect(isAuthFailure("slack", "telegram answered 401: Unauthorized")).toBe(false);
  });

  it("shows the auth failure first as lastError and in statusIssues, until a send succeeds", () => {
    let health: SendHealth = {};
    health = withSendResult(health, "telegram", { ok: false, error: "telegram answered 401: Unauthorized" }, T0);
    health = withSendResult(health, "telegram", { ok: false, error: "telegram answered 500" }, T0 + 1000);
    const status = accountSendStatus("telegram", "default", health);
    expect(status.lastError).toBe("telegram answered 401: Unauthorized");
    expect(status.issues.map((issue) => [issue.kind, issue.channel, issue.accountId])).toEqual([
      ["auth", "telegram", "default"],
      ["runtime", "telegram", "default"],
    ]);
    expect(status.issues[0]!.message).toContain("telegram answered 401: Unauthorized");
    expect(status.issues[0]!.fix).toMatch(/channels\.telegram\.botToken/);

    health = withSendResult(health, "telegram", { ok: true }, T0 + 2000);
    expect(accountSendStatus("telegram", "default", health)).toEqual({
      lastError: null,
      lastOutboundAt: T0 + 2000,
      issues: [],
    });
  });
});

describe("sendHealthWorthWriting (a row per send only when it tells something new)", () => {
  it("writes a change of failures at once, a success only a minute after the stored one", () => {
    const at = 1_800_000_000_000;
    expect(sendHealthWorthWriting({}, { lastSentAt: at })).toBe(true);
    expect(sendHealthWorthWriting({ lastSentAt: at }, { lastSentAt: at + 5_000 })).toBe(false);
    expect(sendHealthWorthWriting({ lastSentAt: at }, { lastSentAt: at + SENT_AT_WRITE_EVERY_MS })).toBe(true);
    const failed = { lastSentAt: at, lastFailure: { error: "telegram answered 500", at: at + 1 } };
    expect(sendHealthWorthWriting({ lastSentAt: at }, failed)).toBe(true);
    // A success after a failure clears it: written, whatever the time.
    expect(sendHealthWorthWriting(failed, { lastSentAt: at + 2 })).toBe(true);
  });
});
