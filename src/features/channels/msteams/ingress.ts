import type { OutboundPolicy } from "../../../policy/outbound-url";
import { splitConversationId } from "./activity";
import { type MsTeamsActivity, msTeamsActivitySchema } from "./bot-framework-schemas";
import { type BotTokenClaims, bearerToken, serviceUrlMatches, verifyBotToken } from "./bot-token";
import { checkServiceUrl } from "./service-url";
import { BOT_FRAMEWORK_OPENID_URL, botFrameworkKey } from "./signing-keys";

/**
 * The answers of the Teams messaging endpoint before anything is stored: the Bot Framework
 * token (401, checked before the body is read), then the body: not JSON or not an activity 400,
 * a serviceUrl other than the token's or not a Bot Connector 401; a message activity accepted
 * with its dedupe key (conversation + activity id: Teams' message ids are only unique within a
 * conversation); other activity types (conversationUpdate, typing, reactions) answered 200 and
 * not stored.
 */

export const DEFAULT_MSTEAMS_WEBHOOK_PATH = "/api/messages";

export type MsTeamsAuthVerdict =
  | { ok: true; claims: BotTokenClaims; endorsements?: string[] }
  | { ok: false; status: 401 | 503; reason: string };

/** What the token check vouches for: its claims, and the channels its signing key is endorsed for. */
export type MsTeamsAuth = { claims: BotTokenClaims; endorsements?: string[] };

export type MsTeamsIngressVerdict =
  | { ok: true; updateId: string; body: string; activity: MsTeamsActivity }
  | { ok: true; ignored: string }
  | { ok: false; status: 400 | 401; reason: string };

/**
 * The Authorization header's Bot Framework token, against the keys under `openIdUrl`. Keys that
 * cannot be fetched answer 503, not 401: the Bot Connector retries a 5xx, so a passing outage
 * of the key endpoint loses no message.
 */
export async function checkMsTeamsAuthorization(input: {
  authorization: string | null;
  appId: string;
  openIdUrl?: string;
  policy: OutboundPolicy;
  nowMs: number;
}): Promise<MsTeamsAuthVerdict> {
  const token = bearerToken(input.authorization);
  if (!token) return { ok: false, status: 401, reason: "no bearer token" };
  let verdict: Awaited<ReturnType<typeof verifyBotToken>>;
  let endorsements: string[] | undefined;
  try {
    verdict = await verifyBotToken({
      token,
      appId: input.appId,
      nowMs: input.nowMs,
      keyFor: async (kid) => {
        const key = await botFrameworkKey({
          openIdUrl: input.openIdUrl ?? BOT_FRAMEWORK_OPENID_URL,
          kid,
          policy: input.policy,
          nowMs: input.nowMs,
        });
        endorsements = key?.endorsements;
        return key;
      },
    });
  } catch (error) {
    return { ok: false, status: 503, reason: `signing keys unavailable: ${(error as Error).message}` };
  }
  if (!verdict.ok) return { ok: false, status: 401, reason: verdict.reason };
  return { ok: true, claims: verdict.claims, ...(endorsements ? { endorsements } : {}) };
}

/**
 * The body of an authenticated request. A key endorsed for some channels signs only their
 * activities (the SDKs' endorsement check, made here because the channel is in the body). Pure.
 */
export function msTeamsActivityVerdict(auth: MsTeamsAuth, body: string, apiRoot?: string): MsTeamsIngressVerdict {
  const { claims, endorsements } = auth;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, status: 400, reason: "body is not JSON" };
  }
  const parsed = msTeamsActivitySchema.safeParse(json);
  if (!parsed.success) return { ok: false, status: 400, reason: "not an activity" };
  const activity = parsed.data;
  if (endorsements && !endorsements.includes(activity.channelId ?? ""))
    return { ok: false, status: 401, reason: `signing key not endorsed for channel ${activity.channelId ?? "(none)"}` };
  if (!activity.serviceUrl) return { ok: false, status: 400, reason: "activity without serviceUrl" };
  if (!serviceUrlMatches(claims, activity.serviceUrl))
    return { ok: false, status: 401, reason: "serviceUrl differs from the token's" };
  const connector = checkServiceUrl(activity.serviceUrl, apiRoot);
  if (!connector.ok) return { ok: false, status: 401, reason: connector.reason };
  if (activity.type !== "message") return { ok: true, ignored: `activity type ${activity.type}` };
  if (!activity.id || !activity.conversation)
    return { ok: false, status: 400, reason: "message without id or conversation" };
  const { conversationId } = splitConversationId(activity.conversation.id);
  return { ok: true, updateId: `${conversationId}:${activity.id}`, body, activity };
}
