import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { LINE_SIGNATURE_HEADER, lineSignature } from "../../../src/features/channels/line/signature";
import { SIGNATURE_HEADER, whatsappSignature } from "../../../src/features/channels/whatsapp/signature";
import { PEER_PNG_BASE64 } from "../../peers/peer-files";
import { call, type TestTenant, until } from "../support/helpers";
import { recordingModelTenant } from "../support/recording-model";

/**
 * Files beyond Telegram and Slack (issue 46): a WhatsApp image (its media id resolved by the
 * Graph API, then downloaded with the access token) and a LINE image (its content from
 * `/v2/bot/message/{id}/content` with the channel access token), each fetched through
 * `fetchIntoBucket` into the ATTACHMENTS bucket and given to the model as Telegram's are (an
 * `image_url` part). The webhooks, inbox, session, runner and bucket are real; the platform APIs,
 * their files and the model are the test peer's (test/peers/peer-server.ts).
 */

const PEER_PNG = Uint8Array.from(atob(PEER_PNG_BASE64), (c) => c.charCodeAt(0));
const peer = `http://127.0.0.1:${inject("peerPort")}`;
const WA_APP_SECRET = "wa-app-secret-media-0123456789";
const PHONE_NUMBER_ID = "106540352242999";
const LINE_CHANNEL_SECRET = "line-channel-secret-media-0123";

type ModelRequest = { body: { messages: Array<{ role: string; content: unknown }> } };
const recorded = async <T>(path: string) =>
  (await (await fetch(`${peer}/control/recorded?path=${encodeURIComponent(path)}`)).json()) as T[];

/**
 * The model got the peer's PNG as an `image_url` part, the download carried `authorization`, and
 * the bucket holds the file under the session's inbound media; returns the model's text parts.
 */
async function expectImageGiven(t: TestTenant, downloadPath: string, authorization: string, channel: string) {
  const [request] = await until(
    () => recorded<ModelRequest>(`/model/${t.id}`),
    (list) => list.length >= 1,
    30_000,
  );
  const parts = request!.body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
  expect(parts).toContainEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${PEER_PNG_BASE64}` } });
  const downloads = await recorded<{ body: { authorization: string } }>(downloadPath);
  expect(downloads.map((d) => d.body.authorization)).toEqual([authorization]);
  const listed = await env.ATTACHMENTS.list({ prefix: `${t.id}/` });
  const stored = listed.objects.find((o) => o.key.includes(`/media/inbound/${channel}-`));
  expect(stored?.size).toBe(PEER_PNG.length);
  return parts.filter((p: { type: string }) => p.type === "text") as Array<{ text: string }>;
}

describe("WhatsApp media fetched into R2 and given to the model", () => {
  it("an image without caption is a turn: fetched by media id with the token, the model gets it as image_url", async () => {
    const t = await recordingModelTenant("wa-media", {
      whatsapp: {
        enabled: true,
        phoneNumberId: PHONE_NUMBER_ID,
        accessToken: "EAAG-peer",
        appSecret: WA_APP_SECRET,
        verifyToken: "wa-verify-token-media-0123",
        apiRoot: `${peer}/whatsapp/v23.0`,
        dmPolicy: "open",
      },
    });
    const mediaId = `png-${crypto.randomUUID()}`;
    const from = "15557654321";
    const value = {
      messaging_product: "whatsapp",
      metadata: { display_phone_number: "15550001111", phone_number_id: PHONE_NUMBER_ID },
      contacts: [{ profile: { name: "Ana" }, wa_id: from }],
      messages: [
        {
          from,
          id: `wamid.IN-${mediaId}`,
          timestamp: String(Math.floor(Date.now() / 1000)),
          type: "image",
          image: { id: mediaId, mime_type: "image/png", sha256: "x" },
        },
      ],
    };
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [{ id: "WABA-1", changes: [{ field: "messages", value }] }],
    });
    const signature = await whatsappSignature(WA_APP_SECRET, body);
    const posted = await call(`${t.prefix}/whatsapp/webhook`, {
      method: "POST",
      token: null,
      headers: { "content-type": "application/json", [SIGNATURE_HEADER]: signature },
      body,
    });
    expect(posted.status, posted.text).toBe(200);

    const texts = await expectImageGiven(t, `/whatsapp/media/${mediaId}`, "Bearer EAAG-peer", "whatsapp");
    // WhatsApp turns carry no OpenClaw envelope here: the model gets the transcript's words for the file.
    expect(texts[0]!.text).toBe("[media: image image/png]");
    // The Graph API was asked for the media id once (with the token: the peer answers nothing else).
    expect(await recorded(`/whatsapp/v23.0/${mediaId}`)).toHaveLength(1);
  }, 60_000);
});

describe("LINE media fetched into R2 and given to the model", () => {
  it("an image message is a turn: its content fetched with the token, the model gets it as image_url", async () => {
    const t = await recordingModelTenant("line-media", {
      line: {
        enabled: true,
        channelAccessToken: "line-peer-token",
        channelSecret: LINE_CHANNEL_SECRET,
        apiRoot: `${peer}/line`,
        dmPolicy: "open",
      },
    });
    const messageId = `png-${crypto.randomUUID()}`;
    const event = {
      type: "message",
      mode: "active",
      timestamp: Date.now(),
      webhookEventId: `01EV${messageId}`,
      deliveryContext: { isRedelivery: false },
      source: { type: "user", userId: "U0123456789abcdef0123456789abcdef" },
      replyToken: "reply-token-media",
      message: { id: messageId, type: "image", contentProvider: { type: "line" } },
    };
    const body = JSON.stringify({ destination: "Ubot", events: [event] });
    const signature = await lineSignature(LINE_CHANNEL_SECRET, body);
    const posted = await call(`${t.prefix}/line/webhook`, {
      method: "POST",
      token: null,
      headers: { "content-type": "application/json", [LINE_SIGNATURE_HEADER]: signature },
      body,
    });
    expect(posted.status, posted.text).toBe(200);

    const path = `/line/v2/bot/message/${messageId}/content`;
    const texts = await expectImageGiven(t, path, "Bearer line-peer-token", "line");
    // Inside OpenClaw's envelope (the sender named from the profile), the stored file named as on Telegram.
    expect(texts.map((part) => part.text)).toEqual([
      expect.stringMatching(
        /"name":"User cdef"\}\}\n```\n\n\[media attached: media\/inbound\/line-[^ ]+ \(image\/png\)\]$/,
      ),
    ]);
  }, 60_000);
});
