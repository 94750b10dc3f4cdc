import { describe, expect, it } from "vitest";
import { CHAT_COMMANDS, telegramCommandsPage } from "../../../src/domain/chat-commands";
import {
  COMMANDS_PER_PAGE,
  commandsPage,
  commandsPageKeyboard,
  commandsPageOfData,
  type ListedCommand,
} from "../../../src/domain/commands-list";
import { markdownToTelegramHtml } from "../../../src/features/channels/telegram/format";

/**
 * OpenClaw's paged `/commands` on Telegram (issue 46, 1), against the real gateway 2026.9.6's
 * recording (notes/rec46/cmdpages-telegram.json: a `/commands` DM, then presses of each page's
 * `Next ▶`): pages of 8, the title with its counter, category titles repeated where a page starts
 * inside one, the keyboard's labels and data, and which press data is a page button's.
 */

/** The first 32 entries of OpenClaw's list as the recording shows them on pages 1–4 (its registry's order). */
const RECORDED_ENTRIES: ListedCommand[] = [
  ["session", "session", "Manage conversation bindings and session lifecycle settings."],
  ["session", "stop", "Stop the current run."],
  ["session", "reset", "Reset the current session."],
  ["session", "new", "Start a new session."],
  ["session", "name", "Name or rename the current session."],
  ["session", "compact", "Compact the session context."],
  ["options", "usage", "Usage footer or cost summary."],
  ["options", "think", "Set thinking level.", ["/thinking", "/t"]],
  ["options", "verbose", "Toggle verbose mode.", ["/v"]],
  ["options", "trace", "Toggle plugin trace lines."],
  ["options", "fast", "Toggle fast mode."],
  ["options", "reasoning", "Toggle reasoning visibility.", ["/reason"]],
  ["options", "elevated", "Toggle elevated mode.", ["/elev"]],
  ["options", "exec", "Set exec defaults for this session."],
  ["options", "model", "Show or set the model; use -s, -a, or -g to choose scope."],
  ["options", "models", "List model providers/models."],
  ["options", "queue", "Adjust queue settings."],
  ["status", "help", "Show available commands."],
  ["status", "commands", "List all slash commands."],
  ["status", "tools", "List available runtime tools."],
  ["status", "status", "Show current status."],
  ["status", "goal", "Show or control the current goal."],
  ["status", "diagnostics", "Explain Gateway diagnostics and Codex feedback upload options."],
  ["status", "tasks", "List background tasks for this session."],
  ["status", "context", "Explain how context is built and used."],
  ["status", "export-session", "Export current session to an owner-only HTML file in the workspace.", ["/export"]],
  ["status", "export-trajectory", "Export a JSONL trajectory bundle for the active session.", ["/trajectory"]],
  ["status", "whoami", "Show your sender id.", ["/id"]],
  ["management", "login", "Connect a model provider."],
  ["management", "openclaw [text]", "Run the OpenClaw setup and repair helper."],
  ["management", "allowlist [text]", "List/add/remove allowlist entries."],
  ["management", "approve", "Approve or deny exec requests."],
].map(([category, name, description, aliases]) => ({
  category: category as string,
  name: name as string,
  description: description as string,
  ...(aliases ? { aliases: aliases as string[] } : {}),
}));

/** The recorded list had 9 pages: the rest (later categories) only make up the count here. */
const NINE_PAGES = [
  ...RECORDED_ENTRIES,
  ...Array.from({ length: 9 * COMMANDS_PER_PAGE - RECORDED_ENTRIES.length }, (_, i) => ({
    category: "management",
    name: `later${i}`,
    description: "Later.",
  })),
];

const button = (text: string, data: string) => ({ text, callback_data: data });

describe("the paged /commands", () => {
  it("a page is OpenClaw's edit text, byte for byte: counter, titles again where a page starts inside a category, indented lines", () => {
    // Recorded editMessageText of the press `commands_page_3:main` (step page-3).
    expect(commandsPage(NINE_PAGES, 3, true)).toEqual({
      page: 3,
      pages: 9,
      text: "ℹ️ Commands (3/9)\n\nOptions\n  /queue - Adjust queue settings.\n\nStatus\n  /help - Show available commands.\n  /commands - List all slash commands.\n  /tools - List available runtime tools.\n  /status - Show current status.\n  /goal - Show or control the current goal.\n  /diagnostics - Explain Gateway diagnostics and Codex feedback upload options.\n  /tasks - List background tasks for this session.",
    });
    // Step page-4: aliases in parentheses, a category change inside the page.
    expect(commandsPage(NINE_PAGES, 4, true).text).toBe(
      "ℹ️ Commands (4/9)\n\nStatus\n  /context - Explain how context is built and used.\n  /export-session (/export) - Export current session to an owner-only HTML file in the workspace.\n  /export-trajectory (/trajectory) - Export a JSONL trajectory bundle for the active session.\n  /whoami (/id) - Show your sender id.\n\nManagement\n  /login - Connect a model provider.\n  /openclaw [text] - Run the OpenClaw setup and repair helper.\n  /allowlist [text] - List/add/remove allowlist entries.\n  /approve - Approve or deny exec requests.",
    );
  });

  it("the first page as sent (Markdown): the recorded sendMessage text, lines not indented", () => {
    // Recorded sendMessage of `/commands` (step commands; that reply counted 7 pages).
    const sent = commandsPage(NINE_PAGES.slice(0, 7 * COMMANDS_PER_PAGE), 1, false);
    expect(markdownToTelegramHtml(sent.text)).toBe(
      "ℹ️ Commands (1/7)\n\nSession\n/session - Manage conversation bindings and session lifecycle settings.\n/stop - Stop the current run.\n/reset - Reset the current session.\n/new - Start a new session.\n/name - Name or rename the current session.\n/compact - Compact the session context.\n\nOptions\n/usage - Usage footer or cost summary.\n/think (/thinking, /t) - Set thinking level.",
    );
  });

  it("a page past the last is the last; below the first, the first", () => {
    expect(commandsPage(NINE_PAGES, 12, true)).toMatchObject({ page: 9, pages: 9 });
    expect(commandsPage(NINE_PAGES, 0, true)).toMatchObject({ page: 1, pages: 9 });
    expect(commandsPage([], 1, true)).toMatchObject({ page: 1, pages: 1 });
  });

  it("the keyboard is OpenClaw's: Prev unless first, the counter as a no-op, Next unless last, the agent in every data", () => {
    expect(commandsPageKeyboard(1, 7, "main")).toEqual([
      [button("1/7", "commands_page_noop:main"), button("Next ▶", "commands_page_2:main")],
    ]);
    expect(commandsPageKeyboard(3, 9, "main")).toEqual([
      [
        button("◀ Prev", "commands_page_2:main"),
        button("3/9", "commands_page_noop:main"),
        button("Next ▶", "commands_page_4:main"),
      ],
    ]);
    expect(commandsPageKeyboard(2, 2, "ops")).toEqual([
      [button("◀ Prev", "commands_page_1:ops"), button("2/2", "commands_page_noop:ops")],
    ]);
  });

  it("an agent id that would take a button's data past Telegram's 64 bytes is left out of the data (the press pages the chat's agent)", () => {
    const bytes = (data: string) => new TextEncoder().encode(data).byteLength;
    const longest = "a".repeat(64);
    for (const agentId of [longest, "b".repeat(46)]) {
      const keyboard = commandsPageKeyboard(2, 3, agentId);
      const data = keyboard.flat().map((button) => button.callback_data);
      expect(data).toEqual(["commands_page_1", "commands_page_noop", "commands_page_3"]);
      expect(commandsPageOfData(data[2]!)).toEqual({ page: 3 });
    }
    // 45 characters still fit beside `commands_page_noop:` (19 bytes): OpenClaw's data, the agent kept.
    const fitting = "c".repeat(45);
    const data = commandsPageKeyboard(1, 9, fitting)
      .flat()
      .map((button) => button.callback_data);
    expect(data).toEqual([`commands_page_noop:${fitting}`, `commands_page_2:${fitting}`]);
    expect(Math.max(...data.map(bytes))).toBe(64);
  });

  it("press data: a page, the counter, or no page button at all (an ordinary press)", () => {
    expect(commandsPageOfData("commands_page_2:main")).toEqual({ page: 2, agentId: "main" });
    expect(commandsPageOfData("commands_page_5")).toEqual({ page: 5 });
    expect(commandsPageOfData("commands_page_noop:main")).toEqual({ page: "noop", agentId: "main" });
    // OpenClaw answers a page that is no positive number and does nothing else.
    expect(commandsPageOfData("commands_page_0:main")).toEqual({ page: "noop", agentId: "main" });
    expect(commandsPageOfData("commands_page_99999999999999999999")).toEqual({ page: "noop" });
    // An agent that is no id is not echoed into the next page's buttons.
    expect(commandsPageOfData("commands_page_2:<b>x</b>")).toEqual({ page: 2 });
    expect(commandsPageOfData("btn:yes")).toBeNull();
    expect(commandsPageOfData("commands_page_two")).toBeNull();
  });

  it("this service's list (commands.list's entries) is two pages on Telegram, each with its keyboard", () => {
    const listed = Object.keys(CHAT_COMMANDS).length;
    expect(Math.ceil(listed / COMMANDS_PER_PAGE)).toBe(2);
    const first = telegramCommandsPage(1, "main", false);
    expect(first.text).toMatch(/^ℹ️ Commands \(1\/2\)\n\nSession\n\/stop - Stop the current run\.\n/);
    expect(first.keyboard).toEqual([
      [button("1/2", "commands_page_noop:main"), button("Next ▶", "commands_page_2:main")],
    ]);
    const second = telegramCommandsPage(2, "main", true);
    expect(second.text).toMatch(/^ℹ️ Commands \(2\/2\)\n\nStatus\n {2}\/status - Show current status\.\n/);
    expect(second.text).toContain("\n\nManagement\n  /send - Set send policy.");
    expect(second.keyboard).toEqual([
      [button("◀ Prev", "commands_page_1:main"), button("2/2", "commands_page_noop:main")],
    ]);
  });
});
