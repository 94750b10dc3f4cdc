import { describe, expect, inject, it } from "vitest";
import { freshTenant, type TestTenant } from "./helpers";

/**
 * A channel credential from the secret store keeps its entry's `allowedHosts` (docs/secrets.md:
 * the hosts a value may be sent to), as a runner's key does: a bot token bound to
 * api.telegram.org is not sent to an `apiRoot` the tenant points elsewhere. The store, config,
 * route and sender are real; the Bot API is the test peer's on 127.0.0.1.
 */

const peer = `http://127.0.0.1:${inject("peerPort")}`;

async function boundTenant(label: string, token: string, allowedHosts: string[]): Promise<TestTenant> {
  const t = await freshTenant(label);
  const stored = await t.call("/v1/secrets/TG_BOT_TOKEN", { method: "PUT", json: { value: token, allowedHosts } });
  expect(stored.status, stored.text).toBe(200);
  const put = await t.config({
    channels: {
      telegram: {
        enabled: true,
        botToken: { source: "store", provider: "default", id: "TG_BOT_TOKEN" },
        webhookSecret: "tg-webhook-secret-bound-012345",
        apiRoot: `${peer}/telegram`,
        dmPolicy: "open",
      },
    },
  });
  expect(put.status, put.text).toBe(200);
  return t;
}

const setWebhookCalls = async (token: string) =>
  (await (await fetch(`${peer}/control/recorded?path=/telegram/bot${token}/setWebhook`)).json()) as unknown[];

describe("a channel credential bound to hosts", () => {
  it("is not sent to an apiRoot outside its allowedHosts: a clear 400, nothing reaches the host", async () => {
    const token = "700001:bound-to-telegram";
    const t = await boundTenant("bound-tg", token, ["api.telegram.org"]);
    const res = await t.call("/v1/channels/telegram/webhook", { method: "POST" });
    expect(res.status, res.text).toBe(400);
    expect(res.data.error.message).toBe(
      'Secret "TG_BOT_TOKEN" is not allowed for host "127.0.0.1" (its allowedHosts: api.telegram.org)',
    );
    expect(await setWebhookCalls(token)).toEqual([]);
  });

  it("is sent where its allowedHosts name the apiRoot's host", async () => {
    const token = "700002:bound-to-the-peer";
    const t = await boundTenant("bound-peer", token, ["127.0.0.1"]);
    const res = await t.call("/v1/channels/telegram/webhook", { method: "POST" });
    expect(res.status, res.text).not.toBe(400);
    expect((await setWebhookCalls(token)).length).toBe(1);
  });
});
