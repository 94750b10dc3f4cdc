import type { DeliveryTarget } from "../../../model/delivery";
import { type BoundCredential, unboundCredential } from "../../../policy/bound-credential";
import { guardedFetch } from "../../../policy/guarded-fetch";
import type { OutboundPolicy } from "../../../policy/outbound-url";
import { toHex } from "../../../util/encoding";
import { type ChannelAck, type ChannelSender, PAIRING_KIND, type PlatformRefusal, type SendOutcome } from "../adapter";
import { sendOnePart } from "../send-parts";
import { chunkText } from "../telegram/format";
import { markdownToSlackMrkdwn, SLACK_CHUNK_CHARS } from "./format";
import type { SlackBotIdentity } from "./routing";

/** Slack's own Web API root; `channels.slack.apiRoot` replaces it (the real gateway's SLACK_API_URL). */
export const SLACK_API_ROOT = "https://slack.com/api/";

/** A Web API call that takes longer is given up (the outbox retries a send; the 👀 is skipped). */
export const SLACK_API_TIMEOUT_MS = 15_000;

export type SlackAnswer = {
  ok: boolean;
  status: number;
  body: Record<string, unknown>;
  error?: string;
  /** A refused call's answer as it came (a `429`'s `Retry-After`), for the platform's rate-limit rule. */
  refusal?: PlatformRefusal;
};

/** The bot's identity as cached by the inbox, with the token it was learned for (a digest). */
export type CachedSlackIdentity = SlackBotIdentity & { tokenDigest: string };

/**
 * The Slack Web API of one app: `POST <apiRoot><method>`, form-encoded as @slack/web-api sends
 * it, the bot token as a Bearer header, every call through the outbound guard (apiRoot is
 * tenant config). No retries here: the outbox retries deliveries.
 */
export class SlackWebApi {
  /** The token with its store entry's hosts: every request that attaches it names it to guardedFetch. */
  private readonly credential: BoundCredential;
  private readonly token: string;

  constructor(
    token: string | BoundCredential,
    private readonly apiRoot: string,
    private readonly outbound: OutboundPolicy,
    private readonly chunkChars = SLACK_CHUNK_CHARS,
  ) {
    this.credential = typeof token === "string" ? unboundCredential(token) : token;
    this.token = this.credential.value;
  }

  async call(method: string, params: Record<string, string> = {}): Promise<SlackAnswer> {
    const url = `${this.apiRoot.replace(/\/*$/, "/")}${method}`;
    try {
      const response = await guardedFetch(
        url,
        {
          method: "POST",
          signal: AbortSignal.timeout(SLACK_API_TIMEOUT_MS),
          headers: {
            authorization: `Bearer ${this.token}`,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: new URLSearchParams(params).toString(),
        },
        this.outbound,
        [this.credential],
      );
      const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
      const ok = response.ok && body.ok === true;
      const error = typeof body.error === "string" ? body.error : ok ? undefined : `HTTP ${response.status}`;
      return {
        ok,
        status: response.status,
        body,
        ...(error ? { error } : {}),
        ...(ok ? {} : { refusal: { status: response.status, retryAfter: response.headers.get("retry-after"), body } }),
      };
    } catch (error) {
      return { ok: false, status: 0, body: {}, error: (error as Error).message };
    }
  }

  /**
   * Where a shared file is downloaded from (`files.info`'s `url_private_download`, else
   * `url_private`) and the bot token that reads it. The token goes only to Slack's own hosts
   * (https `*.slack.com`) or the configured apiRoot's origin (a proxy, the test peer): a file
   * URL elsewhere is refused, as the token would leak with it.
   */
  async fileDownload(fileId: string): Promise<{ url: string; headers: Record<string, string> }> {
    const answer = await this.call("files.info", { file: fileId });
    if (!answer.ok) throw new Error(`slack files.info answered ${answer.error ?? answer.status}`);
    const file = answer.body.file as { url_private_download?: unknown; url_private?: unknown } | undefined;
    const url = typeof file?.url_private_download === "string" ? file.url_private_download : file?.url_private;
    if (typeof url !== "string") throw new Error("slack files.info answered no url_private");
    if (!this.mayReceiveToken(url)) throw new Error("slack file URL is not on a Slack host");
    return { url, headers: { authorization: `Bearer ${this.token}` } };
  }

  private mayReceiveToken(url: string): boolean {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    if (parsed.origin === new URL(this.apiRoot).origin) return true;
    return parsed.protocol === "https:" && (parsed.hostname === "slack.com" || parsed.hostname.endsWith(".slack.com"));
  }

  /** A digest of the token, so a cached identity is dropped when the token changes. */
  async tokenDigest(): Promise<string> {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(this.token));
    return toHex(new Uint8Array(digest)).slice(0, 16);
  }

  /**
   * `auth.test`: the bot user the app posts as (mentions are `<@user_id>`); throws Slack's answer
   * (`slack answered 200: invalid_auth`) when refused.
   */
  async authTest(): Promise<CachedSlackIdentity> {
    const answer = await this.call("auth.test");
    const userId = answer.body.user_id;
    if (!answer.ok) throw new Error(failure(answer));
    if (typeof userId !== "string") throw new Error("slack auth.test answered no user_id");
    const botId = typeof answer.body.bot_id === "string" ? answer.body.bot_id : undefined;
    // The workspace's name and id name channel rows (`<team> #<channel>`, `space`).
    const team = typeof answer.body.team === "string" ? answer.body.team : undefined;
    const teamId = typeof answer.body.team_id === "string" ? answer.body.team_id : undefined;
    return {
      userId,
      ...(botId ? { botId } : {}),
      ...(team ? { team } : {}),
      ...(teamId ? { teamId } : {}),
      tokenDigest: await this.tokenDigest(),
    };
  }

  /** The 👀 reaction on a mention (best effort, as the real gateway; Slack has no typing for bots). */
  async acknowledge(ack: ChannelAck): Promise<void> {
    if (ack.reactToMessageId === undefined) return;
    await this.call("reactions.add", { channel: ack.chatId, timestamp: String(ack.reactToMessageId), name: "eyes" });
  }

  /** The token with its store entry's hosts, for a request made elsewhere (a file download). */
  get boundCredential(): BoundCredential {
    return this.credential;
  }

  /** What every call carries: the bot token, as the Bearer header. */
  get credentials(): readonly string[] {
    return [this.token];
  }

  /** A sender for the outbox: pairing codes as prepared, replies as mrkdwn in chunks, each part sent once. */
  sender(): ChannelSender {
    return {
      credentials: this.credentials,
      send: (delivery, fromPart) =>
        delivery.kind === PAIRING_KIND
          ? this.post(delivery.target, [delivery.message], fromPart)
          : delivery.blocks
            ? // A Block Kit message (the status card) is one post: its text is the fallback, sent as is.
              this.post(delivery.target, [delivery.message], fromPart, delivery.blocks)
            : this.post(
                delivery.target,
                chunkText(delivery.message, this.chunkChars).map(markdownToSlackMrkdwn),
                fromPart,
              ),
    };
  }

  /** Posts part `fromPart` of `parts` (the outbox paces the rest); stops at a failure and says how many are out. */
  private async post(
    target: DeliveryTarget,
    parts: string[],
    fromPart: number,
    blocks?: Record<string, unknown>[],
  ): Promise<SendOutcome> {
    const route = parseSlackTarget(target);
    if (!route) return { partsSent: fromPart, error: `not a Slack target: ${target.to}` };
    const channel = route.channel ?? (await this.openDirect(route.user!));
    if (typeof channel !== "string") return { partsSent: fromPart, error: channel.error };
    // One part per call: the outbox sends the next a pace later (../send-parts.ts).
    return sendOnePart(parts, fromPart, async (text) => {
      const answer = await this.call("chat.postMessage", {
        channel,
        text,
        ...(route.threadTs ? { thread_ts: route.threadTs } : {}),
        ...(blocks ? { blocks: JSON.stringify(blocks), mrkdwn: "false" } : {}),
        unfurl_links: "false",
      });
      return answer.ok ? null : { error: failure(answer), ...(answer.refusal ? { refusal: answer.refusal } : {}) };
    });
  }

  /** The DM channel with a user (`conversations.open`), for a `user:U…` target. */
  private async openDirect(user: string): Promise<string | { error: string }> {
    const answer = await this.call("conversations.open", { users: user });
    const id = (answer.body.channel as { id?: unknown } | undefined)?.id;
    return answer.ok && typeof id === "string" ? id : { error: failure(answer) };
  }
}

function failure(answer: SlackAnswer): string {
  return `slack answered ${answer.status}${answer.error ? `: ${answer.error}` : ""}`;
}

/**
 * A Slack delivery target: `user:U…` (a DM, opened with conversations.open), `channel:C…`, or a
 * bare conversation id (`C…`, `D…`, `G…`); an optional `slack:` prefix; the thread from `threadId`.
 */
export function parseSlackTarget(
  target: DeliveryTarget,
): { channel?: string; user?: string; threadTs?: string } | null {
  const match = /^(?:slack:)?(?:(user|channel):)?([A-Z0-9]+)$/i.exec(target.to.trim());
  if (!match) return null;
  const id = match[2]!.toUpperCase();
  const isUser = match[1] ? match[1].toLowerCase() === "user" : /^[UW]/.test(id);
  const threadTs = target.threadId !== undefined ? String(target.threadId) : undefined;
  return { ...(isUser ? { user: id } : { channel: id }), ...(threadTs ? { threadTs } : {}) };
}
