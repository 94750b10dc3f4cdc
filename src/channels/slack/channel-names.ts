import type { SlackWebApi } from "./web-api";

/**
 * Channel names from `conversations.info`, cached per isolate (a name rarely changes; a stale
 * one only names a row): at most CHANNEL_NAMES_MAX entries, each for CHANNEL_NAME_TTL_MS.
 * Best effort: a refused or failed call leaves the row unnamed, the turn goes on.
 */
const CHANNEL_NAMES_MAX = 500;
const CHANNEL_NAME_TTL_MS = 10 * 60_000;
const names = new Map<string, { name: string; until: number }>();

export async function channelName(api: SlackWebApi, channelId: string, now = Date.now()): Promise<string | undefined> {
  const key = `${await api.tokenDigest()}:${channelId}`;
  const cached = names.get(key);
  if (cached && cached.until > now) return cached.name;
  const answer = await api.call("conversations.info", { channel: channelId }).catch(() => null);
  const name = (answer?.body.channel as { name?: unknown } | undefined)?.name;
  if (!answer?.ok || typeof name !== "string") return undefined;
  names.delete(key);
  names.set(key, { name, until: now + CHANNEL_NAME_TTL_MS });
  // Oldest first in a Map: past the bound, the least recently named goes.
  if (names.size > CHANNEL_NAMES_MAX) names.delete(names.keys().next().value!);
  return name;
}
