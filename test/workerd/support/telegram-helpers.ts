import { expect, inject } from "vitest";
import { call, type TestTenant } from "./helpers";

/** Shared by the workerd tests that post Telegram updates to a tenant's webhook (test peer's Bot API). */

/** `channels.telegram` of a tenant whose bot is the test peer's, open to DMs; `extra` adds to or replaces keys. */
export function peerTelegramChannel(webhookSecret: string, extra: Record<string, unknown> = {}) {
  return {
    enabled: true,
    botToken: "123456:fake",
    webhookSecret,
    apiRoot: `http://127.0.0.1:${inject("peerPort")}/telegram`,
    dmPolicy: "open",
    ...extra,
  };
}

/**
 * Posts a private message from chat `chatId` (its sender of the same id, named `name`) as update
 * `updateId` (its message id too), with the message fields `fields` (text, photo, …); the webhook
 * must answer 200.
 */
export async function postTelegramDm(
  t: TestTenant,
  webhookSecret: string,
  ids: { updateId: number; chatId: number; name?: string },
  fields: Record<string, unknown>,
): Promise<void> {
  const { updateId, chatId } = ids;
  const name = ids.name ?? `User${chatId}`;
  await postTelegramUpdate(t, webhookSecret, {
    update_id: updateId,
    message: {
      message_id: updateId,
      from: { id: chatId, is_bot: false, first_name: name },
      chat: { id: chatId, type: "private", first_name: name },
      date: Math.floor(Date.now() / 1000),
      ...fields,
    },
  });
}

/** Posts an update as it is (a button press, …) to the tenant's webhook; the webhook must answer 200. */
export async function postTelegramUpdate(t: TestTenant, webhookSecret: string, update: unknown): Promise<void> {
  const posted = await call(`${t.prefix}/telegram-webhook`, {
    method: "POST",
    token: null,
    headers: { "x-telegram-bot-api-secret-token": webhookSecret },
    json: update,
  });
  expect(posted.status, posted.text).toBe(200);
}
