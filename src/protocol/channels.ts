import { z } from "zod";
import { storeSecretRefSchema } from "./secrets";

/**
 * `channels.*` of a tenant's config, with OpenClaw's key names (openclaw 2026.9.6,
 * `channels.telegram`), so the block of a pasted `openclaw.json` is accepted. Keys that only
 * steer the real gateway's own listener or features not built here (`webhookHost`,
 * `webhookPort`, `streaming`, `replyToMode`, …) are accepted and have no effect (docs/channels.md).
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

export const telegramConfigSchema = z.looseObject({
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
});
export type TelegramConfig = z.infer<typeof telegramConfigSchema>;

export const channelsConfigSchema = z.looseObject({
  telegram: telegramConfigSchema.optional(),
});
export type ChannelsConfig = z.infer<typeof channelsConfigSchema>;

/** The secret-bearing keys of each channel (stored as SecretRefs, never returned). */
export const CHANNEL_SECRET_KEYS = { telegram: ["botToken", "webhookSecret"] } as const;

/** Secret store names plain values are moved to when a config is written. */
export const CHANNEL_SECRET_NAMES: Record<string, string> = {
  "telegram.botToken": "TELEGRAM_BOT_TOKEN",
  "telegram.webhookSecret": "TELEGRAM_WEBHOOK_SECRET",
};

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
});
export type TelegramUpdate = z.infer<typeof telegramUpdateSchema>;
