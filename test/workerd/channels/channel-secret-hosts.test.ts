import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { slackApiOf } from "../../../src/features/channels/channel-registry";
import { MEDIA_FAILED_TEXT, type MediaPorts, prepareMedia } from "../../../src/features/channels/inbound-media";
import { slackMediaSource } from "../../../src/features/channels/slack/media-download";
import { meterBucket } from "../../../src/metering/metered-bucket";
import type { TenantConfig } from "../../../src/protocol/config";
import { freshTenant, type TestTenant } from "../support/helpers";

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

describe("a Slack bot token bound to hosts, on a file download", () => {
  // The store entry as its resolver answers it: bound to the apiRoot's host (this peer, standing
  // in for a proxy such as slack.example), not to Slack's file host.
  const token = "xoxb-bound-to-the-proxy-0000";
  const resolve = async (name: string) => (name === "SLACK_BOT" ? { value: token, allowedHosts: ["127.0.0.1"] } : null);
  const outbound = { allowLoopback: true, allowedHosts: [], ownOrigins: [] };
  const config = {
    channels: {
      slack: {
        enabled: true,
        botToken: { source: "store", provider: "default", id: "SLACK_BOT" },
        apiRoot: `${peer}/slack/api/`,
      },
    },
  } as unknown as TenantConfig;

  it("does not send the token to url_private on files.slack.com, outside its allowedHosts: refused before any request", async () => {
    const api = await slackApiOf(config, resolve, outbound);
    const source = slackMediaSource(api!);
    const fileId = `slackhost-${crypto.randomUUID()}`;
    const warnings: string[] = [];
    const logged: Array<Record<string, unknown>> = [];
    const ports: MediaPorts = {
      bucket: meterBucket(env.ATTACHMENTS, () => undefined),
      tenantId: `bound-slack-${crypto.randomUUID().slice(0, 8)}`,
      outbound,
      maxBytes: async () => 1_000_000,
      tenantBytesLeft: async () => 1_000_000,
      warn: ({ message }) => warnings.push(message),
      log: (_event, fields) => logged.push(fields),
    };
    const turn = {
      sessionKey: "agent:main:main",
      text: "look",
      captionText: "look",
      media: [{ kind: "image" as const, fileId, mimeType: "image/png", fileName: "pic.png" }],
      replyTarget: { channel: "slack", to: "D0BOUND" },
    };
    const prepared = await prepareMedia(ports, source, turn, { channel: "slack", updateId: fileId });
    // files.info went to the apiRoot (inside the binding); the download it named did not start.
    expect(prepared?.media).toEqual([]);
    expect(warnings).toEqual([MEDIA_FAILED_TEXT]);
    expect(logged.map((fields) => fields.error)).toEqual([
      'outbound request refused: Secret "SLACK_BOT" is not allowed for host "files.slack.com" (its allowedHosts: 127.0.0.1)',
    ]);
    expect((await env.ATTACHMENTS.list({ prefix: `${ports.tenantId}/` })).objects).toEqual([]);
  });

  it("is still sent to the apiRoot inside its allowedHosts (files.info answered)", async () => {
    const api = await slackApiOf(config, resolve, outbound);
    const located = await slackMediaSource(api!).locate({ kind: "image", fileId: `slackhost-${crypto.randomUUID()}` });
    expect(new URL(located.url).hostname).toBe("files.slack.com");
  });
});
