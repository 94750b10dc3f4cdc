import { guardedFetch } from "../../../policy/guarded-fetch";
import type { OutboundPolicy } from "../../../policy/outbound-url";
import { BODY_TOO_LARGE, plainAnswer, servesPath, type WebhookAnswer, type WebhookHandler } from "../webhook";
import { CertificateCache, GOOGLE_CHAT_CERTS_URL, GOOGLE_OIDC_CERTS_URL } from "./certificates";
import { checkGoogleChatBody, checkGoogleChatToken, DEFAULT_GOOGLECHAT_WEBHOOK_PATH } from "./ingress";

/** A certificate fetch that takes longer is given up (the request is answered 503; Google retries). */
const CERTS_TIMEOUT_MS = 10_000;
/** Certificate URLs an isolate keeps maps for (Google's two, plus tenants' replaced ones). */
const MAX_CERT_URLS = 32;

/**
 * Certificate maps per URL, per isolate (shared by every tenant: Google's maps are public). The
 * fetch goes through the outbound guard (`certsUrl` is tenant config).
 */
const certificateCaches = new Map<string, CertificateCache>();

function certificatesOf(url: string, outbound: OutboundPolicy): CertificateCache {
  let cache = certificateCaches.get(url);
  if (!cache) {
    cache = new CertificateCache((certsUrl) =>
      guardedFetch(certsUrl, { signal: AbortSignal.timeout(CERTS_TIMEOUT_MS) }, outbound),
    );
    if (certificateCaches.size >= MAX_CERT_URLS)
      certificateCaches.delete(certificateCaches.keys().next().value as string);
    certificateCaches.set(url, cache);
  }
  return cache;
}

/** `{}` as OpenClaw answers every accepted event; `durable` only when a message was committed. */
function jsonAnswer(updates: WebhookAnswer["updates"]): WebhookAnswer {
  const durable: Record<string, string> = updates.length > 0 ? { "x-openclaw-delivery-accepted": "durable" } : {};
  return {
    response: new Response("{}", { status: 200, headers: { "content-type": "application/json", ...durable } }),
    updates,
  };
}

/**
 * The Chat app's HTTP endpoint (SPEC channels-2 §4.1): POST only (405); the Bearer token, an
 * RS256 JWT for the tenant's `audience`, checked before the body is read (401 `unauthorized`,
 * the reason only logged; 503 when Google's certificates cannot be fetched); then 415 / 400
 * `invalid payload`; a MESSAGE committed by its resource name before `200 {}` + durable, other
 * events `200 {}` unstored. Not served without an `audience`.
 */
export const googleChatWebhook: WebhookHandler = async (request, { config, nowMs, outbound }) => {
  const googlechat = config.channels?.googlechat;
  if (!googlechat?.audience || !servesPath(googlechat, DEFAULT_GOOGLECHAT_WEBHOOK_PATH, request.path)) return null;
  if (request.method !== "POST") return plainAnswer(405, "Method Not Allowed", { allow: "POST" });
  const audienceType = googlechat.audienceType ?? "project-number";
  const authorization = request.headers.get("authorization");
  const refuse = (status: number, text: string, reason?: string) => {
    request.discard();
    if (reason) console.warn(`googlechat webhook: ${text} (${reason})`);
    return plainAnswer(status, text);
  };
  if (!/^Bearer\s+\S+$/i.test(authorization ?? "")) return refuse(401, "unauthorized", "missing token");
  const certsUrl = googlechat.certsUrl ?? (audienceType === "app-url" ? GOOGLE_OIDC_CERTS_URL : GOOGLE_CHAT_CERTS_URL);
  let certsByKid: Record<string, string>;
  try {
    certsByKid = await certificatesOf(certsUrl, outbound).get(certsUrl, nowMs);
  } catch (error) {
    return refuse(503, "certificates unavailable", error instanceof Error ? error.message : String(error));
  }
  const refused = await checkGoogleChatToken({
    authorization,
    audience: { audienceType, audience: googlechat.audience },
    certsByKid,
    nowSeconds: Math.floor(nowMs / 1000),
  });
  if (refused) return refuse(refused.status, refused.text, refused.reason);
  if (request.announcesTooLarge()) return refuse(413, "payload too large");
  const body = await request.text();
  if (body === BODY_TOO_LARGE) return plainAnswer(413, "payload too large");
  const verdict = checkGoogleChatBody({ contentType: request.headers.get("content-type"), body });
  if (!verdict.ok) return plainAnswer(verdict.status, verdict.text);
  return jsonAnswer(verdict.updateId === null ? [] : [{ updateId: verdict.updateId, body }]);
};
