import { z } from "zod";
import { channelSecretSchema, DM_POLICIES } from "../../protocol/channels";

/**
 * `channels.line` with OpenClaw's keys (`@openclaw/line`, SPEC §3, §5): the channel access token
 * and secret, the DM and group policies, listed groups. `apiRoot` is this service's seam for
 * what the real plugin hard-codes (`https://api.line.me`), so tests and self-hosters can point
 * at a fake. Keys of the real gateway's features not built here (`replyToMode`, `accounts`) are
 * accepted and have no effect.
 */

const allowEntry = z.union([z.string().min(1).max(256), z.number()]);

/** A group's entry under `channels.line.groups.<groupId>` (or `"*"`). */
const lineGroupSchema = z.looseObject({
  requireMention: z.boolean().optional(),
  enabled: z.boolean().optional(),
});

export const lineConfigSchema = z.looseObject({
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
  groups: z.record(z.string().min(1).max(64), lineGroupSchema).optional(),
});
export type LineConfig = z.infer<typeof lineConfigSchema>;

/** The config keys that hold credentials (moved into the secret store, never returned). */
export const LINE_SECRET_KEYS = ["channelAccessToken", "channelSecret"] as const;
