import type { DeliveryTarget } from "../../../model/delivery";
import { type BoundCredential, unboundCredential } from "../../../policy/bound-credential";
import { guardedFetch } from "../../../policy/guarded-fetch";
import type { OutboundPolicy } from "../../../policy/outbound-url";
import { sha256Hex, uuidFrom } from "../../../util/encoding";
import type { PlatformRefusal, SendOutcome } from "../adapter";
import { nonBlank } from "./message-text";
import { type LineCall, type LineReplyToken, planLineCalls } from "./send-plan";

/** LINE's own Messaging API root; `channels.line.apiRoot` replaces it. */
export const LINE_API_ROOT = "https://api.line.me";
/** LINE's data API, where message contents are downloaded from. */
export const LINE_DATA_API_ROOT = "https://api-data.line.me";
/** A Messaging API call that takes longer is given up (the outbox retries a send). */
export const LINE_API_TIMEOUT_MS = 15_000;
/** How long the loading animation shows (LINE takes 5–60 s in steps of 5; OpenClaw sends 20). */
export const LINE_LOADING_SECONDS = 20;

export type LineAnswer = {
  ok: boolean;
  status: number;
  body: Record<string, unknown>;
  error?: string;
  /** A refused call's `Retry-After` header (a `429`'s). */
  retryAfter?: string | null;
};

/**
 * The LINE Messaging API of one channel: JSON over `Authorization: Bearer <channelAccessToken>`,
 * every call through the outbound guard (apiRoot is tenant config). No retries here: the outbox
 * retries deliveries, and each push of a delivery with an id carries an `X-Line-Retry-Key` derived
 * from that id and its first part, so a push repeated after a crash is refused by LINE (409), not shown twice.
 */
export class LineMessagingApi {
  /** The token with its store entry's hosts: a content download names it to guardedFetch. */
  readonly boundCredential: BoundCredential;
  private readonly token: string;

  constructor(
    token: string | BoundCredential,
    private readonly apiRoot: string,
    private readonly outbound: OutboundPolicy,
  ) {
    this.boundCredential = typeof token === "string" ? unboundCredential(token) : token;
    this.token = this.boundCredential.value;
  }

  async call(method: "GET" | "POST", path: string, body?: unknown, retryKey?: string): Promise<LineAnswer> {
    try {
      const response = await guardedFetch(
        `${this.apiRoot.replace(/\/+$/, "")}${path}`,
        {
          method,
          signal: AbortSignal.timeout(LINE_API_TIMEOUT_MS),
          headers: {
            authorization: `Bearer ${this.token}`,
            ...(body !== undefined ? { "content-type": "application/json" } : {}),
            ...(retryKey ? { "x-line-retry-key": retryKey } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        },
        this.outbound,
      );
      const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
      const error = response.ok ? undefined : typeof answer.message === "string" ? answer.message : "";
      return {
        ok: response.ok,
        status: response.status,
        body: answer,
        ...(error !== undefined ? { error, retryAfter: response.headers.get("retry-after") } : {}),
      };
    } catch (error) {
      return { ok: false, status: 0, body: {}, error: (error as Error).message };
    }
  }

  /** What every call carries: the channel access token, as the Bearer header. */
  get credentials(): readonly string[] {
    return [this.token];
  }

  /**
   * Where a message's content (an image, a file) is downloaded: LINE's data API
   * (api-data.line.me) for its own apiRoot, else the configured apiRoot (a fake, a proxy), with
   * the token as for every call.
   */
  contentLocation(messageId: string): { url: string; headers: Record<string, string> } {
    const root =
      this.apiRoot.replace(/\/+$/, "") === LINE_API_ROOT ? LINE_DATA_API_ROOT : this.apiRoot.replace(/\/+$/, "");
    return {
      url: `${root}/v2/bot/message/${encodeURIComponent(messageId)}/content`,
      headers: { authorization: `Bearer ${this.token}` },
    };
  }

  /** The loading animation in a 1:1 chat (best effort; LINE has none for groups). */
  async startLoading(userId: string): Promise<void> {
    if (!userId.startsWith("U")) return;
    await this.call("POST", "/v2/bot/chat/loading/start", { chatId: userId, loadingSeconds: LINE_LOADING_SECONDS });
  }

  /**
   * A user's display name (`displayName`) as the bot may read it where they wrote: their profile
   * (`GET /v2/bot/profile/<id>`, a friend's 1:1 chat), or the group's or room's member profile
   * (`/v2/bot/group/<id>/member/<uid>`, `/v2/bot/room/<id>/member/<uid>`); undefined when refused.
   */
  async memberName(userId: string, chat?: { kind: "group" | "room"; id: string }): Promise<string | undefined> {
    const user = encodeURIComponent(userId);
    const path = chat
      ? `/v2/bot/${chat.kind}/${encodeURIComponent(chat.id)}/member/${user}`
      : `/v2/bot/profile/${user}`;
    const answer = await this.call("GET", path);
    return answer.ok ? nonBlank(answer.body.displayName) : undefined;
  }

  /** A group's name (`GET /v2/bot/group/<id>/summary`'s `groupName`); rooms have none. */
  async groupName(groupId: string): Promise<string | undefined> {
    const answer = await this.call("GET", `/v2/bot/group/${encodeURIComponent(groupId)}/summary`);
    return answer.ok ? nonBlank(answer.body.groupName) : undefined;
  }

  /** Names the token without holding it (the name cache's key). */
  async tokenDigest(): Promise<string> {
    return (await sha256Hex(this.token)).slice(0, 16);
  }

  /**
   * Sends the call of `parts` that starts at `fromPart` (text messages, already flattened): the
   * reply token's (up to 5 messages) when nothing was sent yet, else a push of up to 5; the outbox
   * paces the next call. A refused or failed reply falls back to a push of the same messages at
   * once, so an expired token or a LINE error never loses the reply; a `429` is not pushed past
   * (the push would be refused too): the outbox waits, then tries again.
   * Returns the ids LINE gave the messages sent (`sentMessages[].id`): a quote of one is a mention.
   */
  async send(
    delivery: { id?: string; target: DeliveryTarget; parts: string[]; replyToken?: LineReplyToken },
    fromPart: number,
    nowMs = Date.now(),
  ): Promise<SendOutcome> {
    const to = parseLineTarget(delivery.target);
    if (!to) return { partsSent: fromPart, error: `not a LINE target: ${delivery.target.to}` };
    const [call] = planLineCalls({
      partCount: delivery.parts.length,
      fromPart,
      ...(delivery.replyToken ? { replyToken: delivery.replyToken } : {}),
      nowMs,
    });
    if (!call) return { partsSent: delivery.parts.length };
    const answer = await this.sendCall(call, to, delivery);
    if (!answer.ok && answer.status !== 409) return { partsSent: call.from, ...failure(answer) };
    const sentMessageIds = sentIds(answer);
    return {
      partsSent: call.to,
      ...(call.to < delivery.parts.length ? { moreParts: true } : {}),
      ...(sentMessageIds.length ? { sentMessageIds } : {}),
    };
  }

  /** One call of a delivery: its reply (falling back to a push unless rate-limited), or a push. */
  private async sendCall(
    call: LineCall,
    to: string,
    delivery: { id?: string; parts: string[]; replyToken?: LineReplyToken },
  ): Promise<LineAnswer> {
    const messages = delivery.parts.slice(call.from, call.to).map((text) => ({ type: "text", text }));
    if (call.kind === "reply") {
      const reply = await this.call("POST", "/v2/bot/message/reply", {
        replyToken: delivery.replyToken!.token,
        messages,
      });
      if (reply.ok || reply.status === 429) return reply;
    }
    // Without a delivery id there is no stable key, and a shared one could swallow another reply.
    const retryKey = delivery.id ? await uuidFrom(`line-push:${delivery.id}:${call.from}`) : undefined;
    // 409 (answered as sent by `send`): LINE already accepted a push with this retry key (a resend after a crash).
    return this.call("POST", "/v2/bot/message/push", { to, messages }, retryKey);
  }
}

/** The ids in a reply's or push's answer (`{ sentMessages: [{ id, quoteToken }] }`); none on a 409. */
function sentIds(answer: LineAnswer): string[] {
  const sent = answer.body.sentMessages;
  if (!Array.isArray(sent)) return [];
  return sent.flatMap((message: unknown) => {
    const id = (message as { id?: unknown } | null)?.id;
    return typeof id === "string" && id ? [id] : [];
  });
}

function failure(answer: LineAnswer): { error: string; refusal: PlatformRefusal } {
  return {
    error: `line answered ${answer.status}${answer.error ? `: ${answer.error}` : ""}`,
    refusal: { status: answer.status, retryAfter: answer.retryAfter ?? null, body: answer.body },
  };
}

/** A LINE delivery target: `line:<userId>`, `line:group:<id>`, `line:room:<id>`, or a bare id. */
export function parseLineTarget(target: DeliveryTarget): string | null {
  const match = /^(?:line:)?(?:(?:user|group|room):)?([UCR][A-Za-z0-9]{1,64})$/i.exec(target.to.trim());
  return match ? match[1]! : null;
}
