import { z } from "zod";

/**
 * LINE webhook bodies (Messaging API): `{ destination, events: [...] }`. Loose schemas: LINE adds
 * event types and properties over time, and an unknown one must be stored and ignored, not refused.
 * The recorded answers of the webhook route (SPEC §3.1) are here too, word for word. Pure.
 */

const sourceSchema = z.looseObject({
  type: z.string(),
  userId: z.string().optional(),
  groupId: z.string().optional(),
  roomId: z.string().optional(),
});

const mentioneeSchema = z.looseObject({
  type: z.string().optional(),
  userId: z.string().optional(),
  isSelf: z.boolean().optional(),
});

export const lineMessageSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  text: z.string().optional(),
  quoteToken: z.string().optional(),
  /** The message this one quotes (LINE sets it when the user replies to a message). */
  quotedMessageId: z.string().optional(),
  mention: z.looseObject({ mentionees: z.array(mentioneeSchema).optional() }).optional(),
});
export type LineMessage = z.infer<typeof lineMessageSchema>;

export const lineEventSchema = z.looseObject({
  type: z.string(),
  mode: z.string().optional(),
  timestamp: z.number().optional(),
  webhookEventId: z.string().optional(),
  deliveryContext: z.looseObject({ isRedelivery: z.boolean().optional() }).optional(),
  source: sourceSchema.optional(),
  replyToken: z.string().optional(),
  message: lineMessageSchema.optional(),
});
export type LineEvent = z.infer<typeof lineEventSchema>;

export const lineWebhookSchema = z.looseObject({
  destination: z.string().optional(),
  events: z.array(lineEventSchema).max(1000),
});
export type LineWebhook = z.infer<typeof lineWebhookSchema>;

/** The real gateway's pre-auth body cap (64 KB), answered 413 beyond it. */
export const LINE_MAX_BODY_BYTES = 64 * 1024;

/** The recorded answers (status, JSON body) of the webhook route, SPEC §3.1. */
export const LINE_ANSWERS = {
  ok: { status: 200, body: { status: "ok" } },
  missingSignature: { status: 400, body: { error: "Missing X-Line-Signature header" } },
  invalidSignature: { status: 401, body: { error: "Invalid signature" } },
  invalidPayload: { status: 400, body: { error: "Invalid webhook payload" } },
  tooLarge: { status: 413, body: { error: "Payload too large" } },
} as const;

/**
 * The dedupe key of one event: LINE's message id for message events (a redelivery under a new
 * `webhookEventId` is the same message, recorded), the webhook event id otherwise; null when
 * the event carries neither (it cannot be deduped, so it is not taken).
 */
export function lineUpdateId(event: Pick<LineEvent, "type" | "message" | "webhookEventId">): string | null {
  if (event.type === "message" && event.message?.id) return `message:${event.message.id}`;
  if (event.webhookEventId) return `event:${event.webhookEventId}`;
  return null;
}

/**
 * What a verified body holds: the events to store (active mode, with a dedupe key), or the
 * reason it is answered otherwise. `{"events":"x"}` is refused as invalid (400) where the real
 * gateway crashes with a 500 (SPEC §3.1): a malformed body is the sender's error, not ours.
 */
export function parseLineWebhook(
  body: string,
): { ok: true; events: { updateId: string; event: LineEvent }[] } | { ok: false } {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false };
  }
  const parsed = lineWebhookSchema.safeParse(json);
  if (!parsed.success) return { ok: false };
  const events: { updateId: string; event: LineEvent }[] = [];
  for (const event of parsed.data.events) {
    // Standby events belong to another channel's module (recorded: 200, nothing happens).
    if (event.mode !== undefined && event.mode !== "active") continue;
    const updateId = lineUpdateId(event);
    if (updateId) events.push({ updateId, event });
  }
  return { ok: true, events };
}
