import type { MsTeamsActivity } from "./bot-framework-schemas";

/**
 * What an activity says about its conversation, as OpenClaw's Teams plugin reads it: the
 * conversation id without its reply chain (`19:…@thread.tacv2;messageid=<root>` is a reply in
 * the thread whose root is `<root>`), the kind (personal chat, group chat, channel), the
 * sender's stable id (the AAD object id when Teams sends one), whether the bot is `<at>`
 * mentioned, and the text without the bot's mention. Pure.
 */

export const MSTEAMS = "msteams";
/** OpenClaw's `MSTEAMS_TEXT_CHUNK_LIMIT`. */
export const MSTEAMS_CHUNK_CHARS = 4000;

export type ConversationKind = "direct" | "group" | "channel";

/** A conversation id split into the conversation and the root message of its reply chain. */
export function splitConversationId(id: string): { conversationId: string; threadRootId?: string } {
  const at = id.indexOf(";messageid=");
  if (at < 0) return { conversationId: id };
  const root = id.slice(at + ";messageid=".length).split(";")[0] ?? "";
  return root ? { conversationId: id.slice(0, at), threadRootId: root } : { conversationId: id.slice(0, at) };
}

export function conversationKind(activity: MsTeamsActivity): ConversationKind {
  const type = activity.conversation?.conversationType;
  if (type === "channel") return "channel";
  if (type === "groupChat") return "group";
  return "direct";
}

/** The sender's id as pairing and allowFrom name it: the AAD object id, else the Bot Framework id. */
export function senderIdOf(activity: MsTeamsActivity): string | null {
  return activity.from?.aadObjectId ?? activity.from?.id ?? null;
}

/** Whether a `mention` entity names the bot (the activity's recipient, or the app id `28:<appId>`). */
export function mentionsBot(activity: MsTeamsActivity, appId: string): boolean {
  const botIds = new Set([activity.recipient?.id, `28:${appId}`, appId].filter((id): id is string => !!id));
  return (activity.entities ?? []).some(
    (entity) => entity.type === "mention" && botIds.has(entity.mentioned?.id ?? ""),
  );
}

/** The message text without `<at>…</at>` mentions of the bot and without Teams' HTML wrapping. */
export function messageText(activity: MsTeamsActivity, appId: string): string {
  let text = activity.text ?? "";
  const botIds = new Set([activity.recipient?.id, `28:${appId}`, appId].filter((id): id is string => !!id));
  for (const entity of activity.entities ?? []) {
    if (entity.type === "mention" && entity.text && botIds.has(entity.mentioned?.id ?? ""))
      text = text.split(entity.text).join("");
  }
  return text
    .replace(/<at>[^<]*<\/at>/gi, (mention) => mention.replace(/<\/?at>/gi, ""))
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/p>\s*<p>/gi, "\n")
    .replace(/<\/?(p|div|span)[^>]*>/gi, "")
    .replace(/&nbsp;/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .trim();
}
