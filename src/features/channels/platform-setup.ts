/**
 * What the Control UI's Channels › Set up asks for one platform (OpenClaw's `wizard.*` channels
 * flow, src/features/channels/setup-wizard.ts): a platform that declares this in its descriptor gets Set
 * up with no other change. Whether a field is a secret is not declared here: it is one of the
 * config's secret keys (`ChannelConfigSpec.secrets`), stored in the secret store and never shown.
 */
export type SetupField = {
  /** The key of `channels.<name>` the answer is written to. */
  key: string;
  /** OpenClaw's prompt for it ("Enter Telegram bot token"). */
  message: string;
  placeholder?: string;
  /** A shape check before the config schema's own (OpenClaw's per-field `validate`). */
  format?: { pattern: RegExp; message: string };
};

export type PlatformSetup = {
  /** OpenClaw's help note before the first prompt (where to find the credentials). */
  help: { title: string; lines: readonly string[] };
  fields: readonly SetupField[];
  /** Secret keys filled with a random value the operator never needs to see (Telegram's `webhookSecret`). */
  generatedSecrets?: readonly string[];
  /**
   * The last step: `register` has the service register the webhook with the platform (a
   * registrar in setup-wizard.ts); `paste` shows the URL with what to do with it.
   */
  webhook: { kind: "register" } | { kind: "paste"; hint: string };
};
