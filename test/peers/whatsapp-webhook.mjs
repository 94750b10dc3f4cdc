// Meta's webhook body of one inbound WhatsApp text message (the Cloud API's shape), as the fake
// world posts it to `/whatsapp/webhook`: shared by the e2e file and the channels bench.

/** A `whatsapp_business_account` body with one text message from `from` (wa_id) to `phoneNumberId`. */
export function whatsappTextWebhook({ phoneNumberId, from, id, text, name = "Ana" }) {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "WABA-1",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550001111", phone_number_id: phoneNumberId },
              contacts: [{ profile: { name }, wa_id: from }],
              messages: [
                { from, id, timestamp: String(Math.floor(Date.now() / 1000)), type: "text", text: { body: text } },
              ],
            },
          },
        ],
      },
    ],
  };
}
