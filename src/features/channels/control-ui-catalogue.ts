import type { ChatPlatform } from "./platform";

/**
 * The Control UI's Channels page lists, besides what `channels.status` names, a fixed catalogue
 * of OpenClaw's own platforms (its bundle's list, 2026.9.6). Those this service does not serve
 * are labelled so in `channelMeta` (their card's line) and their Set up answers why, instead
 * of offering a setup that cannot work.
 */

/** The Control UI bundle's fixed card list, with OpenClaw's labels. */
const CONTROL_UI_CATALOGUE: Readonly<Record<string, string>> = {
  whatsapp: "WhatsApp",
  telegram: "Telegram",
  discord: "Discord",
  googlechat: "Google Chat",
  slack: "Slack",
  signal: "Signal",
  imessage: "iMessage",
  nostr: "Nostr",
};

/** The line an unserved platform's card shows. */
export const NOT_SERVED_DETAIL = "Not available on this service";

/** A platform's display label: the served platform's own, else the catalogue's, else its id. */
export function catalogueLabel(platforms: readonly ChatPlatform[], id: string): string {
  return platforms.find((platform) => platform.name === id)?.label ?? CONTROL_UI_CATALOGUE[id] ?? id;
}

/**
 * `channels.status`'s `channelMeta` (the cards the page lists, in order): every served
 * platform, then the catalogue's unserved ones marked as such.
 */
export function catalogueMeta(platforms: readonly ChatPlatform[]) {
  const served = new Set(platforms.map((platform) => platform.name));
  return [
    ...platforms.map((platform) => ({ id: platform.name, label: platform.label })),
    ...Object.entries(CONTROL_UI_CATALOGUE)
      .filter(([id]) => !served.has(id))
      .map(([id, label]) => ({ id, label, detailLabel: NOT_SERVED_DETAIL })),
  ];
}
