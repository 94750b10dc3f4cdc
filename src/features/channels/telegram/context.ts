import { z } from "zod";
import type { TelegramMessage } from "../../../protocol/channels";
import type { SessionSeed } from "../../../protocol/session";
import type { EnvelopeSender, ForwardOrigin, InboundEnvelope } from "../inbound-envelope";

/**
 * Who is speaking in a Telegram message, as OpenClaw names it: the envelope's sender, chat and
 * forward origin (src/features/channels/inbound-envelope.ts), and the session row's `displayName`,
 * `subject` and `origin` (SPEC §5; recorded rows: `User777001 (@user777001) id:777001`,
 * `Group <id>`, origin label `Group <id> id:<id>`). Pure.
 */

const TELEGRAM = "telegram";

const forwardUser = z.looseObject({
  id: z.number().optional(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  username: z.string().optional(),
});
const forwardChat = z.looseObject({ title: z.string().optional(), username: z.string().optional() });
const forwardOriginSchema = z.looseObject({
  type: z.string(),
  date: z.number().optional(),
  sender_user: forwardUser.optional(),
  sender_user_name: z.string().optional(),
  sender_chat: forwardChat.optional(),
  chat: forwardChat.optional(),
});
const senderSchema = forwardUser.extend({ id: z.number(), is_bot: z.boolean().optional() });

/** The sender as OpenClaw's envelope names it: first and last name, else the username, else the id. */
export function telegramSender(message: TelegramMessage): EnvelopeSender {
  const from = senderSchema.parse(message.from);
  const id = String(from.id);
  const name = fullName(from) ?? from.username ?? id;
  return { id, name, ...(from.username ? { username: from.username } : {}), isBot: from.is_bot ?? false };
}

/** `Forwarded message context`: the original author of a forwarded message, when it is one. */
export function telegramForwardOrigin(message: TelegramMessage): ForwardOrigin | undefined {
  const parsed = forwardOriginSchema.safeParse((message as { forward_origin?: unknown }).forward_origin);
  if (!parsed.success) return undefined;
  const origin = parsed.data;
  const dateMs = origin.date !== undefined ? origin.date * 1000 : undefined;
  const user = origin.sender_user;
  if (user) {
    const title = fullName(user) ?? user.username ?? String(user.id ?? "");
    const from = user.username ? `${title} (@${user.username})` : title;
    return { from, type: origin.type, ...(user.username ? { username: user.username } : {}), title, dateMs };
  }
  const chat = origin.sender_chat ?? origin.chat;
  const title = chat?.title ?? origin.sender_user_name;
  if (!title) return undefined;
  const from = chat?.username ? `${title} (@${chat.username})` : title;
  return { from, type: origin.type, ...(chat?.username ? { username: chat.username } : {}), title, dateMs };
}

/** The turn's envelope (history: the group's recent unmentioned messages, oldest first). */
export function telegramEnvelope(
  message: TelegramMessage,
  mentioned: boolean,
  history?: InboundEnvelope["history"],
): InboundEnvelope {
  const chatId = String(message.chat.id);
  const isGroup = message.chat.type !== "private";
  const forwarded = telegramForwardOrigin(message);
  const date = (message as { date?: unknown }).date;
  return {
    chatId: `${TELEGRAM}:${chatId}`,
    messageId: String(message.message_id),
    timestampMs: typeof date === "number" ? date * 1000 : Date.now(),
    sender: telegramSender(message),
    ...(isGroup ? { group: { label: groupLabel(message), subject: groupSubject(message) } } : {}),
    mentioned,
    ...(forwarded ? { forwarded } : {}),
    ...(isGroup && history && history.length > 0 ? { history } : {}),
  };
}

/** The row fields a Telegram turn sets (also on an existing row: rows follow the last route). */
export function telegramRowFields(
  message: TelegramMessage,
  accountId: string,
): Pick<SessionSeed, "displayName" | "origin"> & { subject?: string } {
  const chatId = String(message.chat.id);
  if (message.chat.type === "private") {
    const sender = telegramSender(message);
    const displayName = `${sender.name}${sender.username ? ` (@${sender.username})` : ""} id:${sender.id}`;
    return {
      displayName,
      origin: {
        label: displayName,
        provider: TELEGRAM,
        surface: TELEGRAM,
        chatType: "direct",
        from: `${TELEGRAM}:${sender.id}`,
        to: `${TELEGRAM}:${chatId}`,
        accountId,
      },
    };
  }
  const subject = groupSubject(message);
  return {
    displayName: subject,
    subject,
    origin: {
      label: groupLabel(message),
      provider: TELEGRAM,
      surface: TELEGRAM,
      chatType: "group",
      from: `${TELEGRAM}:group:${chatId}`,
      to: `${TELEGRAM}:${chatId}`,
      accountId,
    },
  };
}

/** A group's subject: its title, else `Group <id>` (the recorded rows). */
function groupSubject(message: TelegramMessage): string {
  return message.chat.title ?? `Group ${message.chat.id}`;
}

function groupLabel(message: TelegramMessage): string {
  return `${groupSubject(message)} id:${message.chat.id}`;
}

function fullName(user: { first_name?: string | undefined; last_name?: string | undefined }): string | undefined {
  const name = [user.first_name, user.last_name].filter((part) => part && part.trim() !== "").join(" ");
  return name === "" ? undefined : name;
}
