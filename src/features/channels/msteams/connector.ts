import type { DeliveryTarget } from "../../../model/delivery";
import { guardedFetch } from "../../../policy/guarded-fetch";
import type { OutboundPolicy } from "../../../policy/outbound-url";
import { type ChannelSender, PAIRING_KIND, type PlatformRefusal, type SendOutcome } from "../adapter";
import { sendOnePart } from "../send-parts";
import { chunkText } from "../telegram/format";
import { MSTEAMS, MSTEAMS_CHUNK_CHARS } from "./activity";
import { checkServiceUrl } from "./service-url";

/**
 * The Bot Connector as the bot calls it: an app-only token by client credentials (cached until
 * shortly before it expires), then `POST <serviceUrl>/v3/conversations/<id>/activities` per
 * part, Markdown as is (Teams renders its Markdown subset from `textFormat: "markdown"`), into
 * a channel thread as `<id>;messageid=<root>`. The serviceUrl is the conversation's, remembered
 * from its last inbound activity; it passes the Bot Connector rule and the outbound guard
 * before the token goes anywhere.
 */

export const BOT_FRAMEWORK_SCOPE = "https://api.botframework.com/.default";
/** A token is renewed this long before its expiry. */
export const TOKEN_RENEW_MARGIN_MS = 5 * 60 * 1000;

export type MsTeamsCredentials = {
  appId: string;
  appPassword: string;
  /** The bot's Azure tenant (single-tenant bots); `botframework.com` for multi-tenant ones. */
  tenantId?: string;
  tokenUrl?: string;
  apiRoot?: string;
};

/** Where each conversation's Bot Connector is (its last activity's serviceUrl). */
export type ConversationReferences = { serviceUrl(conversationId: string): Promise<string | null> };

type CachedToken = { token: string; expiresAtMs: number };
const tokens = new Map<string, CachedToken>();

export function defaultTokenUrl(tenantId: string | undefined): string {
  return `https://login.microsoftonline.com/${encodeURIComponent(tenantId ?? "botframework.com")}/oauth2/v2.0/token`;
}

export class MsTeamsConnector {
  constructor(
    private readonly credentials: MsTeamsCredentials,
    private readonly references: ConversationReferences,
    private readonly policy: OutboundPolicy,
    private readonly chunkChars = MSTEAMS_CHUNK_CHARS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A sender for the outbox: pairing codes and replies in parts, each part sent once. Its
   * credentials are the app password and the access token in use (a connector or proxy may echo
   * the Bearer), read when the outbox redacts an error.
   */
  sender(): ChannelSender {
    const key = () => this.tokenKey();
    const password = this.credentials.appPassword;
    return {
      get credentials() {
        const token = tokens.get(key())?.token;
        return token ? [password, token] : [password];
      },
      send: (delivery, fromPart) =>
        this.post(
          delivery.target,
          delivery.kind === PAIRING_KIND ? [delivery.message] : chunkText(delivery.message, this.chunkChars),
          fromPart,
        ),
    };
  }

  /** The typing indicator in a conversation (best effort, before a turn's run). */
  async typing(conversationId: string): Promise<void> {
    const url = await this.activitiesUrl(conversationId);
    if (typeof url !== "string") return;
    await this.call(url, { type: "typing" });
  }

  private async post(target: DeliveryTarget, parts: string[], fromPart: number): Promise<SendOutcome> {
    const conversationId = conversationIdOf(target.to);
    if (!conversationId) return { partsSent: fromPart, error: `not a Teams conversation: ${target.to}` };
    const root = target.threadId !== undefined ? String(target.threadId) : undefined;
    const url = await this.activitiesUrl(conversationId, root);
    if (typeof url !== "string") return { partsSent: fromPart, error: url.error };
    // One activity per call: the outbox sends the next a pace later (../send-parts.ts).
    return sendOnePart(parts, fromPart, (text) =>
      this.call(url, { type: "message", text, textFormat: "markdown", ...(root ? { replyToId: root } : {}) }),
    );
  }

  private async activitiesUrl(conversationId: string, threadRoot?: string): Promise<string | { error: string }> {
    const serviceUrl = await this.references.serviceUrl(conversationId);
    if (!serviceUrl) return { error: `no serviceUrl known for conversation ${conversationId}` };
    const verdict = checkServiceUrl(serviceUrl, this.credentials.apiRoot);
    if (!verdict.ok) return { error: verdict.reason };
    const conversation = threadRoot ? `${conversationId};messageid=${threadRoot}` : conversationId;
    const base = verdict.url.href.replace(/\/+$/, "");
    return `${base}/v3/conversations/${encodeURIComponent(conversation)}/activities`;
  }

  /** One POST of an activity; the error text (and the refused answer), or null when the Bot Connector took it. */
  private async call(
    url: string,
    activity: Record<string, unknown>,
  ): Promise<{ error: string; refusal?: PlatformRefusal } | null> {
    try {
      const response = await guardedFetch(
        url,
        {
          method: "POST",
          headers: { authorization: `Bearer ${await this.token()}`, "content-type": "application/json" },
          body: JSON.stringify(activity),
        },
        this.policy,
      );
      if (response.ok) return null;
      if (response.status === 401) tokens.delete(this.tokenKey());
      const text = await response.text();
      const refusal = { status: response.status, retryAfter: response.headers.get("retry-after"), body: text };
      // `msteams answered <status>`: the form channels.status reads an auth failure from (send-health.ts).
      return { error: `${MSTEAMS} answered ${response.status}: Bot Connector: ${text.slice(0, 300)}`, refusal };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }

  private tokenKey(): string {
    return `${this.tokenUrl()}\n${this.credentials.appId}\n${this.credentials.appPassword}`;
  }

  private tokenUrl(): string {
    return this.credentials.tokenUrl ?? defaultTokenUrl(this.credentials.tenantId);
  }

  /** The app-only token (client credentials), cached per app and secret until shortly before expiry. */
  private async token(): Promise<string> {
    const key = this.tokenKey();
    const cached = tokens.get(key);
    if (cached && cached.expiresAtMs - TOKEN_RENEW_MARGIN_MS > this.now()) return cached.token;
    const body = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: this.credentials.appId,
      client_secret: this.credentials.appPassword,
      scope: BOT_FRAMEWORK_SCOPE,
    });
    const response = await guardedFetch(
      this.tokenUrl(),
      { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body },
      this.policy,
    );
    if (!response.ok) {
      const refusal = (await response.text()).slice(0, 300);
      // A 400/401 here is the app id or password refused: an auth failure in channels.status.
      const status = response.status === 400 ? 401 : response.status;
      throw new Error(`${MSTEAMS} answered ${status}: token endpoint: ${refusal}`);
    }
    const answer = (await response.json()) as { access_token?: unknown; expires_in?: unknown };
    if (typeof answer.access_token !== "string") throw new Error("token endpoint gave no access_token");
    const lifetimeMs = (typeof answer.expires_in === "number" ? answer.expires_in : 3600) * 1000;
    tokens.set(key, { token: answer.access_token, expiresAtMs: this.now() + lifetimeMs });
    return answer.access_token;
  }
}

/**
 * The conversation a target names: `msteams:conversation:<id>` (a session's route),
 * `conversation:<id>` (OpenClaw's target form, as hooks and announces name it) or the id itself
 * (`19:…`, `a:…`); null for another form (`user:<id>` needs a conversation first: not built).
 */
export function conversationIdOf(to: string): string | null {
  const id = to.replace(new RegExp(`^${MSTEAMS}:`), "").replace(/^conversation:/, "");
  return /^[0-9a-z]+:\S/i.test(id) && !/^user:/i.test(id) ? id : null;
}
