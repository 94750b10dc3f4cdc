import { describe, expect, inject, it } from "vitest";
import { call, freshTenant, until } from "../support/helpers";

/**
 * OpenClaw's cap on pending DM pairing requests (issue 44, finding 4): a channel holds at most 3;
 * a further unknown sender is ignored (no request, no code message) until one is approved or
 * expires. The inbox, its SQLite store and the webhook are real; the Bot API is the test peer's
 * (test/peers/peer-server.ts, `/telegram`).
 */

const SECRET = "tg-webhook-secret-0123456789";
const SENDERS = [555201, 555202, 555203, 555204, 555205];
let nextUpdateId = 910_000;

function dm(from: number) {
  return {
    update_id: nextUpdateId++,
    message: {
      message_id: nextUpdateId,
      from: { id: from, is_bot: false, first_name: `User${from}` },
      chat: { id: from, type: "private", first_name: `User${from}` },
      date: Math.floor(Date.now() / 1000),
      text: "hello?",
    },
  };
}

describe("pending pairing requests", () => {
  it("are capped at 3 per channel: the 4th and 5th senders get no request and no code until one is approved", async () => {
    const t = await freshTenant("pairing");
    const put = await t.config({
      channels: {
        telegram: {
          enabled: true,
          botToken: "123456:fake",
          webhookSecret: SECRET,
          apiRoot: `http://127.0.0.1:${inject("peerPort")}/telegram`,
          dmPolicy: "pairing",
        },
      },
    });
    expect(put.status, put.text).toBe(200);
    const webhook = (from: number) =>
      call(`${t.prefix}/telegram-webhook`, {
        method: "POST",
        token: null,
        headers: { "x-telegram-bot-api-secret-token": SECRET },
        json: dm(from),
      });
    for (const sender of SENDERS) expect((await webhook(sender)).status).toBe(200);
    const handled = async () => (await t.call("/v1/channels/status")).data.channelAccounts.telegram[0];
    await until(handled, (account) => account.pendingUpdates === 0 && account.handledUpdates === SENDERS.length);
    const listed = async () =>
      (await t.call("/v1/channels/telegram/pairing")).data.requests as Array<{ id: string; code: string }>;
    const requests = await listed();
    expect(requests.map((r) => r.id)).toEqual(SENDERS.slice(0, 3).map(String));
    // A sender past the cap writing again is still ignored.
    expect((await webhook(SENDERS[3]!)).status).toBe(200);
    await until(handled, (account) => account.pendingUpdates === 0 && account.handledUpdates === SENDERS.length + 1);
    expect((await listed()).length).toBe(3);

    // One approved: the next new sender gets a request (and its code) again.
    const approved = await t.call("/v1/channels/telegram/pairing/approve", {
      method: "POST",
      json: { code: requests[0]!.code },
    });
    expect(approved.status, approved.text).toBe(200);
    expect((await webhook(SENDERS[4]!)).status).toBe(200);
    const after = await until(listed, (list) => list.length === 3);
    expect(after.map((r) => r.id)).toEqual([...SENDERS.slice(1, 3), SENDERS[4]!].map(String));
  }, 60_000);
});
