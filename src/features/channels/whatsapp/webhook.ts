import { channelSecretValue } from "../channel-registry";
import { acceptedAnswer, BODY_TOO_LARGE, plainAnswer, servesPath, type WebhookHandler } from "../webhook";
import { checkWhatsappRequest, DEFAULT_WHATSAPP_WEBHOOK_PATH } from "./ingress";
import { SIGNATURE_HEADER, signatureHeaderPlausible, subscriptionChallenge } from "./signature";

/**
 * The WhatsApp Cloud API's webhook: Meta's subscription GET answered with its challenge for the
 * tenant's verify token (403 otherwise); a POST whose X-Hub-Signature-256 is not the app
 * secret's HMAC of the raw body 401, a body not JSON 400; each inbound message committed (its
 * message id the dedupe key) before the 200; statuses and other changes 200 unstored. Not
 * served without the verify token (GET) or app secret (POST).
 */
export const whatsappWebhook: WebhookHandler = async (request, { config, resolve }) => {
  const whatsapp = config.channels?.whatsapp;
  if (!whatsapp || !servesPath(whatsapp, DEFAULT_WHATSAPP_WEBHOOK_PATH, request.path)) return null;
  if (request.method === "GET") {
    const verifyToken = await channelSecretValue(whatsapp.verifyToken, resolve);
    if (!verifyToken) return null;
    const challenge = await subscriptionChallenge(
      {
        mode: request.query("hub.mode"),
        token: request.query("hub.verify_token"),
        challenge: request.query("hub.challenge"),
      },
      verifyToken,
    );
    return challenge === null ? plainAnswer(403, "Forbidden") : plainAnswer(200, challenge);
  }
  if (request.method !== "POST") return null;
  const appSecret = await channelSecretValue(whatsapp.appSecret, resolve);
  if (!appSecret) return null;
  if (request.announcesTooLarge()) {
    request.discard();
    return plainAnswer(413, "payload too large");
  }
  const signature = request.headers.get(SIGNATURE_HEADER);
  if (!signatureHeaderPlausible(signature)) {
    request.discard();
    return plainAnswer(401, "invalid signature");
  }
  const body = await request.text();
  if (body === BODY_TOO_LARGE) return plainAnswer(413, "payload too large");
  const verdict = await checkWhatsappRequest({ appSecret, signature, body });
  if (!verdict.ok) return plainAnswer(verdict.status, verdict.status === 401 ? "invalid signature" : "invalid JSON");
  return acceptedAnswer(verdict.updates, { "content-type": "text/plain; charset=utf-8" });
};
