import type { RouteRowFields } from "../../../model/entry";
import type { InboundEnvelope } from "../inbound-envelope";
import type { LineEvent } from "./events";
import { lineLocation } from "./message-text";
import type { LineChat, LineNames } from "./names";

/**
 * Who is speaking where in a LINE message, as OpenClaw's LINE plugin (2026.9.5) names it: the
 * envelope's sender (the profile's display name, left out when the lookup failed), the chat
 * (`line:<user>`, `line:group:<id>`, `line:room:<id>`), a group's label and subject (its
 * summary's name, else `group:<id>` / the id) and the bot's mention; and the row a turn leaves
 * (recorded rows: a DM `displayName` and origin label the sender's name, a group's its name).
 * Pure: the names come in (names.ts).
 */

const LINE = "line";

/** The address OpenClaw routes a LINE chat by (the row's `from` and `to`, the envelope's chat id). */
export function lineAddress(senderId: string, chat?: LineChat): string {
  return chat ? `${LINE}:${chat.kind}:${chat.id}` : `${LINE}:${senderId}`;
}

export function lineEnvelope(input: {
  event: LineEvent;
  senderId: string;
  chat?: LineChat;
  names: LineNames;
  mentioned: boolean;
}): InboundEnvelope {
  const { event, senderId, chat, names } = input;
  const location = lineLocation(event.message);
  return {
    chatId: lineAddress(senderId, chat),
    messageId: event.message?.id ?? "",
    timestampMs: event.timestamp ?? Date.now(),
    sender: { id: senderId, ...(names.sender ? { name: names.sender } : {}) },
    ...(chat
      ? {
          group: { label: names.group ?? `${chat.kind}:${chat.id}`, subject: names.group ?? chat.id },
          mentioned: input.mentioned,
        }
      : {}),
    ...(location ? { location } : {}),
  };
}

/** The row fields of a LINE turn; none when the name is unknown (the row keeps what it had). */
export function lineRowFields(senderId: string, chat: LineChat | undefined, names: LineNames, accountId: string) {
  const name = chat ? names.group : names.sender;
  if (!name) return {};
  const address = lineAddress(senderId, chat);
  const fields: RouteRowFields = {
    displayName: name,
    ...(chat ? { subject: name } : {}),
    origin: {
      label: name,
      provider: LINE,
      surface: LINE,
      chatType: chat ? "group" : "direct",
      from: address,
      to: address,
      accountId,
    },
  };
  return fields;
}
