import { describe, expect, it } from "vitest";
import { telegramMediaLines, telegramTurnText } from "../../../src/features/channels/telegram/media-text";
import { decideTelegram } from "../../../src/features/channels/telegram/routing";
import type { TelegramUpdate } from "../../../src/protocol/channels";

const BOT = { id: 123456789, username: "chan_test_bot" };

function dmWith(media: Record<string, unknown>): TelegramUpdate {
  return {
    update_id: 1,
    message: {
      message_id: 10,
      from: { id: 555100, is_bot: false, first_name: "User" },
      chat: { id: 555100, type: "private" },
      ...media,
    },
  };
}

const photo = {
  photo: [
    { file_id: "s", width: 90, height: 51 },
    { file_id: "l", width: 1280, height: 720 },
    { file_id: "m", width: 320, height: 180 },
  ],
};

describe("Telegram media messages become turns", () => {
  it("a photo, document, voice note, audio, video or sticker without caption is a turn, not 'no text'", () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [photo, "[media: photo 1280×720 image/jpeg]"],
      [
        { document: { file_id: "d", file_name: "report.pdf", mime_type: "application/pdf" } },
        "[media: document report.pdf application/pdf]",
      ],
      [{ voice: { file_id: "v", duration: 3, mime_type: "audio/ogg" } }, "[media: voice 3s audio/ogg]"],
      [
        { audio: { file_id: "a", duration: 200, file_name: "song.mp3", mime_type: "audio/mpeg" } },
        "[media: audio song.mp3 200s audio/mpeg]",
      ],
      [
        { video: { file_id: "x", width: 640, height: 360, duration: 5, mime_type: "video/mp4" } },
        "[media: video 640×360 5s video/mp4]",
      ],
      [{ sticker: { file_id: "k", emoji: "👍", width: 512, height: 512 } }, "👍"],
      [{ sticker: { file_id: "k", width: 512, height: 512 } }, "<media:sticker>"],
    ];
    for (const [media, text] of cases) {
      const decision = decideTelegram({
        update: dmWith(media),
        telegram: { dmPolicy: "open" },
        config: {},
        agentId: "main",
        bot: BOT,
        approved: new Set(),
      });
      expect(decision).toMatchObject({ action: "turn", turn: { text } });
    }
  });

  it("the caption follows the media line; a GIF (animation + document) is one line", () => {
    expect(telegramTurnText({ ...photo, caption: "what is this" } as never)).toBe(
      "[media: photo 1280×720 image/jpeg]\nwhat is this",
    );
    expect(
      telegramMediaLines({
        animation: { file_id: "g", width: 320, height: 240, duration: 2, mime_type: "video/mp4" },
        document: { file_id: "g", mime_type: "video/mp4" },
      }),
    ).toEqual(["[media: animation 320×240 2s video/mp4]"]);
  });

  it("a message with neither text nor media is still ignored", () => {
    expect(telegramTurnText({})).toBe("");
    expect(
      decideTelegram({
        update: dmWith({}),
        telegram: { dmPolicy: "open" },
        config: {},
        agentId: "main",
        bot: BOT,
        approved: new Set(),
      }),
    ).toMatchObject({ action: "ignore", reason: "no text" });
  });
});
