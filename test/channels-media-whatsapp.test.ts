import { env } from "cloudflare:test";
import { describe, expect, inject, it } from "vitest";
import { SIGNATURE_HEADER, whatsappSignature } from "../src/channels/whatsapp/signature";
import { call, freshTenant, until } from "./helpers";
import { PEER_PNG_BASE64 } from "./peers/peer-files";

/**
 * A WhatsApp image (issue 46): the media id resolved by the Graph API to its URL, downloaded with
 * the access token through `fetchIntoBucket` into the ATTACHMENTS bucket, and given to the model as
 * Telegram's are (`[media attached: …]` + an `image_url` part). The webhook, inbox, session, runner
 * and bucket are real; the Graph API, its file and the model are the test peer's.
 */

const PEER_PNG = Uint8Array.from(atob(PEER_PNG_BASE64), (c) => c.charCodeAt(0));
const peer = `http://127.0.0.1:${inject("peerPort")}`;
const APP_SECRET = "wa-app-secret-media-0123456789";
const PHONE_NUMBER_ID = "106540352242999";

type ModelRequest = { body: { messages: Array<{ role: string; content: unknown }> } };
const recorded = async <T>(path: string) =>
  (await (await fetch(`${peer}/control/recorded?path=${encodeURIComponent(path)}`)).json()) as T[];

describe("WhatsApp media fetched into R2 and given to the model", () => {
  it("an image without caption is a turn: fetched by media id with the token, the model gets it as image_url", async () => {
    const t = await freshTenant("wa-media");
    const put = await t.config({
      agents: {
        list: [
          { id: "main", default: true, runner: { type: "openai", baseUrl: `${peer}/v1`, model: `record:${t.id}` } },
        ],
      },
      channels: {
        whatsapp: {
          enabled: true,
          phoneNumberId: PHONE_NUMBER_ID,
          accessToken: "EAAG-peer",
          appSecret: APP_SECRET,
          verifyToken: "wa-verify-token-media-0123",
          apiRoot: `${peer}/whatsapp/v23.0`,
          dmPolicy: "open",
        },
      },
    });
    expect(put.status, put.text).toBe(200);
    const mediaId = `png-${crypto.randomUUID()}`;
    const from = "15557654321";
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: "WABA-1",
          changes: [
            {
              field: "messages",
              value: {
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
              },
            },
          ],
        },
      ],
    });
    const posted = await call(`${t.prefix}/whatsapp/webhook`, {
      method: "POST",
      token: null,
      headers: { "content-type": "application/json", [SIGNATURE_HEADER]: await whatsappSignature(APP_SECRET, body) },
      body,
    });
    expect(posted.status, posted.text).toBe(200);

    const [request] = await until(
      () => recorded<ModelRequest>(`/model/${t.id}`),
      (list) => list.length >= 1,
      30_000,
    );
    const parts = request!.body.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const text = parts.find((p: { type: string }) => p.type === "text") as { text: string };
    // WhatsApp turns carry no OpenClaw envelope here: the model gets the transcript's words for the file.
    expect(text.text).toBe("[media: image image/png]");
    expect(parts).toContainEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${PEER_PNG_BASE64}` } });
    // The Graph API was asked for the media id, then the file downloaded, both with the token.
    const lookups = await recorded<{ body: unknown }>(`/whatsapp/v23.0/${mediaId}`);
    expect(lookups).toHaveLength(1);
    const downloads = await recorded<{ body: { authorization: string } }>(`/whatsapp/media/${mediaId}`);
    expect(downloads.map((d) => d.body.authorization)).toEqual(["Bearer EAAG-peer"]);
    const listed = await env.ATTACHMENTS.list({ prefix: `${t.id}/` });
    const stored = listed.objects.find((o) => o.key.includes("/media/inbound/whatsapp-"));
    expect(stored?.size).toBe(PEER_PNG.length);
  }, 60_000);
});
