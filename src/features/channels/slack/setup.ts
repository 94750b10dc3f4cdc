import type { PlatformSetup } from "../platform-setup";

/** Slack's Set up in HTTP mode (Events API): the bot token and signing secret; the Request URL to paste. */
export const slackSetup: PlatformSetup = {
  help: {
    title: "Slack bot token",
    lines: [
      "1) Create a Slack app at https://api.slack.com/apps and install it to your workspace",
      "2) Copy the Bot User OAuth Token (xoxb-...) from OAuth & Permissions",
      "3) Copy the Signing Secret from Basic Information",
    ],
  },
  fields: [
    {
      key: "botToken",
      message: "Enter Slack bot token (xoxb-...)",
      format: { pattern: /^xoxb-/, message: "Slack bot tokens start with xoxb-" },
    },
    { key: "signingSecret", message: "Enter Slack signing secret" },
  ],
  webhook: {
    kind: "paste",
    hint: "Paste it as the Request URL under Event Subscriptions in your Slack app (subscribe to message.im, message.channels and app_mention).",
  },
};
