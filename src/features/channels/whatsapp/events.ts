import { z } from "zod";

/**
 * The WhatsApp Cloud API's webhook body (`object: "whatsapp_business_account"`): entries of
 * changes, a `messages` change carrying the contacts, the inbound messages and the statuses of
 * the business's own sends. One POST may carry several messages; each becomes its own update,
 * deduplicated by its message id (`wamid.…`). Unknown fields and types are accepted (Meta adds
 * them), statuses and other changes are answered 200 and ignored.
 */

const messageSchema = z
  .object({
    id: z.string().min(1),
    from: z.string().min(1),
    timestamp: z.string().optional(),
    type: z.string(),
    text: z.object({ body: z.string() }).passthrough().optional(),
    /** Media and other kinds keep their own object (image, document, audio, sticker, …). */
    image: z.object({ caption: z.string().optional() }).passthrough().optional(),
    document: z.object({ caption: z.string().optional(), filename: z.string().optional() }).passthrough().optional(),
    video: z.object({ caption: z.string().optional() }).passthrough().optional(),
    button: z.object({ text: z.string().optional() }).passthrough().optional(),
    interactive: z.unknown().optional(),
    context: z.object({ from: z.string().optional(), id: z.string().optional() }).passthrough().optional(),
  })
  .passthrough();

const changeValueSchema = z
  .object({
    messaging_product: z.string().optional(),
    metadata: z
      .object({ phone_number_id: z.string().optional(), display_phone_number: z.string().optional() })
      .passthrough()
      .optional(),
    contacts: z
      .array(
        z
          .object({
            wa_id: z.string().optional(),
            profile: z.object({ name: z.string().optional() }).passthrough().optional(),
          })
          .passthrough(),
      )
      .optional(),
    messages: z.array(z.unknown()).optional(),
  })
  .passthrough();

export const whatsappWebhookSchema = z
  .object({
    object: z.string(),
    entry: z.array(
      z
        .object({
          id: z.string().optional(),
          changes: z.array(z.object({ field: z.string(), value: changeValueSchema }).passthrough()).default([]),
        })
        .passthrough(),
    ),
  })
  .passthrough();

export type WhatsappMessage = z.infer<typeof messageSchema>;

/** One inbound message as the inbox stores it: the message, who sent it (name from `contacts`), to which number. */
export type WhatsappInbound = { message: WhatsappMessage; senderName?: string; phoneNumberId?: string };

/**
 * The inbound messages of a webhook body, each with its sender's profile name; an entry that is
 * not a message (a status, another field, a malformed message) is skipped. Null: not a
 * WhatsApp Business webhook body at all.
 */
export function inboundMessages(body: unknown): WhatsappInbound[] | null {
  const parsed = whatsappWebhookSchema.safeParse(body);
  if (!parsed.success || parsed.data.object !== "whatsapp_business_account") return null;
  const inbound: WhatsappInbound[] = [];
  for (const entry of parsed.data.entry) {
    for (const change of entry.changes) {
      if (change.field !== "messages") continue;
      const names = new Map((change.value.contacts ?? []).map((c) => [c.wa_id ?? "", c.profile?.name]));
      for (const raw of change.value.messages ?? []) {
        const message = messageSchema.safeParse(raw);
        if (!message.success) continue;
        const senderName = names.get(message.data.from);
        const phoneNumberId = change.value.metadata?.phone_number_id;
        inbound.push({
          message: message.data,
          ...(senderName ? { senderName } : {}),
          ...(phoneNumberId ? { phoneNumberId } : {}),
        });
      }
    }
  }
  return inbound;
}

/** The text a message carries for the model: its body, a caption, a button's text; "" when none. */
export function messageText(message: WhatsappMessage): string {
  return (
    message.text?.body ??
    message.image?.caption ??
    message.video?.caption ??
    message.document?.caption ??
    message.button?.text ??
    ""
  );
}
