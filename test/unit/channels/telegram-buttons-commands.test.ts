import { describe, expect, it } from "vitest";
import { telegramCommandsPage } from "../../../src/domain/chat-commands";
import { COMMANDS_PAGE_KIND } from "../../../src/features/channels/adapter";
import { channelCommand } from "../../../src/features/channels/chat-command-turn";
import { decideSlack } from "../../../src/features/channels/slack/routing";
import { decideTelegram } from "../../../src/features/channels/telegram/routing";
import type { TelegramConfig, TelegramUpdate } from "../../../src/protocol/channels";

/** Inline-button presses and addressed commands as OpenClaw 2026.9.6 takes them (issue 46, 1 and 8). */

const BOT = { id: 123456789, username: "chan_test_bot" };
const decide = (update: TelegramUpdate, telegram: TelegramConfig) =>
  decideTelegram({ update, telegram, config: {}, agentId: "main", bot: BOT, approved: new Set() });

function press(chat: { id: number; type: string }, data?: string): TelegramUpdate {
  return {
    update_id: 5,
    callback_query: {
      id: "cbq-77",
      from: { id: 555100, is_bot: false, first_name: "User" },
      ...(data !== undefined ? { data } : {}),
      message: { message_id: 40, from: { id: BOT.id, is_bot: true, first_name: "Bot" }, chat, text: "Pick one" },
    },
  };
}

function groupText(text: string): TelegramUpdate {
  return {
    update_id: 6,
    message: {
      message_id: 12,
      from: { id: 777, is_bot: false, first_name: "Member" },
      chat: { id: -100555, type: "supergroup" },
      text,
    },
  };
}

describe("inline-button presses", () => {
  it("are a turn of the presser with `callback_data: <data>`, answered with answerCallbackQuery first", () => {
    const decision = decide(press({ id: 555100, type: "private" }, "btn:yes"), { dmPolicy: "open" });
    expect(decision).toMatchObject({
      action: "turn",
      turn: {
        text: "callback_data: btn:yes",
        senderId: "555100",
        ack: { chatId: "555100", callbackQueryId: "cbq-77" },
      },
    });
  });

  it("count as addressed in a group that requires a mention, with no 👀 on the bot's message", () => {
    const decision = decide(press({ id: -100555, type: "supergroup" }, "btn:no"), { groupPolicy: "open" });
    expect(decision.action).toBe("turn");
    if (decision.action !== "turn") return;
    expect(decision.turn.ack).toEqual({ chatId: "-100555", callbackQueryId: "cbq-77" });
  });

  it("without data are no turn", () => {
    expect(decide(press({ id: 555100, type: "private" }), { dmPolicy: "open" }).action).toBe("ignore");
  });
});

describe("presses of /commands page buttons", () => {
  it("are answered without a turn: answerCallbackQuery (no typing), then an edit of the pressed message to the page", () => {
    const decision = decide(press({ id: 555100, type: "private" }, "commands_page_2:main"), { dmPolicy: "open" });
    expect(decision).toEqual({
      action: "answer",
      answer: {
        ack: { chatId: "555100", callbackQueryId: "cbq-77", typing: false },
        delivery: {
          kind: COMMANDS_PAGE_KIND,
          target: { channel: "telegram", to: "telegram:555100", accountId: "default", editMessageId: 40 },
          message: telegramCommandsPage(2, "main", true).text,
          blocks: [{ inline_keyboard: telegramCommandsPage(2, "main", true).keyboard }],
        },
      },
    });
  });

  it("the page counter is only answered; a press the chat's rules refuse is refused as any press", () => {
    expect(decide(press({ id: 555100, type: "private" }, "commands_page_noop:main"), { dmPolicy: "open" })).toEqual({
      action: "answer",
      answer: { ack: { chatId: "555100", callbackQueryId: "cbq-77", typing: false } },
    });
    const allowlisted = { dmPolicy: "allowlist" as const, allowFrom: ["111"] };
    expect(decide(press({ id: 555100, type: "private" }, "commands_page_2:main"), allowlisted).action).toBe("ignore");
    // Other data stays an ordinary press (a turn).
    expect(decide(press({ id: 555100, type: "private" }, "commands:2"), { dmPolicy: "open" }).action).toBe("turn");
  });
});

describe("addressed commands", () => {
  it("/cmd@thisbot is the command and a mention; /cmd@otherbot is text for the model (no mention)", () => {
    const mine = decide(groupText("/status@chan_test_bot"), { groupPolicy: "open" });
    expect(mine).toMatchObject({ action: "turn", turn: { text: "/status" } });
    expect(decide(groupText("/status@other_bot"), { groupPolicy: "open" })).toMatchObject({ action: "ignore" });
    const open = { groupPolicy: "open" as const, groups: { "-100555": { requireMention: false } } };
    expect(decide(groupText("/status@other_bot"), open)).toMatchObject({
      action: "turn",
      turn: { text: "/status@other_bot" },
    });
    expect(channelCommand("/status@other_bot")).toBeNull();
  });

  it("a Slack mention before the command is not part of it; /stop and /send are commands", () => {
    expect(channelCommand("<@U0BOT> /status")).toEqual({ name: "status", args: "" });
    expect(channelCommand("/new hello there")).toEqual({ name: "new", args: "hello there" });
    expect(channelCommand("/stop")).toEqual({ name: "stop", args: "" });
    // Answered with OpenClaw's refusal to a sender who is no command owner (SEND_NOT_OWNER_REPLY).
    expect(channelCommand("/send on")).toEqual({ name: "send", args: "on" });
    expect(channelCommand("/sendx")).toBeNull();
  });
});

describe("👀 for an explicit mention where mentions are not required", () => {
  it("Telegram: an open group's @bot message gets the reaction, one without a mention does not", () => {
    const open = { groupPolicy: "open" as const, groups: { "-100555": { requireMention: false } } };
    const mention = groupText("@chan_test_bot hi");
    mention.message!.entities = [{ type: "mention", offset: 0, length: 14 }];
    expect(decide(mention, open)).toMatchObject({ turn: { ack: { reactToMessageId: 12 } } });
    const plain = decide(groupText("hi all"), open);
    expect(plain.action === "turn" && plain.turn.ack.reactToMessageId).toBeUndefined();
  });

  it("Slack: a mention in a channel that does not require one gets the reaction", () => {
    const slackDecide = (text: string) =>
      decideSlack({
        envelope: {
          type: "event_callback",
          event_id: "Ev9",
          team_id: "T0TEST",
          event: { type: "message", channel: "C0OPEN", channel_type: "channel", user: "U0BOB", text, ts: "1.5" },
        },
        slack: { mode: "http", groupPolicy: "open", channels: { C0OPEN: { requireMention: false } } },
        config: {},
        agentId: "main",
        bot: { userId: "U0BOT" },
        approved: new Set(),
      });
    expect(slackDecide("<@U0BOT> hi")).toMatchObject({ turn: { ack: { chatId: "C0OPEN", reactToMessageId: "1.5" } } });
    const plain = slackDecide("hi all");
    expect(plain.action === "turn" && plain.turn.ack.reactToMessageId).toBeUndefined();
  });
});
