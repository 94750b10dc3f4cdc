import type { DeliveryTarget } from "../../../model/delivery";
import { type BoundCredential, unboundCredential } from "../../../policy/bound-credential";
import { guardedFetch } from "../../../policy/guarded-fetch";
import type { OutboundPolicy } from "../../../policy/outbound-url";
import {
  type ChannelAck,
  type ChannelSender,
  COMMANDS_PAGE_KIND,
  PAIRING_KIND,
  type PlatformRefusal,
  type SendOutcome,
} from "../adapter";
import { MEDIA_WARNING_KIND } from "../inbound-media";
import type { RateLimitRule } from "../rate-limit";
import { sendOnePart } from "../send-parts";
import { chunkText, htmlToPlainText, markdownToTelegramHtml, TELEGRAM_CHUNK_CHARS } from "./format";
import { type BotIdentity, GENERAL_TOPIC_ID } from "./routing";

/** Telegram's own API root; `channels.telegram.apiRoot` replaces it (tests, proxies). */
export const TELEGRAM_API_ROOT = "https://api.telegram.org";

/** The updates the bot asks Telegram for (what this service reads). */
export const ALLOWED_UPDATES = ["message", "edited_message"] as const;

/** A Bot API call that takes longer is given up (the outbox retries a send; an acknowledgement is skipped). */
export const BOT_API_TIMEOUT_MS = 15_000;

export type BotApiAnswer = {
  ok: boolean;
  status: number;
  result?: unknown;
  description?: string;
  /** A refused call's answer as it came, for the platform's rate-limit rule (a `429`'s `parameters.retry_after`). */
  refusal?: PlatformRefusal;
};

/**
 * The Telegram Bot API of one bot: `<apiRoot>/bot<token>/<method>`, every call through the
 * outbound guard (apiRoot is tenant config). No retries here: the outbox retries deliveries.
 */
export class TelegramBotApi {
  /** The token with its store entry's hosts: every request that attaches it names it to guardedFetch. */
  private readonly credential: BoundCredential;
  private readonly token: string;

  constructor(
    token: string | BoundCredential,
    private readonly apiRoot: string,
    private readonly outbound: OutboundPolicy,
    private readonly chunkChars = TELEGRAM_CHUNK_CHARS,
  ) {
    this.credential = typeof token === "string" ? unboundCredential(token) : token;
    this.token = this.credential.value;
  }

  /** The bot's user id (the token's numeric prefix). */
  get botId(): number {
    return Number(this.token.split(":")[0]);
  }

  async call(method: string, body?: Record<string, unknown>): Promise<BotApiAnswer> {
    const url = `${this.apiRoot.replace(/\/+$/, "")}/bot${this.token}/${method}`;
    try {
      const response = await guardedFetch(
        url,
        {
          method: "POST",
          signal: AbortSignal.timeout(BOT_API_TIMEOUT_MS),
          ...(body ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) } : {}),
        },
        this.outbound,
        [this.credential],
      );
      const answer = (await response.json().catch(() => ({}))) as {
        ok?: boolean;
        result?: unknown;
        description?: string;
        parameters?: { retry_after?: unknown };
      };
      const ok = response.ok && answer.ok === true;
      return {
        ok,
        status: response.status,
        result: answer.result,
        ...(answer.description ? { description: answer.description } : {}),
        ...(ok
          ? {}
          : { refusal: { status: response.status, retryAfter: response.headers.get("retry-after"), body: answer } }),
      };
    } catch (error) {
      return { ok: false, status: 0, description: (error as Error).message };
    }
  }

  /** The bot's identity; throws Telegram's answer (`telegram answered 401: Unauthorized`) when refused. */
  async getMe(): Promise<BotIdentity> {
    const answer = await this.call("getMe");
    const me = answer.result as { id?: number; username?: string } | undefined;
    if (answer.ok && typeof me?.id === "number") return { id: me.id, username: me.username ?? "" };
    throw new Error(answer.ok ? "telegram getMe answered no bot id" : failure(answer));
  }

  /** Where a file is downloaded from (`getFile`, then `<apiRoot>/file/bot<token>/<file_path>`); throws Telegram's refusal. */
  async fileUrl(fileId: string): Promise<string> {
    const answer = await this.call("getFile", { file_id: fileId });
    const path = (answer.result as { file_path?: unknown } | undefined)?.file_path;
    if (!answer.ok || typeof path !== "string")
      throw new Error(answer.ok ? "telegram getFile answered no file_path" : failure(answer));
    return `${this.apiRoot.replace(/\/+$/, "")}/file/bot${this.token}/${path}`;
  }

  /** Typing and the 👀 reaction before a turn (best effort, as the real gateway). */
  async acknowledge(ack: ChannelAck): Promise<void> {
    const chatId = Number(ack.chatId);
    if (ack.callbackQueryId !== undefined)
      await this.call("answerCallbackQuery", { callback_query_id: ack.callbackQueryId });
    if (ack.typing !== false) await this.typing(chatId, ack.typingThreadId);
    if (ack.reactToMessageId !== undefined) {
      await this.call("setMessageReaction", {
        chat_id: chatId,
        message_id: ack.reactToMessageId,
        reaction: [{ type: "emoji", emoji: "👀" }],
      });
    }
  }

  /** `sendChatAction typing` (`chat_id` a number, as recorded), in a topic when it has one. */
  async typing(chatId: number, threadId: number | undefined): Promise<BotApiAnswer> {
    return this.call("sendChatAction", {
      chat_id: chatId,
      action: "typing",
      ...(threadId !== undefined ? { message_thread_id: threadId } : {}),
    });
  }

  /** A prepared HTML message (the pairing code): `chat_id` as a number, as recorded. */
  async sendHtml(chatId: string, html: string): Promise<SendOutcome> {
    const answer = await this.call("sendMessage", { chat_id: Number(chatId), text: html, parse_mode: "HTML" });
    return answer.ok ? { partsSent: 1 } : { partsSent: 0, error: failure(answer), ...refusalOf(answer) };
  }

  /** The token with its store entry's hosts, for a request made elsewhere (a file download). */
  get boundCredential(): BoundCredential {
    return this.credential;
  }

  /**
   * What every call carries: the token, in the URL path (`/bot<token>/…`), and its secret half
   * alone (`<bot id>:<secret>`; the bot id is public, a server may print the rest).
   */
  get credentials(): readonly string[] {
    const secret = this.token.slice(this.token.indexOf(":") + 1);
    return secret && secret !== this.token ? [this.token, secret] : [this.token];
  }

  /** A sender for the outbox: Markdown replies in chunks, each part sent once. */
  sender(): ChannelSender {
    return {
      credentials: this.credentials,
      send: async (delivery, fromPart) => {
        if (delivery.kind === MEDIA_WARNING_KIND) return this.sendWarning(delivery.target, delivery.message);
        if (delivery.kind === COMMANDS_PAGE_KIND)
          return this.editText(delivery.target, delivery.message, delivery.blocks);
        if (delivery.kind !== PAIRING_KIND)
          return this.sendReply(delivery.target, delivery.message, fromPart, replyMarkup(delivery.blocks));
        const route = parseTelegramTarget(delivery.target);
        if (!route) return { partsSent: 0, error: `not a Telegram target: ${delivery.target.to}` };
        return this.sendHtml(route.chatId, delivery.message);
      },
    };
  }

  /** A warning about a message, as OpenClaw sends it: plain text, a reply to that message (it may be gone). */
  async sendWarning(target: DeliveryTarget, text: string): Promise<SendOutcome> {
    const route = parseTelegramTarget(target);
    if (!route) return { partsSent: 0, error: `not a Telegram target: ${target.to}` };
    const answer = await this.call("sendMessage", {
      chat_id: Number(route.chatId),
      text,
      ...(route.threadId !== undefined && route.threadId !== GENERAL_TOPIC_ID
        ? { message_thread_id: route.threadId }
        : {}),
      ...(target.replyToMessageId !== undefined
        ? { reply_parameters: { message_id: target.replyToMessageId, allow_sending_without_reply: true } }
        : {}),
    });
    return answer.ok ? { partsSent: 1 } : { partsSent: 0, error: failure(answer), ...refusalOf(answer) };
  }

  /**
   * Rewrites a message's text (and its keyboard: `blocks`' `reply_markup`) as OpenClaw edits a
   * `/commands` page: `chat_id` a number, plain text (no `parse_mode`), recorded. Telegram's
   * `message is not modified` (the page already shown: a second press) is a success, as in OpenClaw.
   */
  async editText(target: DeliveryTarget, text: string, blocks?: Record<string, unknown>[]): Promise<SendOutcome> {
    const route = parseTelegramTarget(target);
    if (!route || target.editMessageId === undefined)
      return { partsSent: 0, error: `not a Telegram message to edit: ${target.to}`, final: true };
    const markup = replyMarkup(blocks);
    const answer = await this.call("editMessageText", {
      chat_id: Number(route.chatId),
      message_id: target.editMessageId,
      text,
      ...(markup ? { reply_markup: markup } : {}),
    });
    if (answer.ok || /message is not modified/i.test(answer.description ?? "")) return { partsSent: 1 };
    return { partsSent: 0, error: failure(answer), ...refusalOf(answer) };
  }

  /**
   * Sends the chunk `fromPart` of a reply (the outbox paces the rest); stops at a failure and
   * says how many parts are out. A chunk Telegram cannot parse as HTML goes again at once as
   * plain text, without `parse_mode`. `markup` (a `/commands` page's keyboard) goes with the last chunk.
   */
  async sendReply(
    target: DeliveryTarget,
    markdown: string,
    fromPart: number,
    markup?: Record<string, unknown>,
  ): Promise<SendOutcome> {
    const route = parseTelegramTarget(target);
    if (!route) return { partsSent: fromPart, error: `not a Telegram target: ${target.to}` };
    const chunks = chunkText(markdown, this.chunkChars);
    // One part per call: the outbox sends the next a pace later (../send-parts.ts).
    return sendOnePart(chunks, fromPart, async (chunk, part) => {
      const html = markdownToTelegramHtml(chunk);
      const base = {
        chat_id: route.chatId,
        ...(route.threadId !== undefined && route.threadId !== GENERAL_TOPIC_ID
          ? { message_thread_id: route.threadId }
          : {}),
        ...(markup && part === chunks.length - 1 ? { reply_markup: markup } : {}),
      };
      let answer = await this.call("sendMessage", { ...base, text: html, parse_mode: "HTML" });
      if (!answer.ok && answer.status === 400 && /can't parse entities/i.test(answer.description ?? "")) {
        answer = await this.call("sendMessage", { ...base, text: htmlToPlainText(html) });
      }
      return answer.ok ? null : { error: failure(answer), ...refusalOf(answer) };
    });
  }
}

/** Telegram's `reply_markup` a delivery carries as its one block (a `/commands` page's inline keyboard). */
function replyMarkup(blocks: Record<string, unknown>[] | undefined): Record<string, unknown> | undefined {
  const markup = blocks?.length === 1 ? blocks[0] : undefined;
  return markup && Array.isArray(markup.inline_keyboard) ? markup : undefined;
}

/** A refused call's answer, for the rate-limit rule (telegramRateLimit) to read. */
function refusalOf(answer: BotApiAnswer): { refusal?: PlatformRefusal } {
  return answer.refusal ? { refusal: answer.refusal } : {};
}

/** Telegram's "too many requests": a `429` whose body names the wait, `parameters.retry_after` (seconds). */
export const telegramRateLimit: RateLimitRule = {
  bodyWaitSeconds: (body) => {
    const seconds = (body as { parameters?: { retry_after?: unknown } } | null)?.parameters?.retry_after;
    return typeof seconds === "number" ? seconds : undefined;
  },
};

function failure(answer: BotApiAnswer): string {
  return `telegram answered ${answer.status}${answer.description ? `: ${answer.description}` : ""}`;
}

/** `telegram:<chatId>[:topic:<n>]` (+ `threadId`) → the chat id as text (as recorded) and the topic. */
export function parseTelegramTarget(target: DeliveryTarget): { chatId: string; threadId?: number } | null {
  const match = /^(?:telegram:)?(-?\d+)(?::topic:(\d+))?$/.exec(target.to);
  if (!match) return null;
  const thread = target.threadId !== undefined ? Number(target.threadId) : match[2] ? Number(match[2]) : undefined;
  return { chatId: match[1]!, ...(thread !== undefined && Number.isFinite(thread) ? { threadId: thread } : {}) };
}
