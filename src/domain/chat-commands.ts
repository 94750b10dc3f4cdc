import { runnerOf } from "../policy/agent-config";
import { agentModelRef, agentModels, modelProblem, primaryModel } from "../policy/agent-models";
import { SERVER_VERSION } from "../protocol/server-version";
import { type SlackBlock, statusCardSlack, statusCardText } from "../render/status-card";
import { commandsListText, commandsPage, commandsPageKeyboard, type KeyboardButton } from "./commands-list";
import type { TenantContext } from "./context";
import { sessionRef } from "./keys";
import { patchSession } from "./session-index";
import { type CommandSpeaker, whoamiText } from "./whoami";

/**
 * Slash commands typed into `chat.send`, as the real gateway runs them, for those this service
 * has an equivalent of; OpenClaw's other built-in commands are answered that they are not
 * available here. None reaches the model: each answer is a fixed reply in the transcript (no
 * model call), so clients see it as they see any reply. `/stop` and `/send` are handled before
 * (domain/runs.ts). Text that merely starts with "/" and names no command goes to the model.
 */

/** A parsed command: its name (aliases resolved) and the rest of the line. */
export type ChatCommand = { name: string; args: string };

type CommandInfo = { description: string; category: string; acceptsArgs: boolean; aliases?: string[] };

/** The commands this service runs (OpenClaw's names, descriptions and categories). */
export const CHAT_COMMANDS: Record<string, CommandInfo> = {
  help: { description: "Show available commands.", category: "status", acceptsArgs: false },
  commands: { description: "List all slash commands.", category: "status", acceptsArgs: false },
  status: { description: "Show current status.", category: "status", acceptsArgs: false },
  stop: { description: "Stop the current run.", category: "session", acceptsArgs: false },
  reset: { description: "Reset the current session.", category: "session", acceptsArgs: true },
  new: { description: "Start a new session.", category: "session", acceptsArgs: true },
  name: { description: "Name or rename the current session.", category: "session", acceptsArgs: true },
  think: {
    description: "Set thinking level.",
    category: "options",
    acceptsArgs: true,
    aliases: ["/think", "/thinking", "/t"],
  },
  model: {
    description: "Show or set the model; use -s, -a, or -g to choose scope.",
    category: "options",
    acceptsArgs: true,
  },
  send: { description: "Set send policy.", category: "management", acceptsArgs: true },
  whoami: {
    description: "Show your sender id.",
    category: "status",
    acceptsArgs: false,
    aliases: ["/whoami", "/id"],
  },
};

/** OpenClaw's other built-in commands (with their aliases): answered, never run here. */
const UNAVAILABLE = [
  "tools",
  "skill",
  "dashboard",
  "learn",
  "loop",
  "goal",
  "diagnostics",
  "login",
  "openclaw",
  "tasks",
  "allowlist",
  "approve",
  "context",
  "btw",
  "side",
  "export-session",
  "export",
  "export-trajectory",
  "trajectory",
  "tts",
  "session",
  "subagents",
  "acp",
  "agents",
  "steer",
  "tell",
  "config",
  "mcp",
  "plugins",
  "plugin",
  "debug",
  "usage",
  "restart",
  "update",
  "activation",
  "compact",
  "verbose",
  "v",
  "trace",
  "fast",
  "reasoning",
  "reason",
  "elevated",
  "elev",
  "exec",
  "models",
  "queue",
  "bash",
];

const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "adaptive"];

/** The command a message is, or null (plain text, or `/something` that is no command). */
export function parseChatCommand(text: string): ChatCommand | null {
  const match = /^\/([a-z][a-z-]*)(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match) return null;
  const word = match[1]!.toLowerCase();
  const name =
    Object.entries(CHAT_COMMANDS).find(([key, info]) => key === word || info.aliases?.includes(`/${word}`))?.[0] ??
    (UNAVAILABLE.includes(word) ? word : null);
  return name ? { name, args: (match[2] ?? "").trim() } : null;
}

/** The commands as `chat.metadata` lists them (OpenClaw's `commands.list` entries). */
export function chatCommandEntries() {
  return Object.entries(CHAT_COMMANDS).map(([name, info]) => ({
    name,
    nativeName: name,
    textAliases: info.aliases ?? [`/${name}`],
    description: info.description,
    category: info.category,
    source: "native",
    scope: "both",
    acceptsArgs: info.acceptsArgs,
  }));
}

/**
 * What running a command does: the reply, with the platform's structure beside it (Slack's blocks
 * of the status card; Telegram's `reply_markup` of a `/commands` page as the one element), and a
 * reset to do first.
 */
export type CommandOutcome = {
  reply: string;
  replyBlocks?: SlackBlock[] | [{ inline_keyboard: KeyboardButton[][] }];
  resetFirst?: "new" | "reset";
};

/**
 * OpenClaw 2026.9.6's `/help` reply, word for word (recorded from Telegram; its `&lt;…&gt;` there
 * is the HTML parse mode's escaping). It lists OpenClaw's commands, some of which are answered
 * here as not available (docs/channels.md, "Chat commands").
 */
export const HELP_TEXT = [
  "ℹ️ Help",
  "",
  "Session",
  "/new  |  /reset  |  /compact [instructions]  |  /stop",
  "",
  "Options",
  "/think <level|default>  |  /model   |  /fast status|auto|on|off|default  |  /verbose on|off|full  |  /trace on|off|raw",
  "",
  "Status",
  "/status  |  /tasks  |  /whoami  |  /context",
  "",
  "Skills",
  "/skill  [input]",
  "",
  "More: /commands for full list, /tools for available capabilities",
].join("\n");

/**
 * A chat's `/send`: OpenClaw 2026.9.6 refuses it to a sender who is not a command owner (recorded,
 * its first sentence word for word); its hint (a `commands.ownerAllowFrom` CLI call) is replaced by
 * where this service sets a session's send policy, as chat senders are never owners here.
 */
export const SEND_NOT_OWNER_REPLY =
  "You are not authorized to use this owner-only command. An operator sets this session's send policy (`/send on|off|inherit` through `chat.send`, or `sendPolicy` in `sessions.patch`).";

/** OpenClaw's answer to `/stop` in a chat (its `formatAbortReplyText` without sub-agents), whether a run was running or not. */
export const STOP_REPLY = "⚙️ Agent was aborted.";

/**
 * Runs a command (not /send; `/stop` only as a chat's, whose runs the caller stops first: from
 * `chat.send` it is handled before) for the session `key`; the caller appends the reply.
 */
export async function runChatCommand(
  ctx: TenantContext<"index">,
  key: string,
  command: ChatCommand,
  /** Who typed it where (`slack` gets the status card as blocks; `/whoami` prints it). */
  speaker: CommandSpeaker,
): Promise<CommandOutcome> {
  switch (command.name) {
    case "stop":
      return { reply: STOP_REPLY };
    case "reset":
      return { reply: "✅ Session reset.", resetFirst: "reset" };
    case "new":
      return { reply: "✅ New session started.", resetFirst: "new" };
    case "name": {
      if (!command.args) return { reply: "Usage: /name <title>" };
      const label = command.args.slice(0, 512);
      await patchSession(ctx, key, { label });
      return { reply: `✅ Session renamed to “${label}”.` };
    }
    case "think": {
      const level = command.args.toLowerCase();
      if (!THINKING_LEVELS.includes(level)) {
        return { reply: `Unsupported thinking level. Use one of: ${THINKING_LEVELS.join(", ")}.` };
      }
      await patchSession(ctx, key, { thinkingLevel: level });
      return { reply: `Thinking level set to ${level}.` };
    }
    case "model":
      return { reply: await modelCommand(ctx, key, command.args) };
    case "status":
      return statusReply(ctx, key, speaker.channel);
    case "commands":
      return commandsReply(speaker.channel === "telegram" ? sessionRef(ctx, key).agentId : null);
    case "send":
      // Only a chat's `/send` comes here (chat.send runs it before): chat senders own nothing here.
      return { reply: SEND_NOT_OWNER_REPLY };
    case "whoami":
      return { reply: whoamiText(speaker) };
    case "help":
      return { reply: HELP_TEXT };
    default:
      return { reply: `⚠️ /${command.name} is not available on this gateway.` };
  }
}

/**
 * `/commands`: on Telegram (`agentId` given) the first of OpenClaw's pages with its keyboard, whose
 * presses the channel answers by editing the message (features/channels/telegram/commands-pages.ts);
 * elsewhere the unpaged list.
 */
function commandsReply(agentId: string | null): CommandOutcome {
  if (agentId === null) return { reply: commandsListText(listedCommands()) };
  const first = telegramCommandsPage(1, agentId, false);
  return { reply: first.text, ...(first.keyboard ? { replyBlocks: [{ inline_keyboard: first.keyboard }] } : {}) };
}

/**
 * Page `page` of `/commands` as Telegram shows it, with its keyboard (none when the list fits one
 * page); `indent` as `commandsPage` says (the first page is sent, the others are edits).
 */
export function telegramCommandsPage(page: number, agentId: string, indent: boolean) {
  const shown = commandsPage(listedCommands(), page, indent);
  return {
    text: shown.text,
    keyboard: shown.pages > 1 ? commandsPageKeyboard(shown.page, shown.pages, agentId) : null,
  };
}

/** What `/commands` lists: the commands `commands.list` lists. */
function listedCommands() {
  return Object.entries(CHAT_COMMANDS).map(([name, info]) => ({ name, ...info }));
}

/**
 * `/model` shows the session's model and those its runner offers; `/model <model>` sets it for
 * the session under sessions.patch's rule (policy/agent-models.ts), with OpenClaw's replies.
 */
async function modelCommand(ctx: TenantContext<"index">, key: string, args: string): Promise<string> {
  const agentId = sessionRef(ctx, key).agentId;
  const offered = `Available: ${agentModels(ctx.config, agentId)
    .map((entry) => primaryModel({ provider: entry.provider, model: entry.id }))
    .join(", ")}.`;
  if (!args) return `Current model: ${(await sessionModel(ctx, key)).model}.\n${offered}`;
  const problem = modelProblem(ctx.config, agentId, args);
  if (problem) return `⚠️ ${problem}\n${offered}`;
  const slash = args.indexOf("/");
  const label = slash > 0 ? args : primaryModel({ provider: runnerOf(ctx.config, agentId).type, model: args });
  await patchSession(ctx, key, { model: label });
  return `Model set to ${label} for this session only; configured default unchanged.`;
}

/** OpenClaw's status card for the session: text, or on Slack its table text with Block Kit blocks. */
async function statusReply(ctx: TenantContext<never>, key: string, channel?: string): Promise<CommandOutcome> {
  const { entry, model } = await sessionModel(ctx, key);
  const now = Date.now();
  const facts = {
    version: SERVER_VERSION,
    model,
    sessionKey: key,
    inputTokens: entry?.inputTokens ?? 0,
    outputTokens: entry?.outputTokens ?? 0,
    costUsd: entry?.estimatedCostUsd ?? 0,
    createdAt: entry?.createdAt ?? now,
    updatedAt: entry?.updatedAt ?? now,
    thinkingLevel: entry?.thinkingLevel ?? "off",
    fastMode: entry?.fastMode ?? false,
    ...(entry?.groupActivation ? { activation: entry.groupActivation } : {}),
    now,
  };
  if (channel === "slack") {
    const card = statusCardSlack(facts);
    return { reply: card.text, replyBlocks: card.blocks };
  }
  return { reply: statusCardText(facts) };
}

/** The session's entry and the model its runs use (the session's choice, else its agent's). */
async function sessionModel(ctx: TenantContext<never>, key: string) {
  const entry = await ctx.sessions(key).entry();
  const ref = agentModelRef(ctx.config, sessionRef(ctx, key).agentId);
  return { entry, model: entry?.model ?? primaryModel(ref) };
}
