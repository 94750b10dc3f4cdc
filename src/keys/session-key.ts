/**
 * OpenClaw's session key model (src/routing/session-key.ts, src/sessions/session-key-utils.ts,
 * src/sessions/session-id.ts, src/agents/tools/sessions-helpers.ts), re-implemented as pure
 * functions. No I/O and no Cloudflare APIs: everything here is safe to call anywhere.
 *
 * Canonical store keys look like `agent:<agentId>:<rest>`; `global` and `unknown` are reserved
 * and never agent-prefixed; the literal `main` is the alias every tool accepts for the current
 * agent's main direct-chat session.
 */

/** Agent id used when none is given or a key carries none. */
export const DEFAULT_AGENT_ID = "main";
/** Main direct-chat bucket name when `session.mainKey` is unset. */
export const DEFAULT_MAIN_KEY = "main";

/** How DMs collapse: one main session per agent, or a single tenant-wide `global` session. */
export type SessionScope = "per-sender" | "global";
/** The `session.mainKey` / `session.scope` part of a tenant config. */
export type MainAliasConfig = { mainKey?: string; scope?: SessionScope };
/** Resolved main alias: what `main` means for this config. */
export type MainAlias = { mainKey: string; scope: SessionScope; alias: string };
/** Result of {@link classifySessionKeyShape}. */
export type SessionKeyShape = "missing" | "agent" | "malformed_agent" | "legacy_or_alias";
/** Chat type derived from a key alone. */
export type SessionChatType = "direct" | "group" | "channel" | "unknown";
/** Row kind as shown by `sessions_list`. */
export type SessionKind = "main" | "group" | "cron" | "hook" | "node" | "other";
/** Agent-scoped key split into its agent id and the remainder. */
export type ParsedAgentSessionKey = { agentId: string; rest: string };
/** A key with its `:thread:` / `:topic:` suffix split off. */
export type ThreadSuffix = { baseKey: string; threadId?: string; kind?: "thread" | "topic" };

const VALID_AGENT_ID_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/i;
const INVALID_AGENT_ID_CHARS_RE = /[^a-z0-9_-]+/g;
const AGENT_ID_MAX_LENGTH = 64;
const SESSION_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CRON_RUN_RE = /^cron:[^:]+:run:[^:]+$/;
// Legacy Discord keys: discord:[<accountId>:]guild-<guildId>:channel-<channelId>
const LEGACY_DISCORD_CHANNEL_RE = /^discord:(?:[^:]+:)?guild-[^:]+:channel-[^:]+$/;
const RESERVED_KEYS: ReadonlySet<string> = new Set(["global", "unknown"]);
const INTERNAL_KINDS: ReadonlySet<string> = new Set(["cron", "hook", "node"]);

function lowerTrim(value: string | null | undefined): string {
  return (value ?? "").trim().toLowerCase();
}

function nonBlank(value: string | null | undefined): string | undefined {
  const trimmed = (value ?? "").trim();
  return trimmed ? trimmed : undefined;
}

/** Names that would reach an object's prototype if an agent id were ever used as a plain-object key. */
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Bidirectional-control characters (U+202A–U+202E, U+2066–U+2069, U+200E/U+200F, U+061C): they
 * make a key display as something other than what it is (a right-to-left override reverses it).
 */
export const BIDI_CONTROL_RE = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

/**
 * Whether a caller-given agent id is refused before any normalizing: path-like (`/`, `\`, `..`,
 * a leading dot) or a prototype name (`__proto__`, `constructor`, `prototype`, also as it
 * normalizes). OpenClaw's normalizing would turn `../x` into `x`; a hosted service says no instead.
 */
export function isRefusedAgentId(id: string): boolean {
  const trimmed = id.trim();
  if (/[\\/]/.test(trimmed) || trimmed.includes("..") || trimmed.startsWith(".")) return true;
  return PROTOTYPE_NAMES.has(trimmed.toLowerCase()) || PROTOTYPE_NAMES.has(normalizeAgentId(trimmed));
}

/** True for `^[a-z0-9][a-z0-9_-]{0,63}$` (case-insensitive, surrounding whitespace ignored). */
export function isValidAgentId(id: string | null | undefined): boolean {
  const trimmed = (id ?? "").trim();
  return trimmed !== "" && VALID_AGENT_ID_RE.test(trimmed);
}

/** Path-safe agent id: lowercased, invalid runs → "-", dashes trimmed, ≤64 chars, else "main". */
export function normalizeAgentId(id: string | null | undefined): string {
  const trimmed = (id ?? "").trim();
  if (!trimmed) return DEFAULT_AGENT_ID;
  if (VALID_AGENT_ID_RE.test(trimmed)) return trimmed.toLowerCase();
  // Same order as OpenClaw: strip dashes first, then cut (a cut may leave a trailing dash).
  const collapsed = trimmed
    .toLowerCase()
    .replace(INVALID_AGENT_ID_CHARS_RE, "-")
    .replace(/^-+/, "")
    .replace(/-+$/, "")
    .slice(0, AGENT_ID_MAX_LENGTH);
  return collapsed || DEFAULT_AGENT_ID;
}

/** `session.mainKey` normalized: trimmed, lowercased, empty → "main". */
export function normalizeMainKey(value: string | null | undefined): string {
  return lowerTrim(value) || DEFAULT_MAIN_KEY;
}

/** Splits `agent:<id>:<rest>` (trimmed, lowercased, empty segments dropped); null otherwise. */
export function parseAgentSessionKey(key: string | null | undefined): ParsedAgentSessionKey | null {
  const raw = lowerTrim(key);
  if (!raw) return null;
  const parts = raw.split(":").filter(Boolean);
  if (parts.length < 3 || parts[0] !== "agent") return null;
  const agentId = parts[1];
  const rest = parts.slice(2).join(":");
  if (!agentId || !rest) return null;
  return { agentId, rest };
}

/** Coarse shape of a key: missing, agent-scoped, malformed `agent:` key, or legacy/alias. */
export function classifySessionKeyShape(key: string | undefined | null): SessionKeyShape {
  const raw = (key ?? "").trim();
  if (!raw) return "missing";
  if (parseAgentSessionKey(raw)) return "agent";
  return raw.toLowerCase().startsWith("agent:") ? "malformed_agent" : "legacy_or_alias";
}

/** What `main` means under this config (alias is "global" when scope is global). */
export function resolveMainAlias(cfg?: MainAliasConfig): MainAlias {
  const mainKey = normalizeMainKey(cfg?.mainKey);
  const scope: SessionScope = cfg?.scope ?? "per-sender";
  const alias = scope === "global" ? "global" : mainKey;
  return { mainKey, scope, alias };
}

/** Canonical main key `agent:<agentId>:<mainKey>` ignoring scope. */
function agentMainKey(agentId: string, mainKey: string): string {
  return `agent:${normalizeAgentId(agentId)}:${mainKey}`;
}

/** The agent's main session key, or "global" when `session.scope` is global. */
export function mainSessionKey(agentId: string, cfg?: MainAliasConfig): string {
  const { mainKey, scope } = resolveMainAlias(cfg);
  return scope === "global" ? "global" : agentMainKey(agentId, mainKey);
}

/** True for the reserved keys `global` and `unknown`. */
export function isReservedKey(key: string | null | undefined): boolean {
  return RESERVED_KEYS.has(lowerTrim(key));
}

/**
 * Canonical key under which a session is stored (OpenClaw toAgentStoreSessionKey plus the
 * gateway's resolveSessionStoreKey rules for reserved keys and main aliases).
 */
export function toStoreKey(input: { agentId: string; requestKey: string; cfg?: MainAliasConfig }): string {
  const { mainKey, alias } = resolveMainAlias(input.cfg);
  const raw = (input.requestKey ?? "").trim();
  const lowered = raw.toLowerCase();
  if (!raw || lowered === DEFAULT_MAIN_KEY || lowered === mainKey || lowered === alias) {
    return mainSessionKey(input.agentId, input.cfg);
  }
  if (RESERVED_KEYS.has(lowered)) return lowered;
  const parsed = parseAgentSessionKey(raw);
  if (parsed) {
    // The gateway folds `agent:<id>:main` onto the configured main key (or "global").
    if (parsed.rest === DEFAULT_MAIN_KEY || parsed.rest === mainKey) {
      return mainSessionKey(parsed.agentId, input.cfg);
    }
    return `agent:${parsed.agentId}:${parsed.rest}`;
  }
  // Malformed agent keys are kept verbatim (lowercased) rather than double-prefixed.
  if (lowered.startsWith("agent:")) return lowered;
  return `agent:${normalizeAgentId(input.agentId)}:${lowered}`;
}

/**
 * Key shown to tools: "main" for the alias, the mainKey or the agent's canonical main key
 * (agentId defaults to "main"); anything else unchanged.
 */
export function toDisplayKey(key: string, cfg?: MainAliasConfig, agentId?: string): string {
  const { mainKey, alias } = resolveMainAlias(cfg);
  if (key === alias || key === mainKey) return "main";
  // Canonical storage means the main session surfaces as agent:<id>:<mainKey>; hide that too.
  if (key === agentMainKey(agentId ?? DEFAULT_AGENT_ID, mainKey)) return "main";
  return key;
}

/** Tool input to key: "current" → requester key, "main" → main session key, else as is. */
export function toInternalKey(
  key: string,
  ctx: { requesterKey?: string; cfg?: MainAliasConfig; agentId?: string },
): string {
  const raw = key.trim();
  if (raw === "current") return nonBlank(ctx.requesterKey) ?? raw;
  if (raw === "main") {
    // OpenClaw returns the bare alias; we resolve it to the canonical key we store under.
    const agentId = ctx.agentId ?? agentIdOf(ctx.requesterKey ?? "", DEFAULT_AGENT_ID);
    return mainSessionKey(agentId, ctx.cfg);
  }
  return raw;
}

/** True for a UUID-shaped (8-4-4-4-12 hex) session id. */
export function looksLikeSessionId(s: string): boolean {
  return SESSION_ID_RE.test(s.trim());
}

/** True for `acp:*` keys, bare or agent-scoped. */
export function isAcpSessionKey(key: string | null | undefined): boolean {
  const raw = lowerTrim(key);
  if (!raw) return false;
  if (raw.startsWith("acp:")) return true;
  return parseAgentSessionKey(raw)?.rest.startsWith("acp:") === true;
}

/** True when the input has a well-known key shape (case-sensitive like OpenClaw, except ACP). */
export function looksLikeSessionKey(s: string): boolean {
  const raw = s.trim();
  if (!raw) return false;
  if (raw === "main" || raw === "global" || raw === "unknown" || raw === "current") return true;
  if (isAcpSessionKey(raw)) return true;
  if (raw.startsWith("agent:") || raw.startsWith("cron:") || raw.startsWith("hook:")) return true;
  if (raw.startsWith("node-") || raw.startsWith("node:")) return true;
  return raw.includes(":group:") || raw.includes(":channel:");
}

/** Whether tool input should be looked up as a sessionId: UUID-like, or not key-like at all. */
export function shouldResolveAsSessionId(s: string): boolean {
  return looksLikeSessionId(s) || !looksLikeSessionKey(s);
}

/** Lowercased key without its `agent:<id>:` prefix (the whole key when not agent-scoped). */
function scopedRest(key: string | null | undefined): string {
  const raw = lowerTrim(key);
  return parseAgentSessionKey(raw)?.rest ?? raw;
}

/** True for cron run keys `[agent:<id>:]cron:<job>:run:<run>`. */
export function isCronRunKey(key: string | null | undefined): boolean {
  return CRON_RUN_RE.test(scopedRest(key));
}

/** Chat type from tokens after the agent prefix: group > channel > direct/dm > legacy Discord. */
export function deriveChatType(key: string | null | undefined): SessionChatType {
  const scoped = scopedRest(key);
  if (!scoped) return "unknown";
  const tokens = new Set(scoped.split(":").filter(Boolean));
  if (tokens.has("group")) return "group";
  if (tokens.has("channel")) return "channel";
  if (tokens.has("direct") || tokens.has("dm")) return "direct";
  if (LEGACY_DISCORD_CHANNEL_RE.test(scoped)) return "channel";
  return "unknown";
}

/**
 * `sessions_list` kind. Mirrors OpenClaw, including its quirk that only the raw prefix is tested
 * for cron/hook/node, so `agent:main:cron:x` is "other". Deliberate addition: any agent's
 * canonical main key `agent:<id>:<mainKey>` is "main", because this service stores canonical
 * keys and would otherwise never report a main row.
 */
export function classifySessionKind(
  key: string,
  ctx: { cfg?: MainAliasConfig; agentId?: string; chatType?: string },
): SessionKind {
  const { mainKey, alias } = resolveMainAlias(ctx.cfg);
  if (key === alias || key === mainKey) return "main";
  const rest = parseAgentSessionKey(key)?.rest;
  if (rest === mainKey) return "main";
  // This service stores agent-qualified keys, so the prefixes are tested after `agent:<id>:`
  // too (OpenClaw tests only the raw key, which would make every stored cron key "other").
  const bare = rest ?? key;
  if (bare.startsWith("cron:")) return "cron";
  if (bare.startsWith("hook:")) return "hook";
  if (bare.startsWith("node-") || bare.startsWith("node:")) return "node";
  // The gateway reports kind "group" for entries whose chatType is group or channel.
  if (ctx.chatType === "group" || ctx.chatType === "channel") return "group";
  if (key.includes(":group:") || key.includes(":channel:")) return "group";
  return "other";
}

/** `<channel>` of a `<channel>:group|channel:<id>` key (agent prefix stripped), if any. */
export function channelFromKey(key: string): string | undefined {
  const [channel, peerKind, peerId] = scopedRest(key).split(":").filter(Boolean);
  if (channel && peerId !== undefined && (peerKind === "group" || peerKind === "channel")) {
    return channel;
  }
  return undefined;
}

/** Row channel: "internal" for cron/hook/node; entry/origin → delivery/last → key → "unknown". */
export function deriveChannel(row: {
  key: string;
  kind: string;
  channel?: string;
  originProvider?: string;
  lastChannel?: string;
  deliveryChannel?: string;
}): string {
  if (INTERNAL_KINDS.has(row.kind)) return "internal";
  return (
    nonBlank(row.channel) ??
    nonBlank(row.originProvider) ??
    nonBlank(row.deliveryChannel) ??
    nonBlank(row.lastChannel) ??
    channelFromKey(row.key) ??
    "unknown"
  );
}

/** Splits the rightmost `:thread:<id>` (else Telegram `:topic:<id>`) suffix off a key. */
export function parseThreadSuffix(key: string): ThreadSuffix {
  const raw = key.trim();
  const lowered = raw.toLowerCase();
  const markers = [
    { marker: ":thread:", kind: "thread" },
    { marker: ":topic:", kind: "topic" },
  ] as const;
  for (const { marker, kind } of markers) {
    const index = lowered.lastIndexOf(marker);
    // A suffix needs a non-empty base before it and a non-empty id after it.
    if (index <= 0) continue;
    const threadId = raw.slice(index + marker.length).trim();
    if (!threadId) continue;
    return { baseKey: raw.slice(0, index), threadId, kind };
  }
  return { baseKey: raw };
}

/** Subagent nesting depth: number of `:subagent:` segments in the key. */
export function subagentDepth(key: string | null | undefined): number {
  const raw = lowerTrim(key);
  return raw ? raw.split(":subagent:").length - 1 : 0;
}

/** Agent id of an agent-scoped key, else the (normalized) fallback, else "main". */
export function agentIdOf(key: string, fallbackAgentId?: string): string {
  const parsed = parseAgentSessionKey(key);
  return normalizeAgentId(parsed?.agentId ?? fallbackAgentId ?? DEFAULT_AGENT_ID);
}
