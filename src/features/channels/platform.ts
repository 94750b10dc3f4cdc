import type { OutboundPolicy } from "../../policy/outbound-url";
import type { ChannelConfigSpec } from "../../protocol/channels";
import type { TenantConfig } from "../../protocol/config";
import type { ChannelSender, InboundAdapter } from "./adapter";
import type { InboundHost, SecretResolver } from "./channel-registry";
import type { ConversationReferences } from "./conversation-reference-store";
import type { PlatformSetup } from "./platform-setup";
import type { RateLimitRule } from "./rate-limit";
import type { WebhookHandler } from "./webhook";

/**
 * How a platform's webhook tells a genuine request from a forged one, and when: `header` and
 * `jwt` are checked before the body is read (Telegram's secret header; Teams' / Google Chat's
 * bearer token); `raw-body-hmac` needs the raw body first, read under the size limit (Slack's
 * v0 signature, LINE's X-Line-Signature, WhatsApp's X-Hub-Signature-256).
 */
export type IngressVerification = "header" | "jwt" | "raw-body-hmac";

/** A platform's inbound webhook: where it listens, how a request is checked, what makes an update unique. */
export type PlatformIngress = {
  /** The default POST path under the tenant's base URL (the config's `webhookPath` replaces it). */
  defaultPath: string;
  /** A GET the platform sends to verify the URL (WhatsApp's `hub.challenge`), when it has one. */
  verificationGet?: { defaultPath: string };
  verification: IngressVerification;
  /** What identifies one update across redeliveries (`update_id`, `event_id`, …): the dedupe key and run id derive from it. */
  updateId: string;
  /** Verifies a request at the platform's path and names the updates it carries (src/features/channels/webhook.ts). */
  webhook: WebhookHandler;
};

/**
 * A chat platform: everything the service needs to serve it, so adding a platform is one folder
 * (`src/features/channels/<name>/platform.ts` + its config half in src/protocol/channels.ts) and one
 * line in src/features/channels/platforms.ts. Every per-platform list is derived from PLATFORMS.
 */
export type ChatPlatform = {
  name: string;
  /** The config half (schema, secret keys and store names, outbound URL keys, hook channel). */
  config: ChannelConfigSpec;
  /** The name the admin answers show ("Telegram"). */
  label: string;
  /** The key naming the sender in pairing requests (`telegramUserId`). */
  senderLabel: string;
  /** How updates arrive (`webhook`, `http`), as channels.status reports it. */
  mode: string;
  /** Whether unknown DM senders can be paired (dmPolicy "pairing"). */
  pairing: boolean;
  ingress: PlatformIngress;
  /** What the Control UI's Channels › Set up asks (OpenClaw's `wizard.*`); absent: its secrets, then the URL to paste. */
  setup?: PlatformSetup;
  /**
   * How the platform says "too many requests" and how long to wait (rate-limit.ts): every send's
   * refusal is read by it before the outbox sees the outcome (`channelSenderOf`).
   */
  rateLimit: RateLimitRule;
  /** The inbound adapter the inbox drives. */
  inbound(host: InboundHost): InboundAdapter;
  /**
   * Who delivers replies for this tenant; null: the channel is not enabled or has no credentials.
   * `conversations`: where the platform reaches a conversation (Teams' serviceUrl), when it needs it.
   */
  sender(
    config: TenantConfig,
    resolve: SecretResolver,
    outbound: OutboundPolicy,
    conversations?: ConversationReferences,
  ): Promise<ChannelSender | null>;
};
