import { afterEach, describe, expect, inject, it } from "vitest";
import { call, freshTenant, until } from "../support/helpers";

/**
 * A busy bot (issue 46 item 7): the inbox starts the turns of different chats side by side
 * (src/features/channels/inbox-lanes.ts), so a chat whose typing call hangs at the platform does
 * not hold up another chat's reply. The inbox, the sessions and the outboxes are real; the Bot
 * API is the test peer's (`/telegram`), which holds one chat's `sendChatAction` until released.
 */

const SECRET = "tg-webhook-secret-lanes-0123456";
const SLOW_CHAT = 555_710;
const QUICK_CHAT = 555_720;
let nextUpdateId = 971_000;

const peer = (path: string) => `http://127.0.0.1:${inject("peerPort")}${path}`;

async function control(path: "/control/hold" | "/control/release", chatId: number) {
  const res = await fetch(peer(path), { method: "POST", body: JSON.stringify({ method: "sendChatAction", chatId }) });
  expect(res.status).toBe(200);
}

function dm(chat: number, text: string) {
  const updateId = nextUpdateId++;
  return {
    update_id: updateId,
    message: {
      message_id: updateId,
      from: { id: chat, is_bot: false, first_name: "Ada", username: `ada${chat}` },
      chat: { id: chat, type: "private" },
      date: Math.floor(Date.now() / 1000),
      text,
    },
  };
}

/** The replies sent so far to these chats, in the order the peer received them. */
async function repliesTo(chats: number[]): Promise<number[]> {
  const res = await fetch(peer("/control/recorded?path=/telegram/sendMessage"));
  const sends = (await res.json()) as Array<{ body: { chat_id: number | string } }>;
  return sends.map((s) => Number(s.body.chat_id)).filter((chat) => chats.includes(chat));
}

describe("the channel inbox's lanes", () => {
  afterEach(() => control("/control/release", SLOW_CHAT));

  it("answers a second chat while the first chat's typing call hangs, then the first", {
    timeout: 90_000,
  }, async () => {
    const t = await freshTenant("lanes");
    const put = await t.config({
      session: { dmScope: "per-channel-peer" },
      messages: { inbound: { debounceMs: 0 } },
      channels: {
        telegram: {
          enabled: true,
          botToken: "42:fake",
          webhookSecret: SECRET,
          apiRoot: peer("/telegram"),
          dmPolicy: "open",
        },
      },
    });
    expect(put.status, put.text).toBe(200);
    await control("/control/hold", SLOW_CHAT);
    for (const [chat, text] of [
      [SLOW_CHAT, "first, typing hangs"],
      [QUICK_CHAT, "second, other chat"],
    ] as const) {
      const res = await call(`${t.prefix}/telegram-webhook`, {
        method: "POST",
        token: null,
        headers: { "x-telegram-bot-api-secret-token": SECRET },
        json: dm(chat, text),
      });
      expect(res.status).toBe(200);
    }
    // The first reply decides: one turn at a time, the second chat's turn would wait for the hung
    // typing call to be given up (BOT_API_TIMEOUT_MS, 15 s) and the first chat's reply would come
    // first. The wait is no deadline of its own (a loaded machine may take long), only a bound.
    const chats = [SLOW_CHAT, QUICK_CHAT];
    expect(
      await until(
        () => repliesTo(chats),
        (sent) => sent.length > 0,
        45_000,
      ),
    ).toEqual([QUICK_CHAT]);
    await control("/control/release", SLOW_CHAT);
    expect(
      await until(
        () => repliesTo(chats),
        (sent) => sent.length >= 2,
      ),
    ).toEqual([QUICK_CHAT, SLOW_CHAT]);
  });
});
