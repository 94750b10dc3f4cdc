import { z } from "zod";

/**
 * The Bot Framework activity as the Bot Connector posts it (`channels.msteams` itself is in
 * ./channels.ts): only the fields read here are typed, everything else (and every unknown
 * activity type) passes through.
 */

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
