import { inboundMessages } from "./events";
import { verifyWhatsappSignature } from "./signature";

/**
 * The answers of the WhatsApp webhook before anything is stored: a signature that is not the
 * app secret's HMAC of the raw body 401, a body that is not JSON 400, anything else 200 (Meta
 * retries a non-2xx for days), with the inbound messages to accept, one update each (its
 * message id, so a redelivered batch is deduplicated message by message). Statuses and other
 * changes carry no message. Pure.
 */

export const DEFAULT_WHATSAPP_WEBHOOK_PATH = "/whatsapp/webhook";

export type WhatsappIngressVerdict =
  | { ok: true; updates: Array<{ updateId: string; body: string }> }
  | { ok: false; status: 400 | 401 };

export async function checkWhatsappRequest(input: {
  appSecret: string;
  signature: string | null;
  body: string;
}): Promise<WhatsappIngressVerdict> {
  if (!(await verifyWhatsappSignature(input.appSecret, input.signature, input.body))) return { ok: false, status: 401 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(input.body);
  } catch {
    return { ok: false, status: 400 };
  }
  const inbound = inboundMessages(parsed) ?? [];
  return {
    ok: true,
    updates: inbound.map((message) => ({ updateId: message.message.id, body: JSON.stringify(message) })),
  };
}
