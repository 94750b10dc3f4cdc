import type { PlatformSetup } from "../platform-setup";

/** Telegram's Set up: OpenClaw's bot-token help and prompt; the webhook registered with `setWebhook`. */
export const telegramSetup: PlatformSetup = {
  help: {
    title: "Telegram bot token",
    lines: [
      "1) Open Telegram and chat with @BotFather",
      "2) Run /newbot (or /mybots)",
      "3) Copy the token (looks like 123456:ABC...)",
    ],
  },
  fields: [
    {
      key: "botToken",
      message: "Enter Telegram bot token",
      format: { pattern: /^\d+:[A-Za-z0-9_-]+$/, message: "Telegram bot tokens look like 123456:ABC..." },
    },
  ],
  generatedSecrets: ["webhookSecret"],
  webhook: { kind: "register" },
};
