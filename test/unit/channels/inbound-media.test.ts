import { describe, expect, it } from "vitest";
import { attachedLine, mediaKey, mediaMaxBytes, mediaTooLargeText } from "../../../src/features/channels/inbound-media";
import { slackMediaRefs } from "../../../src/features/channels/slack/media-download";
import { telegramMediaRefs } from "../../../src/features/channels/telegram/media-download";
import { mediaBlock } from "../../../src/model/inbound-media";

/** The pure parts of inbound media (issue 46 item 2): which files a message names, keys, limits, texts. */

describe("the files a message names", () => {
  it("Telegram: the largest photo size, a sticker as WebP, a GIF once (animation, not its document twin)", () => {
    const refs = telegramMediaRefs({
      photo: [
        { file_id: "s", width: 90, height: 90, file_size: 10 },
        { file_id: "l", width: 1280, height: 720, file_size: 5000 },
      ],
      sticker: { file_id: "st" },
      animation: { file_id: "gif", mime_type: "video/mp4" },
      document: { file_id: "gif", mime_type: "video/mp4" },
    });
    expect(refs).toEqual([
      { kind: "image", fileId: "l", fallbackMimeType: "image/jpeg", announcedBytes: 5000 },
      { fallbackMimeType: "image/webp", kind: "sticker", fileId: "st" },
      { kind: "video", fileId: "gif", mimeType: "video/mp4" },
    ]);
  });

  it("Slack: each shared file by id, its kind from the mimetype", () => {
    expect(
      slackMediaRefs({
        files: [
          { id: "F1", name: "pic.png", mimetype: "image/png", size: 68 },
          { id: "F2", name: "report.pdf", mimetype: "application/pdf" },
          { name: "no id" },
        ],
      }),
    ).toEqual([
      { kind: "image", fileId: "F1", mimeType: "image/png", fileName: "pic.png", announcedBytes: 68 },
      { kind: "document", fileId: "F2", mimeType: "application/pdf", fileName: "report.pdf" },
    ]);
  });
});

describe("keys, limits and texts", () => {
  it("the key is under the session's prefix and derived from the update alone", () => {
    const update = { channel: "telegram", updateId: "959113200" };
    const ref = { kind: "document" as const, fileId: "d", fileName: "Report.PDF" };
    const key = mediaKey("acme", "agent:main:main", update, 0, ref);
    expect(key).toBe("acme/agent:main:main/media/inbound/telegram-959113200-0.pdf");
    expect(mediaKey("acme", "agent:main:main", update, 0, ref)).toBe(key);
    expect(mediaKey("acme", "agent:main:main", { channel: "slack", updateId: "D1:17.5" }, 1, ref)).toBe(
      "acme/agent:main:main/media/inbound/slack-D1_17.5-1.pdf",
    );
  });

  it("the channel's mediaMaxMb lowers the tenant's limit, never raises it", () => {
    const limit = 100 * 1024 * 1024;
    expect(mediaMaxBytes(limit, {}, "telegram")).toBe(limit);
    expect(mediaMaxBytes(limit, { channels: { telegram: { mediaMaxMb: 5 } } } as never, "telegram")).toBe(
      5 * 1024 ** 2,
    );
    expect(mediaMaxBytes(limit, { channels: { telegram: { mediaMaxMb: 500 } } } as never, "telegram")).toBe(limit);
  });

  it("OpenClaw's attached line; the too-large message names both sizes", () => {
    const media = {
      key: "t/agent:main:main/media/inbound/telegram-1-0.pdf",
      kind: "document" as const,
      mimeType: "application/pdf",
      bytes: 9,
      fileName: "report.pdf",
    };
    expect(attachedLine(media)).toBe('[media attached: media/inbound/telegram-1-0.pdf (application/pdf) "report.pdf"]');
    expect(mediaTooLargeText(25 * 1024 * 1024, 20 * 1024 * 1024)).toBe("⚠️ File too large (25 MB). The limit is 20 MB.");
    expect(mediaBlock(media)).toEqual({
      type: "file",
      mimeType: "application/pdf",
      omitted: true,
      bytes: 9,
      fileName: "report.pdf",
      media: { kind: "document", key: media.key },
    });
  });
});
