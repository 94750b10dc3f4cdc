import { afterEach, describe, expect, inject, it } from "vitest";
import { call, freshTenant, issueToken, type TestTenant, until } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

/**
 * A chat platform (or a proxy, or a self-hosted Bot API server) that echoes the token it was
 * sent in its error: the Telegram bot token from the URL path (`/bot<token>/sendMessage`), the
 * Slack bot token from the Bearer header. Delivery records, `logs.tail`, `channels.status` and
 * the events a read-only token gets carry no trace of it; neither does the setWebhook answer
 * (issue 44, 2).
 */

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const HOOK_TOKEN = "echo-hook-token-0123456789abcdef";
const TELEGRAM_TOKEN = "7654321:AAEchoBotToken-Zq81tL0vWm3Kp7Rj5Nw";
const SLACK_TOKEN = "xoxb-echo-7e1d9a-Zq81tL0vWm3Kp7Rj5NwXhc";
const WEBHOOK_SECRET = "tg-webhook-secret-Hq2Lw9XcV4";

const open: GatewayClient[] = [];
afterEach(() => {
  for (const client of open.splice(0)) client.close();
});

async function echoingTenant(label: string): Promise<TestTenant> {
  const t = await freshTenant(label);
  const res = await t.config({
    hooks: { enabled: true, token: HOOK_TOKEN, path: "/hooks", allowedAgentIds: ["main"] },
    delivery: { maxAttempts: 1 },
    channels: {
      telegram: {
        enabled: true,
        botToken: TELEGRAM_TOKEN,
        webhookSecret: WEBHOOK_SECRET,
        webhookUrl: "https://bot.example.com/tg",
        apiRoot: `${peer}/echo-telegram`,
      },
      slack: {
        enabled: true,
        mode: "http",
        botToken: SLACK_TOKEN,
        signingSecret: "slack-signing-secret-0123456789abcdef",
        apiRoot: `${peer}/echo-slack/api/`,
      },
    },
  });
  expect(res.status, res.text).toBe(200);
  return t;
}

function expectNoTrace(text: string, token: string) {
  expect(text).not.toContain(token);
  expect(text).not.toContain(token.slice(-20));
}

/** A hook run whose reply goes to `channel:to`; answers its dead delivery as a read-only token reads it. */
async function deadDelivery(t: TestTenant, reader: string, channel: string, to: string) {
  const started = await call(`${t.prefix}/hooks/agent`, {
    method: "POST",
    token: null,
    headers: { authorization: `Bearer ${HOOK_TOKEN}` },
    json: { message: `to ${channel}`, name: channel, channel, to },
  });
  expect(started.status, started.text).toBe(200);
  return until(
    async () => {
      const keys = (await t.list()).data.sessions.map((s: { key: string }) => s.key);
      for (const key of keys.filter((k: string) => k.includes(":hook:"))) {
        const read = await call(`${t.prefix}/v1/sessions/${encodeURIComponent(key)}/deliveries`, { token: reader });
        const dead = read.data.deliveries?.find(
          (d: { status: string; target: { channel: string } }) => d.status === "dead" && d.target.channel === channel,
        );
        if (dead) return { text: read.text, lastError: dead.lastError as string };
      }
      return null;
    },
    (found) => found !== null,
  ) as Promise<{ text: string; lastError: string }>;
}

describe("every sender redacts what the platform echoed", () => {
  it("a Telegram path token and a Slack bearer echoed in errors reach no delivery record, log line or event", async () => {
    const t = await echoingTenant("echo-channels");
    const reader = await issueToken(t.id, ["operator.read"]);
    const watcher = await GatewayClient.connect({ path: t.prefix, token: reader.token });
    open.push(watcher);
    await watcher.request("sessions.subscribe", {});

    const telegram = await deadDelivery(t, reader.token, "telegram", "555100");
    expect(telegram.lastError).toBe("telegram answered 404: Not Found: /bot[REDACTED]/sendMessage (secret [REDACTED])");
    const slack = await deadDelivery(t, reader.token, "slack", "C0ECHO");
    expect(slack.lastError).toBe("slack answered 200: invalid_auth (Bearer [REDACTED])");

    const client = await GatewayClient.connect({ path: t.prefix, token: reader.token });
    open.push(client);
    const tail = await until(
      () => client.request("logs.tail", { limit: 500, maxBytes: 250_000 }),
      (answer) => answer.payload?.lines?.filter((line: string) => line.includes("delivery.dead")).length === 2,
    );
    const lines = JSON.stringify(tail.payload.lines);
    expect(lines).toContain("REDACTED");
    // channels.status (read scope) shows each channel's last failed send, redacted.
    const status = await until(
      () => call(`${t.prefix}/v1/channels/status`, { token: reader.token }),
      (r) => !!r.data.channelAccounts?.telegram?.[0]?.lastError && !!r.data.channelAccounts?.slack?.[0]?.lastError,
    );
    expect(status.data.channelAccounts.telegram[0].lastError).toContain("[REDACTED]");
    expect(watcher.events("sessions.changed").length).toBeGreaterThan(0);
    for (const text of [telegram.text, slack.text, lines, status.text, JSON.stringify(watcher.frames)]) {
      expectNoTrace(text, TELEGRAM_TOKEN);
      expectNoTrace(text, SLACK_TOKEN);
    }
  }, 120_000);

  it("setWebhook's answer carries Telegram's description without the token or the webhook secret", async () => {
    const t = await echoingTenant("echo-setwebhook");
    const res = await t.call("/v1/channels/telegram/webhook", { method: "POST" });
    // A refusal is answered 502 with Telegram's own words, redacted.
    expect(res.status, res.text).toBe(502);
    const said = "Not Found: /bot[REDACTED]/setWebhook (secret [REDACTED])";
    expect(res.data.telegram).toEqual({ status: 404, description: said });
    expect(res.data.error).toEqual({ type: "upstream", message: `Telegram refused setWebhook (404): ${said}` });
    expectNoTrace(res.text, TELEGRAM_TOKEN);
  });
});
