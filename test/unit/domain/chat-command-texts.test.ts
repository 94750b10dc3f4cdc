import { describe, expect, it } from "vitest";
import { CHAT_COMMANDS, HELP_TEXT } from "../../../src/domain/chat-commands";
import { commandsListText } from "../../../src/domain/commands-list";
import { whoamiText } from "../../../src/domain/whoami";
import { markdownToTelegramHtml } from "../../../src/features/channels/telegram/format";
import { statusCardSlack, statusCardText } from "../../../src/render/status-card";

/**
 * OpenClaw's `/help` text and `/status` card as the real gateway 2026.9.6 sent them (issue 46, 1),
 * compared with the lead's recordings (rec46/chat46-cmd.json, chat46-slack.json; copied below): the help
 * text byte for byte as Telegram receives it, the status card's lines and Slack blocks in
 * OpenClaw's form with the lines this service cannot fill truthfully left out.
 */

/** The recorded `/help` sendMessage text (chat46-cmd.json, step cmd-help; parse_mode HTML). */
const RECORDED_HELP_HTML =
  "ℹ️ Help\n\nSession\n/new  |  /reset  |  /compact [instructions]  |  /stop\n\nOptions\n/think &lt;level|default&gt;  |  /model   |  /fast status|auto|on|off|default  |  /verbose on|off|full  |  /trace on|off|raw\n\nStatus\n/status  |  /tasks  |  /whoami  |  /context\n\nSkills\n/skill  [input]\n\nMore: /commands for full list, /tools for available capabilities";

const FACTS = {
  version: "2026.9.6 (eb377ac)",
  model: "mock/echo",
  sessionKey: "agent:main:main",
  inputTokens: 101,
  outputTokens: 7,
  costUsd: 0,
  createdAt: Date.parse("2026-11-29T00:13:34Z"),
  updatedAt: Date.parse("2026-11-29T00:13:54Z"),
  thinkingLevel: "off",
  fastMode: false,
  now: Date.parse("2026-11-29T00:13:54Z"),
};

describe("OpenClaw's command texts", () => {
  it("/help is OpenClaw's text: as Telegram HTML it equals the recorded sendMessage", () => {
    expect(markdownToTelegramHtml(HELP_TEXT)).toBe(RECORDED_HELP_HTML);
  });

  it("/status as text: OpenClaw's lines, in its order and sections, the unknown ones left out", () => {
    // The recorded card (chat46-cmd.json, cmd-status) without uptime, auth, cache, context,
    // execution, runtime, queue and the Telegram rich-messages hint.
    expect(statusCardText(FACTS)).toBe(
      [
        "🦞 OpenClaw 2026.9.6 (eb377ac)",
        "Current time: Sunday, November 29th, 2026 - 12:13 AM (UTC)",
        "Reference UTC: 2026-11-29 00:13 UTC",
        "",
        "🧠 Model: mock/echo",
        "",
        "🧮 Tokens: 101 in / 7 out",
        "💵 Cost: $0.0000",
        "",
        "🧵 Session: agent:main:main • duration 20s • updated just now",
        "",
        "🎛️ Modes: think off · fast off",
      ].join("\n"),
    );
    const later = statusCardText({ ...FACTS, now: FACTS.createdAt + 413_000 + 3_600_000 * 2 });
    expect(later).toContain("🧵 Session: agent:main:main • duration 2h 6m • updated 2h ago");
  });

  it("/status for Slack: the recorded header, context and data_table blocks, and the table as fallback text", () => {
    const card = statusCardSlack({ ...FACTS, now: Date.parse("2026-11-29T00:20:58Z"), activation: "always" });
    const row = (label: string, value: string) => [
      { type: "raw_text", text: label },
      { type: "raw_text", text: value },
    ];
    // chat46-slack.json, ch-status: the same blocks, less the rows this service leaves out.
    expect(card.blocks).toEqual([
      { type: "header", text: { type: "plain_text", text: "🦞 OpenClaw 2026.9.6 (eb377ac)", emoji: true } },
      {
        type: "context",
        elements: [{ type: "mrkdwn", text: "Sunday, November 29th, 2026 - 12:20 AM (UTC)", verbatim: true }],
      },
      {
        type: "data_table",
        caption: "Session status",
        rows: [
          row("Item", "Value"),
          row("🧠 Model", "mock/echo"),
          row("🧮 Tokens", "101 in / 7 out"),
          row("💵 Cost", "$0.0000"),
          row("🧵 Session", "agent:main:main • duration 7m 24s • updated 7m ago"),
          row("🎛️ Modes", "think off · fast off"),
          row("👥 Activation", "always"),
        ],
        row_header_column_index: 0,
      },
    ]);
    expect(card.text).toBe(
      [
        "🦞 OpenClaw 2026.9.6 (eb377ac)",
        "",
        "Sunday, November 29th, 2026 - 12:20 AM (UTC)",
        "",
        "Session status (table)",
        "Item\tValue",
        "🧠 Model\tmock/echo",
        "🧮 Tokens\t101 in / 7 out",
        "💵 Cost\t$0.0000",
        "🧵 Session\tagent:main:main • duration 7m 24s • updated 7m ago",
        "🎛️ Modes\tthink off · fast off",
        "👥 Activation\talways",
      ].join("\n"),
    );
  });
});

describe("/whoami", () => {
  it("is OpenClaw's identity card: the recorded DM reply, a group's chat and a topic's thread", () => {
    // chat46-cmd.json, step cmd-whoami (OpenClaw 2026.9.6, user 777001 @user777001).
    expect(whoamiText({ channel: "telegram", senderId: "777001", username: "user777001" })).toBe(
      "🧭 Identity\nChannel: telegram\nUser id: 777001\nUsername: @user777001\nAllowFrom: 777001",
    );
    expect(
      whoamiText({ channel: "telegram", senderId: "5", username: "@x", groupFrom: "telegram:group:-1", threadId: 7 }),
    ).toBe(
      "🧭 Identity\nChannel: telegram\nUser id: 5\nUsername: @x\nChat: telegram:group:-1\nThread: 7\nAllowFrom: 5",
    );
    expect(whoamiText({ channel: "webchat" })).toBe("🧭 Identity\nChannel: webchat");
  });
});

describe("/commands", () => {
  it("lists this service's commands in OpenClaw's unpaged form: title, category titles, `  /name (/aliases) - description` lines", () => {
    const text = commandsListText(Object.entries(CHAT_COMMANDS).map(([name, info]) => ({ name, ...info })));
    expect(text).toBe(
      [
        "ℹ️ Slash commands",
        "",
        "Session",
        // These lines are word for word on OpenClaw 2026.9.6's recorded page (chat46-cmd.json, cmd-commands).
        "  /stop - Stop the current run.",
        "  /reset - Reset the current session.",
        "  /new - Start a new session.",
        "  /name - Name or rename the current session.",
        "",
        "Options",
        "  /think (/thinking, /t) - Set thinking level.",
        "  /model - Show or set the model; use -s, -a, or -g to choose scope.",
        "",
        "Status",
        "  /help - Show available commands.",
        "  /commands - List all slash commands.",
        "  /status - Show current status.",
        "  /whoami (/id) - Show your sender id.",
        "",
        "Management",
        "  /send - Set send policy.",
        "",
        "More: /tools for available capabilities",
      ].join("\n"),
    );
  });
});
