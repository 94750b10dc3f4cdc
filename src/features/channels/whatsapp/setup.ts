import type { PlatformSetup } from "../platform-setup";

/**
 * The WhatsApp Cloud API's Set up: the phone number id, access token, app secret and the verify
 * token the operator chooses (typed here and in Meta's dashboard, so it is never shown back).
 */
export const whatsappSetup: PlatformSetup = {
  help: {
    title: "WhatsApp Cloud API",
    lines: [
      "1) In your Meta app (developers.facebook.com), open WhatsApp › API Setup",
      "2) Copy the Phone number ID and a permanent access token",
      "3) Copy the App secret from App settings › Basic",
      "4) Choose a verify token: you will type it here and in the webhook settings",
    ],
  },
  fields: [
    { key: "phoneNumberId", message: "Enter WhatsApp phone number ID", placeholder: "123456789012345" },
    { key: "accessToken", message: "Enter WhatsApp access token" },
    { key: "appSecret", message: "Enter WhatsApp app secret" },
    { key: "verifyToken", message: "Enter the webhook verify token" },
  ],
  webhook: {
    kind: "paste",
    hint: "Paste it as the Callback URL under WhatsApp › Configuration in your Meta app, with the verify token you entered, and subscribe to the messages field.",
  },
};
