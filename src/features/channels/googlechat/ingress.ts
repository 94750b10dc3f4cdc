import { verifyRs256Jwt } from "../../../util/jwt-rs256";
import { type GoogleChatEvent, googleChatUpdateId, parseGoogleChatEvent } from "./event";

/**
 * The answers of the Google Chat webhook (SPEC channels-2 §4.1), in the recorded order: the
 * Bearer token first, before the body is read (401 `unauthorized`, the reason only logged),
 * then the content type (415) and the body (400 `invalid payload`). Pure but for the
 * certificates, which come in.
 */

export const DEFAULT_GOOGLECHAT_WEBHOOK_PATH = "/googlechat";
export const GOOGLE_CHAT_ISSUER = "chat@system.gserviceaccount.com";
/** The issuers of Google ID tokens (`audienceType` "app-url", checked against the OIDC certificates). */
export const GOOGLE_OIDC_ISSUERS = ["https://accounts.google.com", "accounts.google.com"];
/** Clock skew tolerated on the token's times, in seconds. */
export const GOOGLE_CHAT_TOKEN_SKEW_SECONDS = 30;

export type GoogleChatAudience = { audienceType: "project-number" | "app-url"; audience: string };

export type GoogleChatRefusal = { ok: false; status: 400 | 401 | 405 | 415; text: string; reason?: string };

/** The token check: null when the request may go on, else the recorded refusal. */
export async function checkGoogleChatToken(input: {
  authorization: string | null;
  audience: GoogleChatAudience;
  certsByKid: Readonly<Record<string, string>>;
  nowSeconds: number;
}): Promise<GoogleChatRefusal | null> {
  const match = /^Bearer\s+(\S+)$/i.exec(input.authorization ?? "");
  if (!match?.[1]) return { ok: false, status: 401, text: "unauthorized", reason: "missing token" };
  const appUrl = input.audience.audienceType === "app-url";
  const verified = await verifyRs256Jwt(match[1], input.certsByKid, {
    audiences: [input.audience.audience],
    issuers: appUrl ? GOOGLE_OIDC_ISSUERS : [GOOGLE_CHAT_ISSUER],
    nowSeconds: input.nowSeconds,
    skewSeconds: GOOGLE_CHAT_TOKEN_SKEW_SECONDS,
  });
  if (!verified.ok) return { ok: false, status: 401, text: "unauthorized", reason: verified.reason };
  // An app-url token is a Google ID token: it must name Chat's own verified account (the
  // add-on service accounts with `appPrincipal` are not served here).
  if (appUrl && (verified.claims.email !== GOOGLE_CHAT_ISSUER || verified.claims.email_verified !== true)) {
    return { ok: false, status: 401, text: "unauthorized", reason: "wrong email" };
  }
  return null;
}

/** The body check after the token: the event and its dedupe key (null: answered `{}` unstored). */
export function checkGoogleChatBody(input: {
  contentType: string | null;
  body: string;
}): GoogleChatRefusal | { ok: true; event: GoogleChatEvent; updateId: string | null } {
  if (!/^application\/json\b/i.test(input.contentType ?? "")) {
    return { ok: false, status: 415, text: "Unsupported Media Type" };
  }
  const event = parseGoogleChatEvent(input.body);
  if (!event) return { ok: false, status: 400, text: "invalid payload" };
  return { ok: true, event, updateId: googleChatUpdateId(event) };
}
