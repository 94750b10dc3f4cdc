import { nameCache } from "../name-cache";
import type { SlackWebApi } from "./web-api";

/**
 * Names of channels (`conversations.info`) and users (`users.info` display name) for rows and
 * the model's envelope, cached per isolate (../name-cache.ts): at most 1,000, each for 10 minutes.
 */
const names = nameCache({ maxEntries: 1_000, ttlMs: 10 * 60_000 });

export async function channelName(api: SlackWebApi, channelId: string): Promise<string | undefined> {
  return names.get(`${await api.tokenDigest()}:channel:${channelId}`, async () => {
    const answer = await api.call("conversations.info", { channel: channelId });
    const name = (answer.body.channel as { name?: unknown } | undefined)?.name;
    return answer.ok && typeof name === "string" ? name : undefined;
  });
}

/** OpenClaw's sender name: the profile's display name, else the real name, else the user name. */
export async function userName(api: SlackWebApi, userId: string): Promise<string | undefined> {
  return names.get(`${await api.tokenDigest()}:user:${userId}`, async () => {
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
