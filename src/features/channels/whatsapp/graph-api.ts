import type { DeliveryTarget } from "../../../model/delivery";
import { type BoundCredential, unboundCredential } from "../../../policy/bound-credential";
import { guardedFetch } from "../../../policy/guarded-fetch";
import type { OutboundPolicy } from "../../../policy/outbound-url";
import type { ChannelSender, PlatformRefusal, SendOutcome } from "../adapter";
import type { RateLimitRule } from "../rate-limit";
import { sendOnePart } from "../send-parts";
import { chunkText } from "../telegram/format";
import { markdownToWhatsapp, WHATSAPP_CHUNK_CHARS } from "./format";

/** Meta's Graph API root, with the version this service speaks; `channels.whatsapp.apiRoot` replaces it. */
export const WHATSAPP_API_ROOT = "https://graph.facebook.com/v23.0";
/** A Graph API call that takes longer is given up (the outbox retries a send). */
export const GRAPH_API_TIMEOUT_MS = 15_000;
/**
 * Meta's error for a free-form message outside the 24-hour customer service window (the user
 * has not written in the last 24 hours): only a template message may go then, so the send is
 * final, never retried.
 */
export const OUTSIDE_SERVICE_WINDOW_CODE = 131047;

/**
 * Meta's "too many requests" codes (in a `400` or `429`): 4 the app's call rate, 80007 the
 * business account's, 130429 the number's message throughput, 131056 the pair rate (one business
 * number to one user, about one message every 6 seconds, which is the wait when none is named).
 */
export const WHATSAPP_RATE_LIMIT_CODES = [4, 80007, 130429, 131056] as const;
const PAIR_RATE_LIMIT_CODE = 131056;
const PAIR_RATE_WAIT_SECONDS = 6;

/** WhatsApp's rate limit: HTTP 429 or one of Meta's codes; the wait is `Retry-After`, else the pair rate's. */
export const whatsappRateLimit: RateLimitRule = {
  limitedBody: (body) => (WHATSAPP_RATE_LIMIT_CODES as readonly number[]).includes(graphErrorCode(body) ?? -1),
  bodyWaitSeconds: (body) => (graphErrorCode(body) === PAIR_RATE_LIMIT_CODE ? PAIR_RATE_WAIT_SECONDS : undefined),
};

function graphErrorCode(body: unknown): number | undefined {
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  return typeof code === "number" ? code : undefined;
}

type GraphAnswer = {
  ok: boolean;
  status: number;
  body: { messages?: Array<{ id?: string }>; error?: GraphError };
  /** A refused call's `Retry-After` header. */
  retryAfter?: string | null;
};
type GraphError = { message?: string; code?: number; error_subcode?: number; type?: string };

/**
 * The Cloud API of one business phone number: `<apiRoot>/<phoneNumberId>/messages` with the
 * access token as bearer, every call through the outbound guard (apiRoot is tenant config).
 */
export class WhatsappCloudApi {
  /** The token with its store entry's hosts: a file download names it to guardedFetch. */
  readonly boundCredential: BoundCredential;
  private readonly accessToken: string;

  constructor(
    token: string | BoundCredential,
    private readonly phoneNumberId: string,
    private readonly apiRoot: string,
    private readonly outbound: OutboundPolicy,
    private readonly chunkChars = WHATSAPP_CHUNK_CHARS,
  ) {
    this.boundCredential = typeof token === "string" ? unboundCredential(token) : token;
    this.accessToken = this.boundCredential.value;
  }

  async call(body: Record<string, unknown>): Promise<GraphAnswer> {
    const url = `${this.apiRoot.replace(/\/+$/, "")}/${encodeURIComponent(this.phoneNumberId)}/messages`;
    try {
      const response = await guardedFetch(
        url,
        {
          method: "POST",
          signal: AbortSignal.timeout(GRAPH_API_TIMEOUT_MS),
          headers: { authorization: `Bearer ${this.accessToken}`, "content-type": "application/json" },
          body: JSON.stringify({ messaging_product: "whatsapp", ...body }),
        },
        this.outbound,
      );
      const answer = (await response.json().catch(() => ({}))) as GraphAnswer["body"];
      const ok = response.ok && !answer.error;
      return {
        ok,
        status: response.status,
        body: answer,
        ...(ok ? {} : { retryAfter: response.headers.get("retry-after") }),
      };
    } catch (error) {
      return { ok: false, status: 0, body: { error: { message: (error as Error).message } } };
    }
  }

  /** Every secret a call carries (redacted from errors). */
  get credentials(): readonly string[] {
    return [this.accessToken];
  }

  /**
   * Where an inbound file is downloaded: the Graph API answers its media id with a short-lived
   * URL, fetched with the same token. The token goes only to Meta's hosts or the apiRoot's own
   * origin (a fake, a proxy), never to another host a URL names.
   */
  async mediaLocation(mediaId: string): Promise<{ url: string; headers: Record<string, string> }> {
    const authorization = { authorization: `Bearer ${this.accessToken}` };
    const response = await guardedFetch(
      `${this.apiRoot.replace(/\/+$/, "")}/${encodeURIComponent(mediaId)}`,
      { headers: authorization, signal: AbortSignal.timeout(GRAPH_API_TIMEOUT_MS) },
      this.outbound,
    );
    const answer = (await response.json().catch(() => ({}))) as { url?: unknown };
    if (!response.ok || typeof answer.url !== "string") throw new Error(`whatsapp media answered ${response.status}`);
    const url = new URL(answer.url);
    const meta = url.protocol === "https:" && /(^|\.)(fbsbx\.com|facebook\.com|whatsapp\.net)$/.test(url.hostname);
    if (!meta && url.origin !== new URL(this.apiRoot).origin)
      throw new Error(`whatsapp media URL on an unexpected host: ${url.hostname}`);
    return { url: url.toString(), headers: authorization };
  }

  /** Marks an inbound message read (the two blue ticks), as OpenClaw's `sendReadReceipts`; best effort. */
  async markRead(messageId: string): Promise<void> {
    await this.call({ status: "read", message_id: messageId });
  }

  /** A text message to one user (E.164 digits), without link previews. */
  async sendText(to: string, text: string): Promise<GraphAnswer> {
    return this.call({ recipient_type: "individual", to, type: "text", text: { body: text, preview_url: false } });
  }

  /** A sender for the outbox: Markdown replies in chunks, each part sent once; a prepared text (pairing) as is. */
  sender(): ChannelSender {
    return {
      credentials: [this.accessToken],
      send: async (delivery, fromPart) => {
        const to = parseWhatsappTarget(delivery.target);
        if (!to) return { partsSent: fromPart, error: `not a WhatsApp target: ${delivery.target.to}`, final: true };
        const chunks =
          delivery.kind === "pairing"
            ? [delivery.message]
            : chunkText(markdownToWhatsapp(delivery.message), this.chunkChars);
        return this.sendParts(to, chunks, fromPart);
      },
    };
  }

  /** Sends chunk `fromPart` (the outbox paces the rest: ../send-parts.ts). */
  private sendParts(to: string, chunks: string[], fromPart: number): Promise<SendOutcome> {
    return sendOnePart(chunks, fromPart, async (text) => {
      const answer = await this.sendText(to, text);
      return answer.ok ? null : failure(answer);
    });
  }
}

/** A failed send's text and answer; final when Meta says the 24-hour window is closed (retrying cannot help). */
function failure(answer: GraphAnswer): { error: string; final?: true; refusal: PlatformRefusal } {
  const refusal = { status: answer.status, retryAfter: answer.retryAfter ?? null, body: answer.body };
  const error = answer.body.error;
  const detail = `${error?.code !== undefined ? ` (#${error.code})` : ""}${error?.message ? `: ${error.message}` : ""}`;
  if (error?.code === OUTSIDE_SERVICE_WINDOW_CODE) {
    return {
      error: `outside WhatsApp's 24-hour customer service window: the user has not written in the last 24 hours, only a template message may be sent${detail}`,
      final: true,
      refusal,
    };
  }
  return { error: `whatsapp answered ${answer.status}${detail}`, refusal };
}

/** `+15551234567`, `15551234567` or `whatsapp:+15551234567` → the digits the Graph API takes. */
export function parseWhatsappTarget(target: DeliveryTarget): string | null {
  const match = /^(?:whatsapp:)?\+?(\d{6,15})$/.exec(target.to.trim());
  return match ? match[1]! : null;
}

/** A WhatsApp id (the digits of a phone number) as OpenClaw writes a peer: E.164 with `+`. */
export function e164(waId: string): string {
  return `+${waId.replace(/^\+/, "")}`;
}
