import { describe, expect, it } from "vitest";
import { accountSendStatus, isAuthFailure, type SendHealth, withSendResult } from "../../src/channels/send-health";

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
