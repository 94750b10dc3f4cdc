/**
 * What the outbox's channel sends say about a channel account, for `channels.status` (OpenClaw's
 * `lastError` and `statusIssues`): the last failure of each kind and the last success. A send
 * the platform refused for the credentials (Telegram 401/404: the bot token is wrong or revoked;
 * Slack `invalid_auth`, `not_authed`, …) is an auth failure and is shown first; any other is a
 * runtime failure. A later success clears both (the token works, the platform answers). Pure.
 */

/** One send's result as the outbox reports it (error texts as the senders word them). */
/** `sentMessageIds`: the ids of the bot's messages the send produced, when the platform names them. */
export type ChannelSendResult = { ok: true; sentMessageIds?: string[] } | { ok: false; error: string };

export type SendFailure = { error: string; at: number };
export type SendHealth = { lastSentAt?: number; lastAuthFailure?: SendFailure; lastFailure?: SendFailure };

/** OpenClaw's `ChannelStatusIssue`. */
export type ChannelStatusIssue = {
  channel: string;
  accountId: string;
  kind: "intent" | "permissions" | "config" | "auth" | "runtime";
  message: string;
  fix?: string;
};

/** Slack Web API errors that mean the bot token itself is refused. */
const SLACK_AUTH_ERRORS = new Set(["invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive"]);

/** Whether a sender's error text (`telegram answered 401: …`, `slack answered 200: invalid_auth`) is an auth failure. */
export function isAuthFailure(channel: string, error: string): boolean {
  const match = /^(\w+) answered (\d+)(?:: (.*))?$/s.exec(error);
  if (!match || match[1] !== channel) return false;
  if (channel === "telegram") return match[2] === "401" || match[2] === "404";
  if (channel === "slack") return SLACK_AUTH_ERRORS.has((match[3] ?? "").trim());
  return match[2] === "401";
}

/** The health after one more send result at `at`. */
export function withSendResult(health: SendHealth, channel: string, result: ChannelSendResult, at: number): SendHealth {
  if (result.ok) return { lastSentAt: at };
  const failure = { error: result.error, at };
  return isAuthFailure(channel, result.error)
    ? { ...health, lastAuthFailure: failure }
    : { ...health, lastFailure: failure };
}

/** A success after a success this recent is kept in memory only: `lastOutboundAt` is shown to the minute at worst. */
export const SENT_AT_WRITE_EVERY_MS = 60_000;

/**
 * Whether `next` must be written over `stored` (issue 48: a row written per send only to move
 * `lastSentAt` a few seconds). A change of failures is always written; a success only when the
 * stored one is older than SENT_AT_WRITE_EVERY_MS. The newest health stays in memory meanwhile,
 * so a crash can only lose that last minute's `lastSentAt`.
 */
export function sendHealthWorthWriting(stored: SendHealth, next: SendHealth): boolean {
  const failuresOf = (h: SendHealth) => JSON.stringify([h.lastAuthFailure ?? null, h.lastFailure ?? null]);
  if (failuresOf(stored) !== failuresOf(next)) return true;
  if (next.lastSentAt === undefined) return false;
  return stored.lastSentAt === undefined || next.lastSentAt - stored.lastSentAt >= SENT_AT_WRITE_EVERY_MS;
}

const FIXES: Record<string, string> = {
  telegram:
    "Set channels.telegram.botToken to the token @BotFather gave the bot (PUT /v1/config, or the Control UI's Config page).",
  slack:
    "Set channels.slack.botToken to the app's Bot User OAuth Token (xoxb-…, PUT /v1/config, or the Control UI's Config page) and reinstall the app if it was revoked.",
  msteams:
    "Set channels.msteams.appId and appPassword to the Azure bot's Microsoft App ID and a current client secret (PATCH /v1/config), and tenantId for a single-tenant bot.",
};

/** An account's `lastError` (the auth failure first) and its status issues, auth first. */
export function accountSendStatus(
  channel: string,
  accountId: string,
  health: SendHealth,
): { lastError: string | null; lastOutboundAt: number | null; issues: ChannelStatusIssue[] } {
  const issues: ChannelStatusIssue[] = [];
  const { lastAuthFailure: auth, lastFailure: other } = health;
  if (auth) {
    issues.push({
      channel,
      accountId,
      kind: "auth",
      message: `Sends fail: the platform refused the bot's credentials (${auth.error}, ${new Date(auth.at).toISOString()}).`,
      ...(FIXES[channel] ? { fix: FIXES[channel] } : {}),
    });
  }
  if (other) {
    issues.push({
      channel,
      accountId,
      kind: "runtime",
      message: `Last send failed: ${other.error} (${new Date(other.at).toISOString()}).`,
    });
  }
  return {
    lastError: auth?.error ?? other?.error ?? null,
    lastOutboundAt: health.lastSentAt ?? null,
    issues,
  };
}
