import { afterEach, describe, expect, inject, it } from "vitest";
import { call, freshTenant, issueToken, type TestTenant, until } from "./helpers";
import { GatewayClient } from "./ws-helpers";

/**
 * A chat platform (or a proxy, or a self-hosted Bot API server) that echoes the token it was
 * sent in its error: the Telegram bot token from the URL path (`/bot<token>/sendMessage`), the
 * Slack bot token from the Bearer header. Delivery records, `logs.tail` and the events a
 * read-only token gets carry no trace of it; neither does the setWebhook answer (issue 44, 2).
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

/** A hook run whose reply goes to `channel:to`; answers the dead delivery as a read-only token reads it. */
async function deadDelivery(t: TestTenant, reader: string, channel: string, to: string) {
  const started = await call(`${t.prefix}/hooks/agent`, {
    method: "POST",
    token: null,
    headers: { authorization: `Bearer ${HOOK_TOKEN}` },
    json: { message: `to ${channel}`, name: channel, channel, to },
  });
  expect(started.status, started.text).toBe(200);
  const keys = (await t.list()).data.sessions.map((s: { key: string }) => s.key);
  const key = keys.find((k: string) => k.includes(":hook:"));
  const read = await until(
    () => call(`${t.prefix}/v1/sessions/${encodeURIComponent(key)}/deliveries`, { token: reader }),
    (r) => r.data.deliveries?.some((d: { status: string }) => d.status === "dead"),
  );
  return read;
}

describe("every sender redacts what the platform echoed", () => {
  it("a Telegram path token and a Slack bearer echoed in errors reach no delivery record, log line or event", async () => {
    const t = await echoingTenant("echo-channels");
    const reader = await issueToken(t.id, ["operator.read"]);
    const watcher = await GatewayClient.connect({ path: t.prefix, token: reader.token });
    open.push(watcher);
    await watcher.request("sessions.subscribe", {});

    const telegram = await deadDelivery(t, reader.token, "telegram", "555100");
    const tgError = telegram.data.deliveries[0].lastError as string;
    expect(tgError).toMatch(/^telegram answered 404: Not Found: \/bot\[REDACTED\]\/sendMessage/);
    expectNoTrace(telegram.text, TELEGRAM_TOKEN);

    const slackTenant = await echoingTenant("echo-slack-own");
    const slackReader = await issueToken(slackTenant.id, ["operator.read"]);
    const slackRead = await deadDelivery(slackTenant, slackReader.token, "slack", "C0ECHO");
    expect(slackRead.data.deliveries[0].lastError).toBe("slack answered 200: invalid_auth (Bearer [REDACTED])");
    expectNoTrace(slackRead.text, SLACK_TOKEN);

    for (const [tenant, token, secret] of [
      [t, reader.token, TELEGRAM_TOKEN],
      [slackTenant, slackReader.token, SLACK_TOKEN],
    ] as const) {
      const client = await GatewayClient.connect({ path: tenant.prefix, token });
      open.push(client);
      const tail = await until(
        () => client.request("logs.tail", { limit: 500, maxBytes: 250_000 }),
        (answer) => answer.payload?.lines?.some((line: string) => line.includes("delivery.dead")),
      );
      const lines = JSON.stringify(tail.payload.lines);
      expect(lines).toContain("REDACTED");
      expectNoTrace(lines, secret);
    }
    expect(watcher.events("sessions.changed").length).toBeGreaterThan(0);
    expectNoTrace(JSON.stringify(watcher.frames), TELEGRAM_TOKEN);
  });

  it("setWebhook's answer carries Telegram's description without the token or the webhook secret", async () => {
    const t = await echoingTenant("echo-setwebhook");
    const res = await t.call("/v1/channels/telegram/webhook", { method: "POST" });
    expect(res.status, res.text).toBe(200);
    expect(res.data.telegram).toEqual({ status: 404, description: "Not Found: /bot[REDACTED]/setWebhook" });
    expectNoTrace(res.text, TELEGRAM_TOKEN);
  });
});
