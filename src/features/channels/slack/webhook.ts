import { channelSecretValue } from "../channel-registry";
import { acceptedAnswer, BODY_TOO_LARGE, servesPath, type WebhookAnswer, type WebhookHandler } from "../webhook";
import { checkSlackRequest, DEFAULT_SLACK_WEBHOOK_PATH } from "./ingress";
import { SIGNATURE_HEADER, slackHeadersPlausible, TIMESTAMP_HEADER } from "./signature";

const empty = (status: number): WebhookAnswer => ({ response: new Response(null, { status }), updates: [] });

/**
 * Slack's Request URL (SPEC §4.1): 405 for another method, 401 (empty) for a bad signature or a
 * timestamp more than five minutes off (either way), the challenge of `url_verification`, 400
 * (empty) for a non-JSON body; an event committed before its empty 200. The signature covers
 * the body: the announced size, then headers that cannot be Slack's (refused unread), then a
 * read up to the limit, then the signature. Not served without a signing secret and bot token.
 */
export const slackWebhook: WebhookHandler = async (request, { config, resolve, nowMs }) => {
  const slack = config.channels?.slack;
  if (!servesPath(slack, DEFAULT_SLACK_WEBHOOK_PATH, request.path)) return null;
  const signingSecret = await channelSecretValue(slack?.signingSecret, resolve);
  if (!signingSecret || !slack?.botToken) return null;
  if (request.method !== "POST")
    return {
      response: new Response("Method Not Allowed", {
        status: 405,
        headers: { "content-type": "text/plain; charset=utf-8" },
      }),
      updates: [],
    };
  const timestamp = request.headers.get(TIMESTAMP_HEADER) ?? undefined;
  const signature = request.headers.get(SIGNATURE_HEADER) ?? undefined;
  if (request.announcesTooLarge()) {
    request.discard();
    return empty(413);
  }
  if (!slackHeadersPlausible(timestamp, signature, nowMs)) {
    request.discard();
    return empty(401);
  }
  const body = await request.text();
  if (body === BODY_TOO_LARGE) return empty(413);
  const verdict = await checkSlackRequest({
    signingSecret,
    timestamp,
    signature,
    contentType: request.headers.get("content-type") ?? undefined,
    body,
    nowMs,
  });
  if (!verdict.ok)
    return {
      response: verdict.json ? Response.json(verdict.json) : new Response(null, { status: verdict.status }),
      updates: [],
    };
  return acceptedAnswer([{ updateId: verdict.updateId, body: verdict.body }]);
};
