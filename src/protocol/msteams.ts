import { z } from "zod";
import { channelSecretSchema, DM_POLICIES } from "./channels";

/**
 * `channels.msteams` with OpenClaw's keys (`@openclaw/msteams`, docs/channels/msteams): the
 * Azure bot's `appId`, `appPassword` and `tenantId`, `dmPolicy`/`allowFrom`, `groupPolicy`, and
 * per team and channel `requireMention`; plus the replaceable endpoints of this service (token,
 * OpenID metadata, and `apiRoot`: a Bot Connector serviceUrl trusted besides Microsoft's own
 * hosts, for fakes and sovereign clouds), each an outbound URL under the guard. And the
 * Bot Framework activity as the Bot Connector posts it: only the fields read here are typed,
 * everything else (and every unknown activity type) passes through.
 */

const allowEntry = z.string().min(1).max(256);
const channelPolicySchema = z.looseObject({ requireMention: z.boolean().optional() });
const teamPolicySchema = z.looseObject({
  requireMention: z.boolean().optional(),
  channels: z.record(z.string().max(512), channelPolicySchema).optional(),
});

export const msTeamsConfigSchema = z.looseObject({
  enabled: z.boolean().optional(),
  appId: z.string().min(1).max(256),
  appPassword: channelSecretSchema,
  tenantId: z.string().min(1).max(256).optional(),
  dmPolicy: z.enum(DM_POLICIES).optional(),
  allowFrom: z.array(allowEntry).max(1000).optional(),
  groupPolicy: z.enum(["open", "allowlist", "disabled"]).optional(),
  groupAllowFrom: z.array(allowEntry).max(1000).optional(),
  requireMention: z.boolean().optional(),
  teams: z.record(z.string().max(512), teamPolicySchema).optional(),
  textChunkLimit: z.number().int().min(100).max(28000).optional(),
  apiRoot: z.url().max(2048).optional(),
  tokenUrl: z.url().max(2048).optional(),
  openIdMetadataUrl: z.url().max(2048).optional(),
});
export type MsTeamsConfig = z.infer<typeof msTeamsConfigSchema>;

const accountSchema = z.looseObject({
  id: z.string().max(512),
  name: z.string().max(512).optional(),
  aadObjectId: z.string().max(512).optional(),
});

export const msTeamsActivitySchema = z.looseObject({
  type: z.string().max(64),
  id: z.string().min(1).max(512).optional(),
  channelId: z.string().max(64).optional(),
  serviceUrl: z.string().max(2048).optional(),
  text: z.string().max(100_000).optional(),
  textFormat: z.string().max(32).optional(),
  replyToId: z.string().max(512).optional(),
  from: accountSchema.optional(),
  recipient: accountSchema.optional(),
  conversation: z
    .looseObject({
      id: z.string().min(1).max(1024),
      conversationType: z.string().max(32).optional(),
      tenantId: z.string().max(256).optional(),
    })
    .optional(),
  entities: z
    .array(
      z.looseObject({
        type: z.string().max(64),
        mentioned: accountSchema.optional(),
        text: z.string().max(1024).optional(),
      }),
    )
    .max(256)
    .optional(),
  channelData: z
    .looseObject({
      tenant: z.looseObject({ id: z.string().max(256) }).optional(),
      team: z.looseObject({ id: z.string().max(512) }).optional(),
      channel: z.looseObject({ id: z.string().max(512) }).optional(),
    })
    .optional(),
});
export type MsTeamsActivity = z.infer<typeof msTeamsActivitySchema>;
