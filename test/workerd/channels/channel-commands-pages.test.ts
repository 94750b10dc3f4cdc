import { describe, expect, inject, it } from "vitest";
import { SEND_NOT_OWNER_REPLY, telegramCommandsPage } from "../../../src/domain/chat-commands";
import { markdownToTelegramHtml } from "../../../src/features/channels/telegram/format";
import { call, freshTenant, type TestTenant, until } from "../support/helpers";
import { peerTelegramChannel, postTelegramDm, postTelegramUpdate } from "../support/telegram-helpers";

/**
 * OpenClaw's paged `/commands` on Telegram and the commands this service does not run (issue 46,
 * 1), end to end through the real inbox, session, run and both outboxes against the test peer's
 * Bot API: `/commands` is sent with its inline keyboard; a press of `Next ▶` is answered
 * (`answerCallbackQuery`) and the pressed message edited to page 2 with its keyboard, once
 * across a redelivery, without a turn; `/compact` and `/send` are answered without the model.
 */

const SECRET = "tg-webhook-secret-pages-0123456";
/** The paging test's chat (the peer's record is shared: its calls are told apart by their chat). */
const CHAT = 555_410;
const MODEL = `record:cmdpages-${Date.now()}`;
const peer = `http://127.0.0.1:${inject("peerPort")}`;

type Recorded = { body: Record<string, unknown> };
async function recorded(method: string, chat = CHAT): Promise<Recorded[]> {
  const all = (await (await fetch(`${peer}/control/recorded?path=/telegram/${method}`)).json()) as Recorded[];
  return all.filter((r) => String(r.body.chat_id) === String(chat) || method === "answerCallbackQuery");
}

async function pagesTenant(): Promise<TestTenant> {
  const t = await freshTenant("cmdpages");
  const put = await t.config({
    // A model that keeps what it is sent: a command must not reach it.
    agents: {
      list: [{ id: "main", default: true, runner: { type: "openai", baseUrl: `${peer}/v1`, model: MODEL } }],
    },
    channels: { telegram: peerTelegramChannel(SECRET) },
  });
  expect(put.status, put.text).toBe(200);
  return t;
}

function pagePress(updateId: number, queryId: string, data: string) {
  return {
    update_id: updateId,
    callback_query: {
      id: queryId,
      from: { id: CHAT, is_bot: false, first_name: `User${CHAT}` },
      chat_instance: "ci-pages",
      data,
      message: {
        message_id: 7001,
        from: { id: 123456, is_bot: true, first_name: "Peer Bot", username: "peer_bot" },
        chat: { id: CHAT, type: "private" },
        date: Math.floor(Date.now() / 1000),
        text: "ℹ️ Commands (1/2)",
      },
    },
  };
}

const post = (t: TestTenant, update: unknown) => postTelegramUpdate(t, SECRET, update);

async function modelCalls(): Promise<number> {
  return ((await (await fetch(`${peer}/control/recorded?path=/model/${MODEL.slice(7)}`)).json()) as unknown[]).length;
}

async function delivered(t: TestTenant, count: number): Promise<string[]> {
  const sent = await until(
    async () => {
      const res = await t.call(`/v1/sessions/${encodeURIComponent("agent:main:main")}/deliveries`);
      return ((res.data.deliveries ?? []) as Array<{ status: string; message: string }>).filter(
        (d) => d.status === "delivered",
      );
    },
    (list) => list.length >= count,
  );
  return sent.map((d) => d.message);
}

describe("/commands pages on Telegram", () => {
  it("sends page 1 with OpenClaw's keyboard; a Next press is answered and edits the message to page 2, once, with no turn", async () => {
    const t = await pagesTenant();
    const base = 940_000 + (Date.now() % 50_000);
    await postTelegramDm(t, SECRET, { updateId: base, chatId: CHAT }, { text: "/commands" });
    const [first] = await until(
      () => recorded("sendMessage"),
      (sent) => sent.length >= 1,
    );
    const page1 = telegramCommandsPage(1, "main", false);
    // As recorded from OpenClaw 2026.9.6: the page as HTML, the keyboard beside it.
    expect(first!.body).toEqual({
      chat_id: String(CHAT),
      text: markdownToTelegramHtml(page1.text),
      parse_mode: "HTML",
      reply_markup: {
        inline_keyboard: [
          [
            { text: "1/2", callback_data: "commands_page_noop:main" },
            { text: "Next ▶", callback_data: "commands_page_2:main" },
          ],
        ],
      },
    });

    const next = pagePress(base + 1, `cbq-pages-${base}`, "commands_page_2:main");
    await post(t, next);
    await post(t, next); // redelivered: answered and edited once
    await until(
      () => recorded("editMessageText"),
      (edits) => edits.length >= 1,
    );
    // A later press's edit comes after anything the first press queued: then the edits are complete.
    await post(t, pagePress(base + 2, `cbq-pages-back-${base}`, "commands_page_1:main"));
    const edits = await until(
      () => recorded("editMessageText"),
      (list) => list.length >= 2,
    );
    const page2 = telegramCommandsPage(2, "main", true);
    expect(edits.map((e) => e.body)).toEqual([
      {
        chat_id: CHAT,
        message_id: 7001,
        text: page2.text,
        reply_markup: {
          inline_keyboard: [
            [
              { text: "◀ Prev", callback_data: "commands_page_1:main" },
              { text: "2/2", callback_data: "commands_page_noop:main" },
            ],
          ],
        },
      },
      {
        chat_id: CHAT,
        message_id: 7001,
        text: telegramCommandsPage(1, "main", true).text,
        reply_markup: { inline_keyboard: telegramCommandsPage(1, "main", true).keyboard },
      },
    ]);
    expect(page2.text).toMatch(/^ℹ️ Commands \(2\/2\)\n\nStatus\n {2}\/status - /);
    const answered = (await recorded("answerCallbackQuery")).map((a) => a.body.callback_query_id);
    expect(answered.filter((id) => id === `cbq-pages-${base}`)).toHaveLength(1);
    expect(answered).toContain(`cbq-pages-back-${base}`);

    // No turn: the transcript holds the command and its page only, and no model was asked.
    const history = await call(`${t.prefix}/sessions/${encodeURIComponent("agent:main:main")}/history`, {
      token: t.token,
    });
    expect((history.data.messages as Array<{ role: string }>).map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(await modelCalls()).toBe(0);
  }, 60_000);

  it("an agent id too long for Telegram's 64-byte button data: the keyboard leaves it out, is accepted, and a press pages", async () => {
    const agentId = "a".repeat(64);
    const chat = CHAT + 2;
    const t = await freshTenant("cmdpages-long");
    const put = await t.config({
      agents: { list: [{ id: agentId, default: true, runner: { type: "echo" } }] },
      channels: { telegram: peerTelegramChannel(SECRET) },
    });
    expect(put.status, put.text).toBe(200);
    const ofChat = async (method: string) =>
      (await recorded(method, chat)).map((r) => r.body as { reply_markup?: { inline_keyboard: unknown[][] } });
    const base = 995_000 + (Date.now() % 4_000);
    await postTelegramDm(t, SECRET, { updateId: base, chatId: chat }, { text: "/commands" });
    const [first] = await until(
      () => ofChat("sendMessage"),
      (sent) => sent.length >= 1,
    );
    // The first send is the one Telegram takes (OpenClaw's `commands_page_noop:<agent>` is 83 bytes here).
    expect(first!.reply_markup?.inline_keyboard).toEqual([
      [
        { text: "1/2", callback_data: "commands_page_noop" },
        { text: "Next ▶", callback_data: "commands_page_2" },
      ],
    ]);
    const press = pagePress(base + 1, `cbq-pages-long-${base}`, "commands_page_2");
    press.callback_query.from.id = chat;
    press.callback_query.message.chat.id = chat;
    await post(t, press);
    const [edit] = await until(
      () => ofChat("editMessageText"),
      (edits) => edits.length >= 1,
    );
    expect(edit!.reply_markup?.inline_keyboard).toEqual([
      [
        { text: "◀ Prev", callback_data: "commands_page_1" },
        { text: "2/2", callback_data: "commands_page_noop" },
      ],
    ]);
    expect(await ofChat("sendMessage")).toHaveLength(1);
  }, 60_000);

  it("a command OpenClaw has and this service does not run, and a chat's /send, are answered without the model", async () => {
    const t = await pagesTenant();
    const base = 990_000 + (Date.now() % 5_000);
    const before = await modelCalls();
    await postTelegramDm(t, SECRET, { updateId: base, chatId: CHAT + 1 }, { text: "/compact" });
    await postTelegramDm(t, SECRET, { updateId: base + 1, chatId: CHAT + 1 }, { text: "/send off" });
    expect((await delivered(t, 2)).sort()).toEqual(
      ["⚠️ /compact is not available on this gateway.", SEND_NOT_OWNER_REPLY].sort(),
    );
    expect(await modelCalls()).toBe(before);
    // The chat's /send changed nothing.
    const rows = (await t.call("/v1/sessions")).data.sessions as Array<{ key: string; sendPolicy?: string }>;
    expect(rows.find((row) => row.key === "agent:main:main")).toMatchObject({ key: "agent:main:main" });
    expect(rows.find((row) => row.key === "agent:main:main")?.sendPolicy).toBeUndefined();
    // A message that is no command does reach the model (the recording model works).
    await postTelegramDm(t, SECRET, { updateId: base + 2, chatId: CHAT + 1 }, { text: "hello" });
    await delivered(t, 3);
    expect(await modelCalls()).toBe(before + 1);
  }, 60_000);
});
