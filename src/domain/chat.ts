import { HISTORY_READ_MAX_BYTES } from "../contracts/session-api";
import { isValidAgentId, parseAgentSessionKey } from "../keys/session-key";
import { tooLargeMessage } from "../model/message-limits";
import { parseMessage } from "../model/message-record";
import { messagePreview } from "../model/session-row";
import { defaultAgentId } from "../policy/agent-config";
import type { TranscriptMessage } from "../protocol/session";
import { sanitizeChatHistory } from "../render/sanitize";
import { splitPreToolText, toolActivity } from "../render/tool-activity";
import type { TenantContext } from "./context";
import { DomainError } from "./errors";
import { agentIdParam, canonicalKey, sessionRef } from "./keys";
import { chatSend } from "./runs";
import { patchSession } from "./session-index";

/** chat.history / chat.inject / sessions.preview / sessions.create (gateway methods). */

const CHAT_HISTORY_DEFAULT_LIMIT = 200;
const CHAT_HISTORY_MAX_LIMIT = 1000;

/**
 * OpenClaw's chat.history: the newest `limit` messages, display-sanitized. `offset` pages
 * backwards (it counts messages from the newest); `nextOffset` is the next page's offset.
 */
export async function chatHistory(
  ctx: TenantContext<"index">,
  params: { sessionKey: string; limit?: number; maxChars?: number; maxBytes?: number; offset?: number },
) {
  const key = canonicalKey(ctx, params.sessionKey);
  const limit = Math.min(CHAT_HISTORY_MAX_LIMIT, params.limit ?? CHAT_HISTORY_DEFAULT_LIMIT);
  const stub = ctx.sessions(key);
  const offset = params.offset ?? 0;
  // An offset needs the message count first; the newest page does not.
  const entry = offset > 0 ? await stub.entry() : undefined;
  const total = entry?.messageCount ?? 0;
  const [page, current] = await Promise.all([
    offset > 0 && offset >= total
      ? null
      : stub.read({
          direction: "tail",
          limit,
          includeTools: true,
          // chat.history's own budget (6 MiB) applies after.
          maxBytes: HISTORY_READ_MAX_BYTES,
          ...(offset > 0 ? { cursorSeq: total - offset + 1 } : {}),
        }),
    entry === undefined ? stub.entry() : entry,
  ]);
  const raw = (page?.messages ?? []).map(parseMessage);
  // maxBytes drops the oldest messages that do not fit (the newest one always stays).
  const messages = splitPreToolText(
    sanitizeChatHistory(raw, {
      ...(params.maxChars !== undefined ? { maxChars: params.maxChars } : {}),
      ...(params.maxBytes !== undefined ? { maxBytes: params.maxBytes } : {}),
    }),
  );
  const totalMessages = offset > 0 ? total : (current?.messageCount ?? 0);
  // The oldest message shown (or read, when sanitizing hid them all) is where the next page ends.
  const oldestSeq = seqOf(messages[0]) ?? page?.messages[0]?.seq;
  const nextOffset = oldestSeq === undefined ? totalMessages : totalMessages - oldestSeq + 1;
  const hasMore = nextOffset < totalMessages;
  return {
    sessionKey: params.sessionKey,
    ...(current ? { sessionId: current.sessionId } : {}),
    messages,
    activity: toolActivity(messages),
    ...(params.offset !== undefined ? { offset: params.offset } : {}),
    hasMore,
    ...(hasMore ? { nextOffset } : {}),
    totalMessages,
    thinkingLevel: current?.thinkingLevel,
    fastMode: current?.fastMode,
    verboseLevel: current?.verboseLevel,
  };
}

const SESSIONS_GET_DEFAULT_LIMIT = 200;
/** The real gateway has no upper bound; one answer stays within a frame here. */
const SESSIONS_GET_MAX_LIMIT = 1000;

/**
 * OpenClaw's `sessions.get` (the MCP bridge's `messages_read`): the newest `limit` transcript
 * messages as stored, each with `__openclaw`; none for a session that does not exist.
 * Its params are not schema-checked by the real gateway, so they are read leniently here.
 */
export async function sessionMessages(
  ctx: TenantContext<"index">,
  params: { key?: unknown; sessionKey?: unknown; limit?: unknown; agentId?: unknown },
): Promise<{ messages: Record<string, unknown>[] }> {
  const rawKey = keyText(params.key ?? params.sessionKey);
  if (!rawKey) throw new DomainError("invalid", "key required");
  const agentId = typeof params.agentId === "string" && params.agentId.trim() ? params.agentId : undefined;
  const key = canonicalKey(ctx, rawKey, agentId !== undefined ? agentIdParam(agentId) : undefined);
  const asked =
    typeof params.limit === "number" && Number.isFinite(params.limit)
      ? Math.max(1, Math.floor(params.limit))
      : SESSIONS_GET_DEFAULT_LIMIT;
  const page = await ctx.sessions(key).read({
    direction: "tail",
    limit: Math.min(asked, SESSIONS_GET_MAX_LIMIT),
    includeTools: true,
    maxBytes: HISTORY_READ_MAX_BYTES,
  });
  return { messages: (page?.messages ?? []).map(parseMessage) };
}

function keyText(value: unknown): string {
  if (typeof value === "string") return value.trim();
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  return "";
}

function seqOf(message: Record<string, unknown> | undefined): number | undefined {
  const meta = message?.__openclaw as { seq?: unknown } | undefined;
  return typeof meta?.seq === "number" ? meta.seq : undefined;
}

/** Appends an assistant message without a model call (OpenClaw's gateway-injected shape). */
export async function chatInject(
  ctx: TenantContext<never>,
  params: { sessionKey: string; message: string; label?: string },
) {
  const text = params.label ? `[${params.label}]\n\n${params.message}` : params.message;
  const message: TranscriptMessage = {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-responses",
    provider: "openclaw",
    model: "gateway-injected",
    stopReason: "stop",
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    timestamp: Date.now(),
  };
  const key = canonicalKey(ctx, params.sessionKey);
  const result = await ctx.sessions(key).inject(sessionRef(ctx, key), message);
  if ("rejected" in result) throw new DomainError("too_large", tooLargeMessage(result));
  const appended = result.appended[0]!;
  return { ok: true, messageId: appended.messageId, messageSeq: appended.seq };
}

const PREVIEW_MAX_KEYS = 64;
/** Previews are small: bounded items, characters and bytes read per session. */
const PREVIEW_MAX_ITEMS = 100;
const PREVIEW_MAX_CHARS = 4000;
const PREVIEW_READ_BYTES = 256 * 1024;

export async function sessionsPreview(
  ctx: TenantContext<never>,
  params: { keys: string[]; limit?: number; maxChars?: number },
) {
  const limit = Math.min(PREVIEW_MAX_ITEMS, params.limit ?? 12);
  const maxChars = Math.min(PREVIEW_MAX_CHARS, params.maxChars ?? 240);
  const previews = await Promise.all(
    params.keys.slice(0, PREVIEW_MAX_KEYS).map(async (rawKey) => {
      try {
        const key = canonicalKey(ctx, rawKey);
        const page = await ctx.sessions(key).read({
          direction: "tail",
          limit,
          includeTools: false,
          maxBytes: PREVIEW_READ_BYTES,
        });
        if (!page) return { key: rawKey, status: "missing" as const, items: [] };
        const items = page.messages.map((m) => {
          const message = JSON.parse(m.json) as { role: string; content: unknown };
          return { role: message.role, text: messagePreview(message.content, maxChars) ?? "" };
        });
        return { key: rawKey, status: items.length ? ("ok" as const) : ("empty" as const), items };
      } catch {
        return { key: rawKey, status: "error" as const, items: [] };
      }
    }),
  );
  return { ts: Date.now(), previews };
}

/**
 * sessions.create: a new session (default key `agent:<agentId>:dashboard:<uuid>`), with an
 * optional parent, label and model; an initial `task`/`message` starts its first turn.
 */
export async function sessionsCreate(
  ctx: TenantContext<"index" | "runs">,
  params: {
    key?: string;
    agentId?: string;
    label?: string;
    model?: string;
    parentSessionKey?: string;
    task?: string;
    message?: string;
    fork?: boolean;
  },
) {
  // A forked child would start empty here: refused rather than answered ok with nothing copied.
  if (params.fork) {
    throw new DomainError("invalid", "fork is not available on this gateway: create the session without fork");
  }
  if (params.agentId !== undefined && !isValidAgentId(params.agentId)) {
    throw new DomainError("invalid", `unknown agent id "${params.agentId}"`);
  }
  const agentId = params.agentId !== undefined ? agentIdParam(params.agentId) : defaultAgentId(ctx.config);
  const key =
    params.key !== undefined
      ? canonicalKey(ctx, params.key, agentId)
      : `agent:${agentId}:dashboard:${crypto.randomUUID()}`;
  const keyAgent = parseAgentSessionKey(key)?.agentId;
  if (params.agentId !== undefined && keyAgent !== undefined && keyAgent !== agentId) {
    throw new DomainError("invalid", `session key agent "${keyAgent}" does not match agentId "${agentId}"`);
  }
  let parentSessionKey: string | undefined;
  if (params.parentSessionKey !== undefined) {
    parentSessionKey = canonicalKey(ctx, params.parentSessionKey);
    if (!(await ctx.tenant.session(parentSessionKey))) {
      throw new DomainError("invalid", `unknown parent session: ${params.parentSessionKey}`);
    }
  }
  const patched = await patchSession(
    ctx,
    key,
    {
      ...(params.label !== undefined ? { label: params.label } : {}),
      ...(params.model !== undefined ? { model: params.model } : {}),
    },
    { reason: "create", ...(parentSessionKey !== undefined ? { parentSessionKey } : {}) },
  );
  const entry = patched.entry;
  const text = params.message ?? params.task;
  if (text === undefined || text.trim() === "")
    return { ok: true, key, sessionId: entry.sessionId, entry, runStarted: false };
  // With a task or message the new session's first turn starts right away (chat.send).
  try {
    const { payload: run } = await chatSend(ctx, {
      sessionKey: key,
      message: text,
      idempotencyKey: crypto.randomUUID(),
    });
    return { ok: true, key, sessionId: entry.sessionId, entry, runStarted: run.status === "started", ...run };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { ok: true, key, sessionId: entry.sessionId, entry, runStarted: false, runError: error.message };
  }
}
