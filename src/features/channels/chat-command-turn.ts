import { type ChatCommand, parseChatCommand } from "../../domain/chat-commands";
import type { CommandSpeaker } from "../../domain/whoami";
import type { ChannelTurn } from "./adapter";

/**
 * Chat commands typed into Telegram and Slack: the same layer as `chat.send`'s
 * (domain/chat-commands.ts, run by domain/runs.ts `startChatCommandRun`), so a chat's `/help`,
 * `/status`, `/new`, `/reset`… are answered without the model, and `commands.list` stays the one
 * list of what exists. Only the addressing is the platform's.
 */

/**
 * The command a channel turn's text is, or null; leading mentions of the bot (Slack's `<@U…>`) are
 * not part of it. `/send` is one too: answered with OpenClaw's refusal to a sender who owns nothing.
 */
export function channelCommand(text: string): ChatCommand | null {
  return parseChatCommand(text.replace(/^(?:\s*<@[A-Z0-9]+>)+/i, "").trim());
}

/**
 * Telegram's `/cmd@bot args`: for this bot (the text without `@bot`; it counts as a mention, as in
 * OpenClaw) or for another bot (OpenClaw 2026.9.6 gives that text to the model as it is, recorded in
 * an open group); null when the text is no addressed command.
 */
export function addressedCommand(text: string, botUsername: string): { text: string; toOtherBot: boolean } | null {
  const trimmed = text.trim();
  const match = /^\/([a-z][a-z0-9_-]*)@([a-z0-9_]+)(?=\s|$)/i.exec(trimmed);
  if (!match) return null;
  return {
    text: `/${match[1]}${trimmed.slice(match[0].length)}`,
    toOtherBot: match[2]!.toLowerCase() !== botUsername.toLowerCase(),
  };
}

/** Who typed a channel turn's command, as OpenClaw's `/whoami` names them (src/domain/whoami.ts). */
export function turnSpeaker(turn: ChannelTurn): CommandSpeaker {
  const origin = turn.rowFields?.origin ?? turn.seed.origin;
  const username = turn.envelope?.sender.username;
  return {
    channel: turn.replyTarget.channel,
    senderId: turn.senderId,
    ...(username ? { username } : {}),
    // OpenClaw lists the chat for group chats (a Slack channel is not one).
    ...(origin?.chatType === "group" && origin.from ? { groupFrom: origin.from } : {}),
    ...(turn.replyTarget.threadId !== undefined ? { threadId: turn.replyTarget.threadId } : {}),
  };
}
