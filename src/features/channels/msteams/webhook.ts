import { acceptedAnswer, BODY_TOO_LARGE, plainAnswer, servesPath, type WebhookHandler } from "../webhook";
import { checkMsTeamsAuthorization, DEFAULT_MSTEAMS_WEBHOOK_PATH, msTeamsActivityVerdict } from "./ingress";

/**
 * Teams' messaging endpoint (`/api/messages`, OpenClaw's; `webhook.path` moves it): the Bot
 * Framework token is checked before the body is read (no token or a bad one 401, signing keys
 * unreachable 503 so the Bot Connector retries), then the body (not an activity 400, a
 * serviceUrl the token does not vouch for 401); a message activity is committed (dedupe key:
 * conversation + activity id) before the 200, other activities are answered 200 unstored. Not
 * served until the bot's app password is configured (a reply could not be sent).
 */
export const msTeamsWebhook: WebhookHandler = async (request, { config, nowMs, outbound }) => {
  const msteams = config.channels?.msteams;
  if (!msteams || request.method !== "POST") return null;
  if (
    !servesPath(
      { enabled: msteams.enabled, webhookPath: msteams.webhook?.path },
      DEFAULT_MSTEAMS_WEBHOOK_PATH,
      request.path,
    )
  )
    return null;
  // Configured (a SecretRef once written): the password itself is only read to send.
  if (!msteams.appPassword) return null;
  if (request.announcesTooLarge()) {
    request.discard();
    return plainAnswer(413, "payload too large");
  }
  const auth = await checkMsTeamsAuthorization({
    authorization: request.headers.get("authorization"),
    appId: msteams.appId,
    ...(msteams.openIdMetadataUrl ? { openIdUrl: msteams.openIdMetadataUrl } : {}),
    policy: outbound,
    nowMs,
  });
  if (!auth.ok) {
    request.discard();
    console.warn(JSON.stringify({ event: "msteams.webhook.refused", status: auth.status, reason: auth.reason }));
    return plainAnswer(auth.status, auth.status === 401 ? "unauthorized" : "signing keys unavailable");
  }
  const body = await request.text();
  if (body === BODY_TOO_LARGE) return plainAnswer(413, "payload too large");
  const verdict = msTeamsActivityVerdict(auth, body, msteams.apiRoot);
  if (!verdict.ok) {
    console.warn(JSON.stringify({ event: "msteams.webhook.refused", status: verdict.status, reason: verdict.reason }));
    return plainAnswer(verdict.status, verdict.status === 401 ? "unauthorized" : "invalid activity");
  }
  if ("ignored" in verdict) return plainAnswer(200, null);
  return acceptedAnswer([{ updateId: verdict.updateId, body: verdict.body }]);
};
