import { channelSecretValue } from "../channel-registry";
import { BODY_TOO_LARGE, servesPath, type WebhookAnswer, type WebhookHandler } from "../webhook";
import { LINE_ANSWERS, LINE_MAX_BODY_BYTES } from "./events";
import { checkLineRequest, DEFAULT_LINE_WEBHOOK_PATH, lineHeadersRefusal } from "./ingress";
import { LINE_SIGNATURE_HEADER } from "./signature";

/**
 * LINE's webhook with the real gateway's answers (SPEC channels-2 §3.1): no X-Line-Signature 400
 * and a body announced over 64 KB 413, both unread; a wrong signature 401, a signed body that is
 * not a webhook 400, one read past 64 KB 413; then each event of the batch committed (its
 * message id or webhookEventId the dedupe key) before `200 {"status":"ok"}` marked durable. The
 * console's "Verify" (no events) and standby events: 200 unmarked, nothing stored. `GET` 200
 * `OK`, `HEAD` 204, as the gateway answers. Not served without the channel secret.
 */
export const lineWebhook: WebhookHandler = async (request, { config, resolve }) => {
  const line = config.channels?.line;
  if (!line || !servesPath(line, DEFAULT_LINE_WEBHOOK_PATH, request.path)) return null;
  const channelSecret = await channelSecretValue(line.channelSecret, resolve);
  if (!channelSecret) return null;
  if (request.method === "GET") return json(200, null, "OK");
  if (request.method === "HEAD") return json(204, null, null);
  if (request.method !== "POST") return null;
  const signature = request.headers.get(LINE_SIGNATURE_HEADER) ?? undefined;
  const refusal = lineHeadersRefusal(signature, request.headers.get("content-length") ?? undefined);
  if (refusal) {
    request.discard();
    return json(refusal.status, refusal.body);
  }
  const body = await request.text();
  if (body === BODY_TOO_LARGE || new TextEncoder().encode(body).byteLength > LINE_MAX_BODY_BYTES)
    return json(LINE_ANSWERS.tooLarge.status, LINE_ANSWERS.tooLarge.body);
  const verdict = await checkLineRequest({ channelSecret, signature, body });
  if (!verdict.ok) return json(verdict.status, verdict.body);
  const answer = json(LINE_ANSWERS.ok.status, LINE_ANSWERS.ok.body, undefined, verdict.updates.length > 0);
  return { ...answer, updates: verdict.updates };
};

/** An answer with nothing (yet) to commit: JSON by default, text for GET's `OK`; `durable` once updates are committed. */
function json(status: number, body: object | null, text?: string | null, durable = false): WebhookAnswer {
  const headers: Record<string, string> =
    text === undefined ? { "content-type": "application/json" } : { "content-type": "text/plain; charset=utf-8" };
  if (durable) headers["x-openclaw-delivery-accepted"] = "durable";
  return { response: new Response(text === undefined ? JSON.stringify(body) : text, { status, headers }), updates: [] };
}
