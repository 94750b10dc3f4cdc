import { nameCache } from "../name-cache";
import type { LineMessagingApi } from "./messaging-api";

/**
 * The names a LINE turn is told with (its sender's display name, its group's name), looked up
 * as OpenClaw's LINE plugin does (recorded: the profile, or the member profile and the group
 * summary, before the reply) and cached per isolate as it does, 5 minutes (../name-cache.ts;
 * at most 1,000). Best effort: a refused or failed call leaves the name out, the turn goes on.
 */
const names = nameCache({ maxEntries: 1_000, ttlMs: 5 * 60_000 });

/** Where a LINE message was written: a friend's 1:1 chat (no chat), a group or a room. */
export type LineChat = { kind: "group" | "room"; id: string };

export type LineNames = { sender?: string; group?: string };

export async function lineNames(api: LineMessagingApi, senderId: string, chat?: LineChat): Promise<LineNames> {
  const digest = await api.tokenDigest();
  const where = chat ? `${chat.kind}:${chat.id}` : "direct";
  const [sender, group] = await Promise.all([
    names.get(`${digest}:profile:${where}:${senderId}`, () => api.memberName(senderId, chat)),
    chat?.kind === "group" ? names.get(`${digest}:group:${chat.id}`, () => api.groupName(chat.id)) : undefined,
  ]);
  return { ...(sender ? { sender } : {}), ...(group ? { group } : {}) };
}
