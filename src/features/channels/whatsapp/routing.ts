import type { TenantConfig } from "../../../protocol/config";
import type { InboundDecision } from "../adapter";
import { directTurn, ignore } from "../inbound-decision";
import { messageText, type WhatsappInbound } from "./events";
import { e164 } from "./graph-api";
import { whatsappMediaLines, whatsappMediaRefs, withWhatsappMedia } from "./media-download";

/**
 * Who may talk to the business number and which session a message lands in, as OpenClaw's
 * WhatsApp channel decides it for direct chats: `dmPolicy` (pairing by default) over
 * `allowFrom` of E.164 numbers, and the DM session per `session.dmScope` with the peer as its
 * E.164 number. The Cloud API delivers no group chats of a business number. Pure.
 */

export const WHATSAPP = "whatsapp";
const DEFAULT_ACCOUNT = "default";

/** The keys of `channels.whatsapp` this decision reads. */
export type WhatsappRoutingConfig = {
  dmPolicy?: "pairing" | "allowlist" | "open" | "disabled";
  allowFrom?: ReadonlyArray<string | number>;
  phoneNumberId?: string;
};

export type WhatsappRoutingInput = {
  inbound: WhatsappInbound;
  whatsapp: WhatsappRoutingConfig;
  config: Pick<TenantConfig, "session">;
  agentId: string;
  /** Senders approved through pairing (E.164). */
  approved: ReadonlySet<string>;
};

export function decideWhatsapp(input: WhatsappRoutingInput): InboundDecision {
  const { message, senderName, phoneNumberId } = input.inbound;
  if (input.whatsapp.phoneNumberId && phoneNumberId && phoneNumberId !== input.whatsapp.phoneNumberId)
    return ignore("another business phone number");
  const caption = messageText(message);
  // A file is a turn too (described, then fetched by the inbox: media-download.ts).
  const text = [...whatsappMediaLines(whatsappMediaRefs(message)), caption].filter((p) => p.trim() !== "").join("\n");
  if (text.trim() === "") return ignore(`no text (${message.type})`);
  const senderId = e164(message.from);
  const sender = { listed: listed(input.whatsapp.allowFrom, senderId), approved: input.approved.has(senderId) };
  const decision = directTurn({
    policy: input.whatsapp.dmPolicy,
    sender,
    senderId,
    chatId: senderId,
    meta: { ...(senderName ? { name: senderName } : {}), accountId: DEFAULT_ACCOUNT },
    config: input.config,
    agentId: input.agentId,
    channel: WHATSAPP,
    accountId: DEFAULT_ACCOUNT,
    to: senderId,
    text,
    displayName: senderName ? `${senderName} id:${senderId}` : senderId,
    // The acknowledgement is the read receipt of this message (adapter.ts).
    ack: { chatId: senderId, reactToMessageId: message.id },
  });
  return withWhatsappMedia(decision, message, caption);
}

/** Whether allowFrom names the sender: E.164 with or without `+`, a `whatsapp:` prefix, or `*`. */
function listed(list: ReadonlyArray<string | number> | undefined, senderId: string): boolean {
  const digits = senderId.replace(/^\+/, "");
  return (list ?? []).some((entry) => {
    const value = String(entry)
      .trim()
      .replace(/^whatsapp:/i, "")
      .replace(/[\s()-]/g, "")
      .replace(/^\+/, "");
    return value === "*" || value === digits;
  });
}
