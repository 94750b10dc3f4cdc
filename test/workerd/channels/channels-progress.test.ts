import { describe, expect, inject, it } from "vitest";
import { freshTenant, type TestTenant, until } from "../support/helpers";
import { peerTelegramChannel, postTelegramDm } from "../support/telegram-helpers";

/**
 * Telegram's progress draft (OpenClaw's default `streaming: "progress"`, ../shared/peer/channels/
 * SPEC.md §6): a turn whose run calls a tool shows `<b>Working</b>` in the chat, the answer comes
 * as a new message, then the draft is deleted; a plain reply shows no draft (§3.5). The webhook,
 * inbox, session, tool loop and outbox are real; the Bot API is the test peer's, the model the
 * scripted tool-calling mock (test/peers/tool-mock-model.mjs).
 */

const peer = `http://127.0.0.1:${inject("peerPort")}`;
const toolModel = `http://127.0.0.1:${inject("toolModelPort")}/v1`;
const SECRET = "tg-webhook-secret-progress-0123";
let nextUpdateId = 960_000;
/** A sender name the mock model reads as one tool round (sessions_list), then its `DONE: …` answer. */
const TOOL_TURN = "CALL sessions_list";

type Body = Record<string, unknown>;

async function progressTenant(label: string, telegram: Record<string, unknown> = {}): Promise<TestTenant> {
  const t = await freshTenant(label);
  const put = await t.config({
    agents: { list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: toolModel, model: "mock" } }] },
    channels: {
      telegram: peerTelegramChannel(SECRET, telegram),
    },
  });
  expect(put.status, put.text).toBe(200);
  return t;
}

/**
 * A DM from a chat of its own; returns the chat id. The mock model reads its directives from the
 * last user message, which for a chat turn is OpenClaw's internal-context block: the sender's
 * name carries them there (`CALL <tool>`, no arguments: the block quotes its JSON).
 */
async function dm(t: TestTenant, text: string, senderName = "Progress"): Promise<number> {
  const updateId = nextUpdateId++;
  const chatId = 610_000 + (updateId % 100_000);
  await postTelegramDm(t, SECRET, { updateId, chatId, name: senderName }, { text });
  return chatId;
}

/** The Bot API calls of `method` the peer recorded for a chat, in order. */
async function callsTo(method: string, chatId: number): Promise<Body[]> {
  const path = encodeURIComponent(`/telegram/${method}`);
  const list = (await (await fetch(`${peer}/control/recorded?path=${path}`)).json()) as Array<{ body: Body }>;
  return list.map((c) => c.body).filter((body) => String(body.chat_id) === String(chatId));
}

describe("Telegram's progress draft while a run calls tools", () => {
  it("a tool turn: <b>Working</b> first, then the answer, then the draft is deleted", async () => {
    const t = await progressTenant("progress-tool");
    const chatId = await dm(t, "look around", TOOL_TURN);
    const deletes = await until(
      () => callsTo("deleteMessage", chatId),
      (list) => list.length >= 1,
    );
    // The peer's Bot API numbers every message 1.
    expect(deletes).toEqual([{ chat_id: chatId, message_id: 1 }]);
    const sends = await callsTo("sendMessage", chatId);
    expect(sends[0]).toEqual({ chat_id: chatId, text: "<b>Working</b>", parse_mode: "HTML" });
    expect(sends).toHaveLength(2);
    expect(String(sends[1]!.text)).toMatch(/^DONE: /);
  }, 60_000);

  it('a plain reply shows no draft; streaming: "off" shows none for a tool turn', async () => {
    const plain = await progressTenant("progress-plain");
    const plainChat = await dm(plain, "just saying hello");
    await until(
      () => callsTo("sendMessage", plainChat),
      (list) => list.length >= 1,
    );
    const off = await progressTenant("progress-off", { streaming: "off" });
    const offChat = await dm(off, "look around", TOOL_TURN);
    await until(
      () => callsTo("sendMessage", offChat),
      (list) => list.length >= 1,
    );
    // Anything the end of the runs would still send has been sent by the time of the reply.
    await new Promise((resolve) => setTimeout(resolve, 500));
    // The "off" turn did call its tool (its answer is the mock's after a tool round).
    expect(String((await callsTo("sendMessage", offChat))[0]!.text)).toMatch(/^DONE: /);
    for (const chatId of [plainChat, offChat]) {
      const sends = await callsTo("sendMessage", chatId);
      expect(sends.map((s) => s.text)).not.toContain("<b>Working</b>");
      expect(await callsTo("deleteMessage", chatId)).toEqual([]);
    }
  }, 60_000);
});
