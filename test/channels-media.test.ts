import { describe, expect, inject, it } from "vitest";
import { call, freshTenant, until } from "./helpers";

/**
 * A Telegram photo without caption (issue 46 item 2) is a turn: the webhook, the inbox object and
 * the run are real; the Bot API is the test peer's (test/peers/peer-server.ts, `/telegram`). The
 * transcript keeps the photo's description and the run answers it.
 */

const SECRET = "tg-webhook-secret-media-0123456";

function textOf(message: { content: unknown }): string {
  if (typeof message.content === "string") return message.content;
  return (message.content as Array<{ text?: string }>).map((block) => block.text ?? "").join("");
}

describe("Telegram media without caption", () => {
  it("a photo DM with no caption becomes a turn with the photo's description, and is answered", async () => {
    const t = await freshTenant("media-photo");
    const put = await t.config({
      channels: {
        telegram: {
          enabled: true,
          botToken: "123456:fake",
          webhookSecret: SECRET,
          apiRoot: `http://127.0.0.1:${inject("peerPort")}/telegram`,
          dmPolicy: "open",
        },
      },
    });
    expect(put.status, put.text).toBe(200);
    const posted = await call(`${t.prefix}/telegram-webhook`, {
      method: "POST",
      token: null,
      headers: { "x-telegram-bot-api-secret-token": SECRET },
      json: {
        update_id: 930_001,
        message: {
          message_id: 71,
          from: { id: 555300, is_bot: false, first_name: "User555300" },
          chat: { id: 555300, type: "private", first_name: "User555300" },
          date: Math.floor(Date.now() / 1000),
          photo: [
            { file_id: "small", file_unique_id: "s", width: 90, height: 51, file_size: 1200 },
            { file_id: "large", file_unique_id: "l", width: 1280, height: 720, file_size: 91000 },
          ],
        },
      },
    });
    expect(posted.status, posted.text).toBe(200);
    const history = await until(
      async () => {
        const res = await t.call(`/sessions/${encodeURIComponent("agent:main:main")}/history`);
        return res.status === 200 ? (res.data.messages as Array<{ role: string; content: unknown }>) : [];
      },
      (messages) => messages.some((m) => m.role === "assistant"),
    );
    const said = history.filter((m) => m.role === "user").map(textOf);
    expect(said).toEqual(["[media: photo 1280×720 image/jpeg]"]);
  }, 60_000);
});
