import type { SlackWebApi } from "./web-api";

/**
 * Names of channels (`conversations.info`) and users (`users.info` display name) for rows and
 * the model's envelope, cached per isolate (a name rarely changes; a stale one only names a
 * row or a sender): at most NAMES_MAX entries, each for NAME_TTL_MS. Best effort: a refused or
 * failed call leaves the name out, the turn goes on.
 */
const NAMES_MAX = 1_000;
const NAME_TTL_MS = 10 * 60_000;
const names = new Map<string, { name: string; until: number }>();

export function channelName(api: SlackWebApi, channelId: string): Promise<string | undefined> {
  return cachedName(api, `channel:${channelId}`, async () => {
    const answer = await api.call("conversations.info", { channel: channelId });
    const name = (answer.body.channel as { name?: unknown } | undefined)?.name;
    return answer.ok && typeof name === "string" ? name : undefined;
  });
}

/** OpenClaw's sender name: the profile's display name, else the real name, else the user name. */
export function userName(api: SlackWebApi, userId: string): Promise<string | undefined> {
  return cachedName(api, `user:${userId}`, async () => {
    const answer = await api.call("users.info", { user: userId });
    const user = answer.body.user as
      | { name?: unknown; real_name?: unknown; profile?: { display_name?: unknown; real_name?: unknown } }
      | undefined;
    if (!answer.ok || !user) return undefined;
    const found = [user.profile?.display_name, user.profile?.real_name, user.real_name, user.name].find(
      (name): name is string => typeof name === "string" && name.trim() !== "",
    );
    return found;
  });
}

async function cachedName(
  api: SlackWebApi,
  id: string,
  fetchName: () => Promise<string | undefined>,
): Promise<string | undefined> {
  const now = Date.now();
  const key = `${await api.tokenDigest()}:${id}`;
  const cached = names.get(key);
  if (cached && cached.until > now) return cached.name;
  const name = await fetchName().catch(() => undefined);
  if (name === undefined) return undefined;
  names.delete(key);
  names.set(key, { name, until: now + NAME_TTL_MS });
  // A Map iterates oldest first: past the bound, the least recently named goes.
  if (names.size > NAMES_MAX) names.delete(names.keys().next().value!);
  return name;
}
