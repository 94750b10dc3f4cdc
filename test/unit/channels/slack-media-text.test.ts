import { describe, expect, it } from "vitest";
import { slackMediaLines } from "../../../src/features/channels/slack/media-text";
import { decideSlack } from "../../../src/features/channels/slack/routing";
import type { SlackEnvelope } from "../../../src/protocol/channels";

const BOT = { userId: "U0BOT", botId: "B0BOT" };

function fileShare(text: string | undefined, files: unknown[]): SlackEnvelope {
  return {
    type: "event_callback",
    event_id: "Ev0FILE",
    team_id: "T0TEST",
    event: {
      type: "message",
      subtype: "file_share",
      channel: "D0ALICE",
      channel_type: "im",
      user: "U0ALICE",
      ts: "1795705000.000100",
      ...(text !== undefined ? { text } : {}),
      files,
    },
  };
}

const PIC = { id: "F0PIC", name: "pic.png", mimetype: "image/png", size: 68, original_w: 640, original_h: 480 };

function decide(envelope: SlackEnvelope) {
  return decideSlack({
    envelope,
    slack: { mode: "http", dmPolicy: "open" },
    config: {},
    agentId: "main",
    bot: BOT,
    approved: new Set(),
  });
}

describe("Slack file_share becomes a turn", () => {
  it("a file shared without text is a turn that describes the file", () => {
    expect(decide(fileShare(undefined, [PIC]))).toMatchObject({
      action: "turn",
      turn: { text: "[media: image pic.png 640×480 image/png 68 bytes]" },
    });
    expect(decide(fileShare("", [PIC])).action).toBe("turn");
  });

  it("the text follows the file lines; kinds follow the MIME type", () => {
    const report = { id: "F0DOC", name: "report.pdf", mimetype: "application/pdf", size: 1024 };
    expect(decide(fileShare("look", [PIC, report]))).toMatchObject({
      action: "turn",
      turn: {
        text: "[media: image pic.png 640×480 image/png 68 bytes]\n[media: file report.pdf application/pdf 1024 bytes]\nlook",
      },
    });
    expect(slackMediaLines({ files: [{ name: "memo.m4a", mimetype: "audio/mp4" }] })).toEqual([
      "[media: audio memo.m4a audio/mp4]",
    ]);
  });

  it("neither text nor files is still ignored", () => {
    expect(decide(fileShare(undefined, []))).toMatchObject({ action: "ignore", reason: "no text" });
  });
});
