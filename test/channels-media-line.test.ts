import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { LINE_SIGNATURE_HEADER, lineSignature } from "../src/channels/line/signature";
import { call, freshTenant, until } from "./helpers";
import { PEER_PNG_BASE64 } from "./peers/peer-files";

/**
 * A LINE image (issue 46): its content downloaded from `/v2/bot/message/{id}/content` (LINE's
 * data API; here the apiRoot's peer) with the channel access token through `fetchIntoBucket` into
 * the ATTACHMENTS bucket, and given to the model as Telegram's are (an `image_url` part). The
 * webhook, inbox, session, runner and bucket are real; the Messaging API, its content and the
 * model are the test peer's.
 */

const PEER_PNG = Uint8Array.from(atob(PEER_PNG_BASE64), (c) => c.charCodeAt(0));
const peer = `http://127.0.0.1:${inject("peerPort")}`;
const CHANNEL_SECRET = "line-channel-secret-media-0123";

type ModelRequest = { body: { messages: Array<{ role: string; content: unknown }> } };
const recorded = async <T>(path: string) =>
  (await (await fetch(`${peer}/control/recorded?path=${encodeURIComponent(path)}`)).json()) as T[];

describe("LINE media fetched into R2 and given to the model", () => {
  it("an image message is a turn: its content fetched with the token, the model gets it as image_url", async () => {
    const t = await freshTenant("line-media");
    const put = await t.config({
      agents: {
        list: [
          { id: "main", default: true, runner: { type: "openai", baseUrl: `${peer}/v1`, model: `record:${t.id}` } },
        ],
      },
      channels: {
        line: {
          enabled: true,
          channelAccessToken: "line-peer-token",
          channelSecret: CHANNEL_SECRET,
          apiRoot: `${peer}/line`,
          dmPolicy: "open",
        },
      },
    });
    expect(put.status, put.text).toBe(200);
    const messageId = `png-${crypto.randomUUID()}`;
    const body = JSON.stringify({
      destination: "Ubot",
      events: [
        {
          type: "message",
          mode: "active",
          timestamp: Date.now(),
          webhookEventId: `01EV${messageId}`,
          deliveryContext: { isRedelivery: false },
          source: { type: "user", userId: "U0123456789abcdef0123456789abcdef" },
          replyToken: "reply-token-media",
          message: { id: messageId, type: "image", contentProvider: { type: "line" } },
        },
      ],
    });
    const posted = await call(`${t.prefix}/line/webhook`, {
      method: "POST",
      token: null,
      headers: {
        "content-type": "application/json",
        [LINE_SIGNATURE_HEADER]: await lineSignature(CHANNEL_SECRET, body),
      },
      body,
    });
    expect(posted.status, posted.text).toBe(200);

    const [request] = await until(
      () => recorded<ModelRequest>(`/model/${t.id}`),
      (list) => list.length >= 1,
      30_000,
    );
    const parts = request!.body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    expect(parts).toContainEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${PEER_PNG_BASE64}` } });
    const downloads = await recorded<{ body: { authorization: string } }>(`/line/v2/bot/message/${messageId}/content`);
    expect(downloads.map((d) => d.body.authorization)).toEqual(["Bearer line-peer-token"]);
    const listed = await env.ATTACHMENTS.list({ prefix: `${t.id}/` });
    const stored = listed.objects.find((o) => o.key.includes("/media/inbound/line-"));
    expect(stored?.size).toBe(PEER_PNG.length);
  }, 60_000);
});
