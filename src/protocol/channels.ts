import { z } from "zod";
import { storeSecretRefSchema } from "./secrets";

/**
 * `channels.*` of a tenant's config, with OpenClaw's key names (openclaw 2026.9.6,
 * `channels.telegram`), so the block of a pasted `openclaw.json` is accepted. Keys that only
 * steer the real gateway's own listener or features not built here (`webhookHost`,
 * `webhookPort`, `replyToMode`, …) are accepted and have no effect (docs/channels.md; Telegram's
 * `streaming` only turns the progress draft off when it is not `"progress"`); unknown keys
 * holding credentials are refused.
 */

/** A token or secret: the value itself (moved into the secret store when written) or a store SecretRef. */
export const channelSecretSchema = z.union([z.string().min(1).max(4096), storeSecretRefSchema]);
export type ChannelSecret = z.infer<typeof channelSecretSchema>;

const allowEntry = z.union([z.string().min(1).max(256), z.number()]);
const policyGroupSchema = z.looseObject({
  requireMention: z.boolean().optional(),
  enabled: z.boolean().optional(),
  allowFrom: z.array(allowEntry).max(1000).optional(),
});

export const DM_POLICIES = ["pairing", "allowlist", "open", "disabled"] as const;
export type DmPolicy = (typeof DM_POLICIES)[number];

/** Keys whose values are credentials: only the known ones (stored as SecretRefs) are accepted. */
const CREDENTIAL_KEY = /(token|secret|password|apikey|credential)s?$/i;

/**
 * A pasted block may carry keys this service ignores; one that holds a credential would be
 * stored as written and returned by config reads, so it is refused, naming its path.
 */
function refuseUnknownCredentials(known: ReadonlySet<string>) {
  return (value: Record<string, unknown>, ctx: z.RefinementCtx) => {
    const walk = (node: unknown, path: (string | number)[]) => {
      if (node === null || typeof node !== "object") return;
      for (const [key, child] of Object.entries(node as Record<string, unknown>)) {
        if (path.length === 0 && known.has(key)) continue;
        if (CREDENTIAL_KEY.test(key) && child !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: [...path, key],
            message: `not supported here (only ${[...known].join(" and ")} are read, and never returned)`,
          });
        } else walk(child, [...path, key]);
      }
    };
    walk(value, []);
  };
}

export const telegramConfigSchema = z
  .looseObject({
    enabled: z.boolean().optional(),
    botToken: channelSecretSchema.optional(),
    /** Replaces https://api.telegram.org for every Bot API call (checked like every outbound URL). */
    apiRoot: z.url().optional(),
    webhookSecret: channelSecretSchema.optional(),
    /** Path under the tenant's base URL (default `/telegram-webhook`). */
    webhookPath: z
      .string()
      .regex(/^\/[A-Za-z0-9._~\-/]{0,127}$/, "must be a path like /telegram-webhook")
      .optional(),
    webhookUrl: z.url().optional(),
    dmPolicy: z.enum(DM_POLICIES).optional(),
    allowFrom: z.array(allowEntry).max(1000).optional(),
    groupPolicy: z.enum(["open", "allowlist", "disabled"]).optional(),
    groupAllowFrom: z.array(allowEntry).max(1000).optional(),
    groups: z.record(z.string().min(1).max(64), policyGroupSchema).optional(),
    /** Characters per sendMessage (OpenClaw's default 4000, Telegram's limit 4096). */
    textChunkLimit: z.int().min(1).max(4096).optional(),
    /** OpenClaw's inbound file cap in MB: lowers the tenant's `mediaBytesPerFile`, never raises it. */
    mediaMaxMb: z.number().positive().max(2000).optional(),
  })
  .superRefine(refuseUnknownCredentials(new Set(["botToken", "webhookSecret"])));
export type TelegramConfig = z.infer<typeof telegramConfigSchema>;

/** A Slack channel's entry under `channels.slack.channels.<id>` (OpenClaw's SlackChannelConfig). */
const slackChannelSchema = z.looseObject({
  requireMention: z.boolean().optional(),
  enabled: z.boolean().optional(),
  /** Users who may invoke the bot in this channel. */
  users: z.array(allowEntry).max(1000).optional(),
});

/**
 * `channels.slack` in HTTP Request URL mode (OpenClaw's keys; Socket Mode needs a process
 * per bot and is not served here). `apiRoot` is this service's key for what the real
 * gateway only takes from the `SLACK_API_URL` environment variable.
 */
export const slackConfigSchema = z
  .looseObject({
    enabled: z.boolean().optional(),
    mode: z.literal("http", { error: 'only mode "http" (Events API Request URL) is served here' }).optional(),
    botToken: channelSecretSchema.optional(),
    signingSecret: channelSecretSchema.optional(),
    /** Replaces https://slack.com/api/ for every Web API call (checked like every outbound URL). */
    apiRoot: z.url().optional(),
    /** Path under the tenant's base URL (default `/slack/events`). */
    webhookPath: z
      .string()
      .regex(/^\/[A-Za-z0-9._~\-/]{0,127}$/, "must be a path like /slack/events")
      .optional(),
    dmPolicy: z.enum(DM_POLICIES).optional(),
    allowFrom: z.array(allowEntry).max(1000).optional(),
    groupPolicy: z.enum(["open", "allowlist", "disabled"]).optional(),
    /** The default of every channel's requireMention (OpenClaw: true). */
    requireMention: z.boolean().optional(),
    channels: z.record(z.string().min(1).max(64), slackChannelSchema).optional(),
    /** Characters per chat.postMessage (OpenClaw's default 8000). */
    textChunkLimit: z.int().min(1).max(40_000).optional(),
  })
  .superRefine(refuseUnknownCredentials(new Set(["botToken", "signingSecret"])));
export type SlackConfig = z.infer<typeof slackConfigSchema>;

/**
 * The WhatsApp Cloud API (Meta's official webhook API; OpenClaw's own WhatsApp channel speaks
 * WhatsApp Web instead): OpenClaw's `dmPolicy` / `allowFrom` (E.164 numbers), and the Cloud
 * API's own keys.
 */
export const whatsappConfigSchema = z
  .looseObject({
    enabled: z.boolean().optional(),
    mode: z.literal("cloud").optional(),
    /** The business phone number's id (Graph API `/<phoneNumberId>/messages`). */
    phoneNumberId: z
      .string()
      .regex(/^\d{1,32}$/, "must be the phone number id (digits)")
      .optional(),
    accessToken: channelSecretSchema.optional(),
    /** The Meta app's secret: X-Hub-Signature-256 of every webhook POST. */
    appSecret: channelSecretSchema.optional(),
    /** The token Meta's subscription check (`hub.verify_token`) must carry. */
    verifyToken: channelSecretSchema.optional(),
    /** Replaces https://graph.facebook.com/v23.0 (checked like every outbound URL). */
    apiRoot: z.url().optional(),
    webhookPath: z
      .string()
      .regex(/^\/[A-Za-z0-9._~\-/]{0,127}$/, "must be a path like /whatsapp/webhook")
      .optional(),
    dmPolicy: z.enum(DM_POLICIES).optional(),
    allowFrom: z.array(allowEntry).max(1000).optional(),
    /** Read receipts for the messages the agent answers (OpenClaw's default: on). */
    sendReadReceipts: z.boolean().optional(),
    textChunkLimit: z.int().min(1).max(4096).optional(),
  })
  .superRefine(refuseUnknownCredentials(new Set(["accessToken", "appSecret", "verifyToken"])));
export type WhatsappConfig = z.infer<typeof whatsappConfigSchema>;

/**
 * `channels.msteams` with OpenClaw's keys (`@openclaw/msteams`, docs/channels/msteams): the
 * Azure bot's `appId`, `appPassword` and `tenantId`, `dmPolicy`/`allowFrom`, `groupPolicy`, per
 * team and channel `requireMention`, `webhook.path` (default `/api/messages`; `webhook.port`
 * steers OpenClaw's own listener, no effect here); plus the replaceable endpoints of this
 * service (`tokenUrl`, `openIdMetadataUrl`, and `apiRoot`: a Bot Connector serviceUrl trusted
 * besides Microsoft's own hosts, for fakes and sovereign clouds), each an outbound URL under
 * the guard.
 */
const msTeamsAllowEntry = z.string().min(1).max(256);
const msTeamsChannelPolicySchema = z.looseObject({ requireMention: z.boolean().optional() });
const msTeamsTeamPolicySchema = z.looseObject({
  requireMention: z.boolean().optional(),
  channels: z.record(z.string().max(512), msTeamsChannelPolicySchema).optional(),
});
export const msTeamsConfigSchema = z
  .looseObject({
    enabled: z.boolean().optional(),
    appId: z.string().min(1).max(256),
    appPassword: channelSecretSchema.optional(),
    tenantId: z.string().min(1).max(256).optional(),
    webhook: z
      .looseObject({
        path: z
          .string()
          .regex(/^\/[A-Za-z0-9._~\-/]{0,127}$/, "must be a path like /api/messages")
          .optional(),
      })
      .optional(),
    dmPolicy: z.enum(DM_POLICIES).optional(),
    allowFrom: z.array(msTeamsAllowEntry).max(1000).optional(),
    groupPolicy: z.enum(["open", "allowlist", "disabled"]).optional(),
    groupAllowFrom: z.array(msTeamsAllowEntry).max(1000).optional(),
    requireMention: z.boolean().optional(),
    teams: z.record(z.string().max(512), msTeamsTeamPolicySchema).optional(),
    textChunkLimit: z.number().int().min(100).max(28000).optional(),
    apiRoot: z.url().max(2048).optional(),
    tokenUrl: z.url().max(2048).optional(),
    openIdMetadataUrl: z.url().max(2048).optional(),
  })
  .superRefine(refuseUnknownCredentials(new Set(["appPassword"])));
export type MsTeamsConfig = z.infer<typeof msTeamsConfigSchema>;

/**
 * `channels.line` with OpenClaw's keys (`@openclaw/line`, SPEC channels-2 §3, §5): the channel
 * access token and secret, the DM and group policies, listed groups. `apiRoot` is this service's
 * seam for what the real plugin hard-codes (`https://api.line.me`), so tests and self-hosters can
 * point at a fake. Keys of the real gateway's features not built here (`replyToMode`, `accounts`)
 * are accepted and have no effect.
 */
export const lineConfigSchema = z
  .looseObject({
    enabled: z.boolean().optional(),
    channelAccessToken: channelSecretSchema.optional(),
    channelSecret: channelSecretSchema.optional(),
    /** Replaces https://api.line.me for every Messaging API call (checked like every outbound URL). */
    apiRoot: z.url().optional(),
    /** Path under the tenant's base URL (default `/line/webhook`). */
    webhookPath: z
      .string()
      .regex(/^\/[A-Za-z0-9._~\-/]{0,127}$/, "must be a path like /line/webhook")
      .optional(),
    dmPolicy: z.enum(DM_POLICIES).optional(),
    allowFrom: z.array(allowEntry).max(1000).optional(),
    groupPolicy: z.enum(["open", "allowlist", "disabled"]).optional(),
    /** Senders admitted in any group or room (LINE's allowlist is sender-based, recorded). */
    groupAllowFrom: z.array(allowEntry).max(1000).optional(),
    groups: z
      .record(
        z.string().min(1).max(64),
        z.looseObject({ requireMention: z.boolean().optional(), enabled: z.boolean().optional() }),
      )
      .optional(),
  })
  .superRefine(refuseUnknownCredentials(new Set(["channelAccessToken", "channelSecret"])));
export type LineConfig = z.infer<typeof lineConfigSchema>;

/**
 * The low-layer half of a chat platform's descriptor (src/features/channels/platform.ts holds the rest):
 * what config, secrets, the outbound guard and hooks need to know, kept here so these layers
 * read it without importing src/features/channels/. Every list below is derived from CHANNEL_CONFIGS.
 */
export type ChannelConfigSpec = {
  /** The channel's name: its `channels.<name>` key, hook channel and session key part. */
  name: string;
  /** The `channels.<name>` block. */
  schema: z.ZodType;
  /** Secret-bearing keys of the block (stored as SecretRefs, never returned) and their store entries. */
  secrets: Readonly<Record<string, string>>;
  /** Keys of the block that are URLs the service calls (checked by the outbound guard). */
  outboundUrlKeys: readonly string[];
  /** Whether an inbound hook may deliver to this channel (`channel: "<name>"`). */
  hookChannel: boolean;
  /** The credential whose presence makes the channel configured (`channels.status`): the bot's token. */
  credential: string;
};

export const telegramChannelConfig = {
  name: "telegram",
  schema: telegramConfigSchema,
  secrets: { botToken: "TELEGRAM_BOT_TOKEN", webhookSecret: "TELEGRAM_WEBHOOK_SECRET" },
  outboundUrlKeys: ["apiRoot"],
  hookChannel: true,
  credential: "botToken",
} as const satisfies ChannelConfigSpec;

export const slackChannelConfig = {
  name: "slack",
  schema: slackConfigSchema,
  secrets: { botToken: "SLACK_BOT_TOKEN", signingSecret: "SLACK_SIGNING_SECRET" },
  outboundUrlKeys: ["apiRoot"],
  hookChannel: true,
  credential: "botToken",
} as const satisfies ChannelConfigSpec;

export const whatsappChannelConfig = {
  name: "whatsapp",
  schema: whatsappConfigSchema,
  secrets: {
    accessToken: "WHATSAPP_ACCESS_TOKEN",
    appSecret: "WHATSAPP_APP_SECRET",
    verifyToken: "WHATSAPP_VERIFY_TOKEN",
  },
  outboundUrlKeys: ["apiRoot"],
  hookChannel: true,
  credential: "accessToken",
} as const satisfies ChannelConfigSpec;

export const msTeamsChannelConfig = {
  name: "msteams",
  schema: msTeamsConfigSchema,
  secrets: { appPassword: "MSTEAMS_APP_PASSWORD" },
  outboundUrlKeys: ["apiRoot", "tokenUrl", "openIdMetadataUrl"],
  hookChannel: true,
  credential: "appPassword",
} as const satisfies ChannelConfigSpec;

export const lineChannelConfig = {
  name: "line",
  schema: lineConfigSchema,
  secrets: { channelAccessToken: "LINE_CHANNEL_ACCESS_TOKEN", channelSecret: "LINE_CHANNEL_SECRET" },
  outboundUrlKeys: ["apiRoot"],
  hookChannel: true,
  credential: "channelAccessToken",
} as const satisfies ChannelConfigSpec;

/** The fields of a service-account JSON key this service reads (the rest of the file is kept, unread). */
const googleChatServiceAccountKeySchema = z.looseObject({
  client_email: z.string().min(3).max(320),
  private_key: z.string().min(100).max(12_000),
  private_key_id: z.string().max(128).optional(),
});

/** Whether a plain `serviceAccount` value is a JSON key file's text with the fields the token exchange needs. */
function isServiceAccountJson(text: string): boolean {
  try {
    return googleChatServiceAccountKeySchema.safeParse(JSON.parse(text)).success;
  } catch {
    return false;
  }
}

/**
 * The Chat app's service account: the JSON key file's text, or the parsed object (kept as its
 * text), or a store SecretRef. It is a secret: moved into the store when written, never returned.
 */
const googleChatServiceAccountSchema = z.union([
  z
    .string()
    .min(1)
    .max(16_384)
    .refine(isServiceAccountJson, "must be the service account's JSON key (with client_email and private_key)"),
  storeSecretRefSchema,
  googleChatServiceAccountKeySchema.transform((key) => JSON.stringify(key)),
]);

/** A space's entry under `channels.googlechat.groups.<spaces/…>` (OpenClaw's keys). */
const googleChatSpaceSchema = z.looseObject({
  requireMention: z.boolean().optional(),
  enabled: z.boolean().optional(),
  /** Users (`users/<id>`) who may talk to the app in this space; else `groupAllowFrom`. */
  users: z.array(z.string().min(1).max(256)).max(1000).optional(),
});

/**
 * `channels.googlechat`: a Chat app over its HTTP endpoint (OpenClaw's keys). `apiRoot`,
 * `tokenUrl` and `certsUrl` are this service's keys for the Google URLs the real gateway holds
 * as constants (Chat API, OAuth token endpoint, Chat's signing certificates).
 */
export const googlechatConfigSchema = z
  .looseObject({
    enabled: z.boolean().optional(),
    serviceAccount: googleChatServiceAccountSchema.optional(),
    serviceAccountFile: z
      .never({
        error: "a file path cannot be read here: paste the JSON key as serviceAccount (kept in the secret store)",
      })
      .optional(),
    /** How the webhook's Bearer token is checked: `project-number` (Chat's own token) or `app-url` (a Google ID token). */
    audienceType: z.enum(["project-number", "app-url"]).optional(),
    /** The project number (`project-number`) or the endpoint's URL (`app-url`) the token is addressed to. */
    audience: z.string().min(1).max(2048).optional(),
    /** The app's own user (`users/<id>`): a USER_MENTION of it is a mention. */
    botUser: z.string().min(1).max(256).optional(),
    webhookPath: z
      .string()
      .regex(/^\/[A-Za-z0-9._~\-/]{0,127}$/, "must be a path like /googlechat")
      .optional(),
    dmPolicy: z.enum(DM_POLICIES).optional(),
    allowFrom: z.array(z.string().min(1).max(256)).max(1000).optional(),
    groupPolicy: z.enum(["open", "allowlist", "disabled"]).optional(),
    groupAllowFrom: z.array(z.string().min(1).max(256)).max(1000).optional(),
    groups: z.record(z.string().min(1).max(128), googleChatSpaceSchema).optional(),
    /** The default of every space's requireMention (OpenClaw: true). */
    requireMention: z.boolean().optional(),
    /** Replaces https://chat.googleapis.com (checked like every outbound URL). */
    apiRoot: z.url().optional(),
    /** Replaces https://oauth2.googleapis.com/token (checked like every outbound URL). */
    tokenUrl: z.url().optional(),
    /** Replaces Google's certificate map for Chat's tokens (checked like every outbound URL). */
    certsUrl: z.url().optional(),
  })
  .superRefine(refuseUnknownCredentials(new Set(["serviceAccount"])));
export type GooglechatConfig = z.infer<typeof googlechatConfigSchema>;

export const googlechatChannelConfig = {
  name: "googlechat",
  schema: googlechatConfigSchema,
  secrets: { serviceAccount: "GOOGLECHAT_SERVICE_ACCOUNT" },
  outboundUrlKeys: ["apiRoot", "tokenUrl", "certsUrl"],
  hookChannel: true,
  credential: "serviceAccount",
} as const satisfies ChannelConfigSpec;

/** The config halves of the registered platforms, in the order of src/features/channels/platforms.ts (a test checks it). */
export const CHANNEL_CONFIGS = [
  telegramChannelConfig,
  slackChannelConfig,
  whatsappChannelConfig,
  msTeamsChannelConfig,
  lineChannelConfig,
  googlechatChannelConfig,
] as const;
type ChannelConfigOf<N> = Extract<(typeof CHANNEL_CONFIGS)[number], { name: N }>;
type ChannelName = (typeof CHANNEL_CONFIGS)[number]["name"];

/** The lists config, secrets, the outbound guard and hooks read, derived from a list of config halves. */
export function channelConfigLists(configs: readonly ChannelConfigSpec[]) {
  return {
    schema: z.strictObject(Object.fromEntries(configs.map((spec) => [spec.name, spec.schema.optional()]))),
    secretKeys: Object.fromEntries(configs.map((spec) => [spec.name, Object.keys(spec.secrets)])),
    secretNames: Object.fromEntries(
      configs.flatMap((spec) => Object.entries(spec.secrets).map(([key, name]) => [`${spec.name}.${key}`, name])),
    ) as Record<string, string>,
    outboundUrlKeys: configs.flatMap((spec) => spec.outboundUrlKeys.map((key) => [spec.name, key] as const)),
    hookChannels: configs.filter((spec) => spec.hookChannel).map((spec) => spec.name),
  };
}
const DERIVED = channelConfigLists(CHANNEL_CONFIGS);

/** The built channels; another channel's block (with its tokens) is refused by name, not stored. */
export const channelsConfigSchema = DERIVED.schema as unknown as z.ZodObject<
  { [N in ChannelName]: z.ZodOptional<ChannelConfigOf<N>["schema"]> },
  z.core.$strict
>;
export type ChannelsConfig = z.infer<typeof channelsConfigSchema>;

/** The secret-bearing keys of each channel (stored as SecretRefs, never returned). */
export const CHANNEL_SECRET_KEYS = DERIVED.secretKeys as unknown as {
  [N in ChannelName]: ReadonlyArray<keyof ChannelConfigOf<N>["secrets"] & string>;
};

/** Secret store names plain values are moved to when a config is written (`telegram.botToken` → `TELEGRAM_BOT_TOKEN`). */
export const CHANNEL_SECRET_NAMES: Record<string, string> = DERIVED.secretNames;

/** Config paths of the channels' URLs the service calls (`channels.telegram.apiRoot`, …): the outbound guard checks each. */
export const CHANNEL_OUTBOUND_URL_KEYS: ReadonlyArray<readonly [channel: string, key: string]> =
  DERIVED.outboundUrlKeys;

/** The channels an inbound hook may name (besides `last`). */
export const HOOK_CHANNEL_NAMES: readonly string[] = DERIVED.hookChannels;

/** A Telegram update as far as this service reads it (other fields are kept, not checked). */
const tgUser = z.looseObject({
  id: z.number(),
  is_bot: z.boolean().optional(),
  first_name: z.string().optional(),
  username: z.string().optional(),
});
const tgEntity = z.looseObject({
  type: z.string(),
  offset: z.number(),
  length: z.number(),
  user: tgUser.optional(),
});
export const telegramMessageSchema = z.looseObject({
  message_id: z.number(),
  from: tgUser.optional(),
  chat: z.looseObject({
    id: z.number(),
    type: z.string(),
    title: z.string().optional(),
    is_forum: z.boolean().optional(),
    username: z.string().optional(),
  }),
  text: z.string().optional(),
  caption: z.string().optional(),
  entities: z.array(tgEntity).optional(),
  caption_entities: z.array(tgEntity).optional(),
  message_thread_id: z.number().optional(),
  is_topic_message: z.boolean().optional(),
  reply_to_message: z.looseObject({ from: tgUser.optional() }).optional(),
});
export type TelegramMessage = z.infer<typeof telegramMessageSchema>;

export const telegramUpdateSchema = z.looseObject({
  update_id: z.number().int(),
  message: telegramMessageSchema.optional(),
  edited_message: z.unknown().optional(),
  /** An inline button pressed under one of the bot's messages. */
  callback_query: z
    .looseObject({
      id: z.string(),
      from: tgUser,
      data: z.string().optional(),
      message: telegramMessageSchema.optional(),
    })
    .optional(),
});
export type TelegramUpdate = z.infer<typeof telegramUpdateSchema>;

/** A Slack Events API message / app_mention event as far as this service reads it. */
export const slackMessageEventSchema = z.looseObject({
  type: z.string(),
  subtype: z.string().optional(),
  channel: z.string().optional(),
  channel_type: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().optional(),
  ts: z.string().optional(),
  thread_ts: z.string().optional(),
});
export type SlackMessageEvent = z.infer<typeof slackMessageEventSchema>;

/** An Events API `event_callback` envelope. */
export const slackEnvelopeSchema = z.looseObject({
  type: z.literal("event_callback"),
  event_id: z.string().min(1).max(128),
  team_id: z.string().optional(),
  event: slackMessageEventSchema,
});
export type SlackEnvelope = z.infer<typeof slackEnvelopeSchema>;
