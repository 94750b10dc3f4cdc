/**
 * OpenClaw's `/whoami` reply (its `handleWhoamiCommand`): who is speaking, as the chat's platform
 * names them. Pure: the channel door fills the speaker from the update; `chat.send` has none.
 */

/** The speaker of a command as the door knows them. */
export type CommandSpeaker = {
  /** The platform (`telegram`, `slack`, …); `webchat` for `chat.send`. */
  channel: string;
  senderId?: string;
  username?: string;
  /** A group chat's `From` (`telegram:group:-100…`): OpenClaw lists it for group chats only. */
  groupFrom?: string;
  threadId?: string | number;
};

/** `🧭 Identity` and the lines OpenClaw prints for what is known, in its order. */
export function whoamiText(speaker: CommandSpeaker): string {
  const lines = ["🧭 Identity", `Channel: ${speaker.channel}`];
  if (speaker.senderId) lines.push(`User id: ${speaker.senderId}`);
  if (speaker.username) lines.push(`Username: ${speaker.username.startsWith("@") ? "" : "@"}${speaker.username}`);
  if (speaker.groupFrom) lines.push(`Chat: ${speaker.groupFrom}`);
  if (speaker.threadId !== undefined) lines.push(`Thread: ${speaker.threadId}`);
  if (speaker.senderId) lines.push(`AllowFrom: ${speaker.senderId}`);
  return lines.join("\n");
}
