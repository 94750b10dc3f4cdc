/**
 * Outbound send policy (OpenClaw `session.sendPolicy` plus the per-session `sendPolicy`
 * override) and the owner-only `/send on|off|inherit` chat command.
 *
 * Pure decisions only: callers pass the session key and whatever entry facts they hold.
 */

import { channelFromKey, deriveChatType } from "../keys/session-key";
import type { SendPolicyConfig } from "../protocol/config";

/** Shape of `session.sendPolicy` in tenant config (defined by its zod schema). */
export type { SendPolicyConfig };

export type SendDecision = "allow" | "deny";

/** Error text when `chat.send` / `agent` hit a denying policy. */
export const SEND_BLOCKED_TEXT = "send blocked by session policy";

type ChatType = "direct" | "group" | "channel";

/** Trimmed lowercase value, or undefined when blank (a blank match field matches everything). */
function normalizeMatch(raw: string | null | undefined): string | undefined {
  const value = raw?.trim().toLowerCase();
  return value ? value : undefined;
}

function normalizeDecision(raw: string | null | undefined): SendDecision | undefined {
  const value = normalizeMatch(raw);
  return value === "allow" || value === "deny" ? value : undefined;
}

/** Legacy "dm" is an alias of "direct"; unknown values count as absent. */
function normalizeChatType(raw: string | null | undefined): ChatType | undefined {
  const value = normalizeMatch(raw);
  if (value === "direct" || value === "dm") {
    return "direct";
  }
  return value === "group" || value === "channel" ? value : undefined;
}

/** Drops a leading `agent:<id>:` so rules can be written against the channel-level key. */
function stripAgentPrefix(key: string): string {
  const parts = key.trim().split(":").filter(Boolean);
  if (parts.length >= 3 && parts[0]?.toLowerCase() === "agent") {
    return parts.slice(2).join(":");
  }
  return key;
}

/** Chat type from the key's tokens (the session-key model's rule), else undefined. */
function chatTypeFromKey(key: string): ChatType | undefined {
  const chatType = deriveChatType(key);
  return chatType === "unknown" ? undefined : chatType;
}

type RuleMatch = NonNullable<NonNullable<SendPolicyConfig["rules"]>[number]["match"]>;

type MatchContext = {
  channel: string | undefined;
  chatType: ChatType | undefined;
  rawKey: string;
  strippedKey: string;
};

/** Every present match field must agree; absent or blank fields do not constrain. */
function ruleMatches(match: RuleMatch, ctx: MatchContext): boolean {
  const channel = normalizeMatch(match.channel);
  if (channel && channel !== ctx.channel) {
    return false;
  }
  const chatType = normalizeChatType(match.chatType);
  if (chatType && chatType !== ctx.chatType) {
    return false;
  }
  const rawPrefix = normalizeMatch(match.rawKeyPrefix);
  if (rawPrefix && !ctx.rawKey.startsWith(rawPrefix)) {
    return false;
  }
  const prefix = normalizeMatch(match.keyPrefix);
  // keyPrefix accepts either spelling so `discord:group:` also covers `agent:main:discord:group:`.
  if (prefix && !ctx.rawKey.startsWith(prefix) && !ctx.strippedKey.startsWith(prefix)) {
    return false;
  }
  return true;
}

/** Decides whether a session may send: override, then rules (first deny wins), then default. */
export function resolveSendPolicy(input: {
  sessionKey: string;
  override?: "allow" | "deny" | null;
  config?: SendPolicyConfig;
  channel?: string;
  chatType?: string;
  entryChannel?: string;
  lastChannel?: string;
  entryChatType?: string;
}): SendDecision {
  const override = normalizeDecision(input.override);
  if (override) {
    return override;
  }
  const config = input.config;
  if (!config) {
    return "allow";
  }
  const ctx: MatchContext = {
    channel:
      normalizeMatch(input.channel) ??
      normalizeMatch(input.entryChannel) ??
      normalizeMatch(input.lastChannel) ??
      channelFromKey(input.sessionKey),
    // An explicit chat type shadows the entry's, as in OpenClaw; the key is the last resort.
    chatType: normalizeChatType(input.chatType ?? input.entryChatType) ?? chatTypeFromKey(input.sessionKey),
    rawKey: input.sessionKey.toLowerCase(),
    strippedKey: stripAgentPrefix(input.sessionKey).toLowerCase(),
  };
  let allowMatched = false;
  for (const rule of config.rules ?? []) {
    if (!ruleMatches(rule.match ?? {}, ctx)) {
      continue;
    }
    if ((normalizeDecision(rule.action) ?? "allow") === "deny") {
      return "deny";
    }
    allowMatched = true;
  }
  if (allowMatched) {
    return "allow";
  }
  return normalizeDecision(config.default) ?? "allow";
}

/** Result of the `/send` chat command: a new override (null = inherit) or the usage hint. */
export type SendCommand =
  | { kind: "set"; value: "allow" | "deny" | null; reply: string }
  | { kind: "usage"; reply: string };

// OpenClaw prefixes command acknowledgements with a gear.
const SEND_USAGE_REPLY = "⚙️ Usage: /send on|off|inherit";

const SEND_TOKENS: Record<string, "allow" | "deny" | null> = {
  on: "allow",
  allow: "allow",
  off: "deny",
  deny: "deny",
  inherit: null,
  default: null,
  reset: null,
};

function label(value: "allow" | "deny" | null): string {
  if (value === null) {
    return "inherit";
  }
  return value === "allow" ? "on" : "off";
}

/**
 * Parses a standalone `/send [on|allow|off|deny|inherit|default|reset]` message
 * (also `/send: on`). Returns null when the message is not that command, so it flows to the agent.
 * Owner/authorization checks are the caller's job.
 */
export function parseSendCommand(text: string): SendCommand | null {
  // Colon form (`/send: off`) is the same command, as in OpenClaw's command normalisation.
  const body = text.trim().replace(/^\/send\s*:\s*/i, "/send ");
  const match = /^\/send(?:\s+([a-z]+))?\s*$/i.exec(body);
  if (!match) {
    return null;
  }
  const token = match[1]?.toLowerCase();
  if (token === undefined || !Object.hasOwn(SEND_TOKENS, token)) {
    return { kind: "usage", reply: SEND_USAGE_REPLY };
  }
  const value = SEND_TOKENS[token] ?? null;
  return { kind: "set", value, reply: `⚙️ Send policy set to ${label(value)}.` };
}

/** The policy for a stored session (its override, channel and chat type), optionally for a given channel. */
export function entrySendPolicy(input: {
  sessionKey: string;
  entry?: { sendPolicy?: "allow" | "deny"; channel?: string; lastChannel?: string; chatType?: string } | null;
  config?: SendPolicyConfig;
  channel?: string;
}): SendDecision {
  const entry = input.entry;
  return resolveSendPolicy({
    sessionKey: input.sessionKey,
    override: entry?.sendPolicy ?? null,
    ...(input.config ? { config: input.config } : {}),
    ...(input.channel ? { channel: input.channel } : {}),
    ...(entry?.channel ? { entryChannel: entry.channel } : {}),
    ...(entry?.lastChannel ? { lastChannel: entry.lastChannel } : {}),
    ...(entry?.chatType ? { entryChatType: entry.chatType } : {}),
  });
}

/**
 * The one application of the send policy: whether sending to (or delivering from) a session
 * is blocked. Session objects apply it to their own entry; a null config means "allow".
 */
export function sendBlocked(input: {
  sessionKey: string;
  entry: Parameters<typeof entrySendPolicy>[0]["entry"];
  config: SendPolicyConfig | null | undefined;
  channel?: string;
}): boolean {
  const { config, ...rest } = input;
  return entrySendPolicy({ ...rest, ...(config ? { config } : {}) }) === "deny";
}
