import { z } from "zod";

/**
 * The Google Chat event a webhook receives (SPEC channels-2 §4): only the fields the service
 * reads are checked; unknown event types and extra fields pass, so a new Google field never
 * turns a delivery into a 400.
 */

const userSchema = z.object({
  name: z.string(),
  displayName: z.string().optional(),
  email: z.string().optional(),
  type: z.string().optional(),
});

const spaceSchema = z.object({
  name: z.string(),
  type: z.string().optional(),
  spaceType: z.string().optional(),
  singleUserBotDm: z.boolean().optional(),
  displayName: z.string().optional(),
});

const annotationSchema = z.object({
  type: z.string(),
  userMention: z
    .object({ user: z.object({ name: z.string() }).passthrough() })
    .passthrough()
    .optional(),
});

const messageSchema = z.object({
  name: z.string(),
  sender: userSchema.passthrough().optional(),
  text: z.string().optional(),
  argumentText: z.string().optional(),
  thread: z.object({ name: z.string() }).passthrough().optional(),
  space: spaceSchema.passthrough().optional(),
  annotations: z.array(annotationSchema.passthrough()).optional(),
});

export const googleChatEventSchema = z
  .object({
    type: z.string(),
    eventTime: z.string().optional(),
    space: spaceSchema.passthrough().optional(),
    message: messageSchema.passthrough().optional(),
    user: userSchema.passthrough().optional(),
  })
  .passthrough();

export type GoogleChatEvent = z.infer<typeof googleChatEventSchema>;

/** The parsed event, or null for what OpenClaw answers `400 invalid payload` (not JSON, `{}`). */
export function parseGoogleChatEvent(body: string): GoogleChatEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  const parsed = googleChatEventSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The inbox's dedupe key: the message's resource name for messages, else null (not stored). */
export function googleChatUpdateId(event: GoogleChatEvent): string | null {
  return event.type === "MESSAGE" && event.message ? event.message.name : null;
}
