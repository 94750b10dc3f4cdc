import { channelSecretValue } from "../channel-registry";
import { acceptedAnswer, BODY_TOO_LARGE, plainAnswer, servesPath, type WebhookHandler } from "../webhook";
import { DEFAULT_WEBHOOK_PATH, SECRET_HEADER, telegramSecretOk, telegramUpdateVerdict } from "./ingress";

const PLAIN = { "content-type": "text/plain; charset=utf-8" };

/**
 * Telegram's webhook (SPEC §3.1): the announced size, then the secret header, then the body read
 * up to the limit. An unauthenticated request is answered before its body is read (issue 44,
 * finding 4). Not served without a webhook secret.
 */
export const telegramWebhook: WebhookHandler = async (request, { config, resolve }) => {
  const telegram = config.channels?.telegram;
  if (request.method !== "POST" || !servesPath(telegram, DEFAULT_WEBHOOK_PATH, request.path)) return null;
  const expectedSecret = await channelSecretValue(telegram?.webhookSecret, resolve);
  if (!expectedSecret) return null;
  if (request.announcesTooLarge()) {
    request.discard();
    return plainAnswer(413, "payload too large");
  }
  const secretOk = telegramSecretOk(request.headers.get(SECRET_HEADER) ?? undefined, expectedSecret);
  if (!secretOk) request.discard();
  const body = secretOk ? await request.text() : "";
  if (body === BODY_TOO_LARGE) return plainAnswer(413, "payload too large");
  const verdict = telegramUpdateVerdict(secretOk, body);
  if (!verdict.ok)
    return plainAnswer(verdict.status, verdict.text, verdict.status === 401 ? { connection: "close" } : {});
  return acceptedAnswer([{ updateId: verdict.updateId, body: verdict.body }], PLAIN);
};
