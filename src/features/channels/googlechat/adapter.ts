import { defaultAgentId } from "../../../policy/agent-config";
import { guardedFetch } from "../../../policy/guarded-fetch";
import type { OutboundPolicy } from "../../../policy/outbound-url";
import type { TenantConfig } from "../../../protocol/config";
import type { ChannelSender, InboundAdapter } from "../adapter";
import { channelCredential, type SecretResolver } from "../channel-registry";
import { CHAT_API_ROOT, ChatApi } from "./chat-api";
import { parseGoogleChatEvent } from "./event";
import { decideGoogleChat, googleChatPairingMessage } from "./routing";
import { googleChatSender, postTypingPlaceholder } from "./sender";
import { GOOGLE_TOKEN_URL, type ServiceAccountKey, ServiceAccountTokens } from "./service-account";

/** A Google API call that takes longer is given up (the outbox retries a send). */
export const GOOGLE_API_TIMEOUT_MS = 15_000;
/** Service accounts whose access tokens an isolate keeps (one per distinct key and token URL). */
const MAX_CACHED_ACCOUNTS = 64;

/**
 * Access tokens per isolate, keyed by the digest of the whole key file and the token URL: only
 * a config holding the same private key shares a token (a client_email alone would not do).
 */
const tokenCaches = new Map<string, ServiceAccountTokens>();

/** The tenant's Chat app: its API client and sender, when the channel is enabled with a usable service account. */
export type GoogleChatApp = { api: ChatApi; sender(): ChannelSender };

export async function googleChatAppOf(
  config: TenantConfig,
  resolve: SecretResolver,
  outbound: OutboundPolicy,
): Promise<GoogleChatApp | null> {
  const googlechat = config.channels?.googlechat;
  if (!googlechat || googlechat.enabled === false) return null;
  // The key signs assertions sent to the token endpoint: that is where a bound key may go.
  const keyText = await channelCredential(
    googlechat.serviceAccount,
    resolve,
    googlechat.tokenUrl ?? GOOGLE_TOKEN_URL,
    outbound,
  );
  const key = keyText ? serviceAccountKey(keyText) : null;
  if (!keyText || !key) return null;
  const guarded = (url: string, init: RequestInit) =>
    guardedFetch(url, { ...init, signal: AbortSignal.timeout(GOOGLE_API_TIMEOUT_MS) }, outbound);
  const tokenUrl = googlechat.tokenUrl ?? GOOGLE_TOKEN_URL;
  const cacheKey = await digest(`${tokenUrl}\n${keyText}`);
  let tokens = tokenCaches.get(cacheKey);
  if (!tokens) {
    tokens = new ServiceAccountTokens(key, tokenUrl, guarded);
    if (tokenCaches.size >= MAX_CACHED_ACCOUNTS) tokenCaches.delete(tokenCaches.keys().next().value as string);
    tokenCaches.set(cacheKey, tokens);
  }
  const accountTokens = tokens;
  let current = "";
  const api = new ChatApi(
    googlechat.apiRoot ?? CHAT_API_ROOT,
    async () => {
      current = await accountTokens.token(Date.now());
      return current;
    },
    guarded,
  );
  return {
    api,
    // The key file, its private key and the access token of the moment: what an echo could carry.
    sender: () =>
      googleChatSender(
        api,
        () => [keyText, key.private_key, ...(current ? [current] : [])],
        () => accountTokens.invalidate(),
      ),
  };
}

/** The fields the token exchange needs, from the key file's text; null when it has not got them. */
function serviceAccountKey(text: string): ServiceAccountKey | null {
  try {
    const parsed = JSON.parse(text) as Partial<ServiceAccountKey>;
    if (typeof parsed.client_email !== "string" || typeof parsed.private_key !== "string") return null;
    return {
      client_email: parsed.client_email,
      private_key: parsed.private_key,
      ...(typeof parsed.private_key_id === "string" ? { private_key_id: parsed.private_key_id } : {}),
    };
  } catch {
    return null;
  }
}

async function digest(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Google Chat's inbound side: one stored event decided by routing.ts; the typing placeholder as the acknowledgement. */
export function googleChatInbound(ports: { app(config: TenantConfig): Promise<GoogleChatApp | null> }): InboundAdapter {
  return {
    async decide({ body, config, approved }) {
      const googlechat = config.channels?.googlechat;
      if (!googlechat || !(await ports.app(config))) return null;
      const event = parseGoogleChatEvent(body);
      if (!event) return { action: "ignore", reason: "not a Google Chat event" };
      return decideGoogleChat({ event, access: googlechat, config, agentId: defaultAgentId(config), approved });
    },
    async acknowledge(config, ack) {
      if (typeof ack.reactToMessageId !== "string") return;
      const app = await ports.app(config);
      // Best effort: without its placeholder the reply is created instead (sender.ts).
      await (app ? postTypingPlaceholder(app.api, ack.chatId, ack.reactToMessageId) : undefined)?.catch(() => {});
    },
    pairingMessage: googleChatPairingMessage,
  };
}
