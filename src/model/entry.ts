import { deriveChatType } from "../keys/session-key";
import type { SessionEntry, SessionPatch, SessionSeed, TranscriptMessage } from "../protocol/session";
import { dropUndefined } from "../util/encoding";
import { messagePreview } from "./session-row";

/** Pure rules of the session entry: creation, appends, usage counters, patches, resets. */

/** A new entry for a key, seeded by the first message's origin and delivery fields. */
export function newEntry(
  ref: { key: string; agentId: string },
  seed: SessionSeed | undefined,
  now: number,
): SessionEntry {
  const delivery = seed?.deliveryContext;
  const chatType = seed?.chatType ?? knownChatType(deriveChatType(ref.key));
  return dropUndefined({
    key: ref.key,
    agentId: ref.agentId,
    sessionId: crypto.randomUUID(),
    createdAt: now,
    updatedAt: now,
    label: seed?.label,
    displayName: seed?.displayName,
    subject: seed?.subject,
    space: seed?.space,
    channel: seed?.channel ?? seed?.origin?.provider ?? delivery?.channel,
    chatType,
    origin: seed?.origin,
    deliveryContext: delivery,
    lastChannel: delivery?.channel,
    lastTo: delivery?.to,
    lastAccountId: delivery?.accountId,
    lastThreadId: delivery?.threadId,
    systemSent: false,
    abortedLastRun: false,
    messageCount: 0,
  });
}

/**
 * A chat message's route becomes the session's last route (deliveryContext, lastChannel/To/ThreadId);
 * with the turn's row fields the row follows the user as OpenClaw's does: `channel`, `displayName`,
 * `origin` and `subject` become the last route's (the main session's user moving from Telegram to Slack).
 */
export function withRoute(
  entry: SessionEntry,
  route: { channel: string; to: string; accountId?: string; threadId?: string | number } | undefined,
  rowFields?: RouteRowFields,
): SessionEntry {
  if (!route) return entry;
  return dropUndefined({
    ...entry,
    ...(rowFields ? dropUndefined({ ...rowFields }) : {}),
    channel: route.channel,
    deliveryContext: dropUndefined({ ...route }),
    lastChannel: route.channel,
    lastTo: route.to,
    lastAccountId: route.accountId ?? entry.lastAccountId,
    lastThreadId: route.threadId,
  });
}

/** The row fields a chat turn carries with its route (each channel's context.ts). */
export type RouteRowFields = Pick<SessionSeed, "displayName" | "origin" | "subject" | "space">;

/** Inbound user messages carry the latest delivery route. */
export function withDelivery(
  entry: SessionEntry,
  messages: TranscriptMessage[],
  seed: SessionSeed | undefined,
): SessionEntry {
  const delivery = seed?.deliveryContext;
  if (!delivery || !messages.some((m) => m.role === "user")) return entry;
  return dropUndefined({
    ...entry,
    deliveryContext: delivery,
    lastChannel: delivery.channel ?? entry.lastChannel,
    lastTo: delivery.to ?? entry.lastTo,
    lastAccountId: delivery.accountId ?? entry.lastAccountId,
    lastThreadId: delivery.threadId ?? entry.lastThreadId,
  });
}

export function applyAppend(entry: SessionEntry, message: TranscriptMessage, seq: number, now: number): SessionEntry {
  const next: SessionEntry = {
    ...entry,
    messageCount: seq,
    updatedAt: Math.max(now, entry.updatedAt),
    lastInteractionAt: Math.max(now, entry.lastInteractionAt ?? 0),
    lastMessagePreview: messagePreview(message.content) ?? entry.lastMessagePreview,
  };
  return addUsage(next, message);
}

/** Assistant usage feeds the session's token counters. */
function addUsage(entry: SessionEntry, message: TranscriptMessage): SessionEntry {
  if (message.role !== "assistant" || !message.usage) return entry;
  const usage = message.usage;
  const input = finite(usage.input) ?? finite(usage.inputTokens) ?? 0;
  const output = finite(usage.output) ?? finite(usage.outputTokens) ?? 0;
  const total = finite(usage.totalTokens) ?? input + output;
  const cost = finite((usage.cost as { total?: unknown } | undefined)?.total);
  return {
    ...entry,
    inputTokens: (entry.inputTokens ?? 0) + input,
    outputTokens: (entry.outputTokens ?? 0) + output,
    totalTokens: (entry.totalTokens ?? 0) + total,
    ...(cost !== undefined ? { estimatedCostUsd: (entry.estimatedCostUsd ?? 0) + cost } : {}),
  };
}

export function applyPatch(entry: SessionEntry, patch: SessionPatch, now: number): SessionEntry {
  const next: Record<string, unknown> = { ...entry, updatedAt: Math.max(now, entry.updatedAt) };
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete next[field];
    else next[field] = value;
  }
  // A model override without a provider must not keep a stale provider (OpenClaw's merge rule).
  if (patch.model !== undefined) delete next.modelProvider;
  return next as SessionEntry;
}

/** A `sessions.patch` (`parentSessionKey` set in the same change, so watchers hear one event). */
export function patchedEntry(
  entry: SessionEntry,
  patch: SessionPatch,
  parentSessionKey: string | undefined,
  now: number,
): SessionEntry {
  const patched = applyPatch(entry, patch, now);
  return parentSessionKey !== undefined ? { ...patched, parentSessionKey } : patched;
}

export function resetEntry(previous: SessionEntry, now: number): SessionEntry {
  const {
    inputTokens: _i,
    outputTokens: _o,
    totalTokens: _t,
    estimatedCostUsd: _c,
    status: _s,
    startedAt: _sa,
    endedAt: _ea,
    runtimeMs: _r,
    lastMessagePreview: _p,
    ...kept
  } = previous;
  return {
    ...kept,
    sessionId: crypto.randomUUID(),
    updatedAt: Math.max(now, previous.updatedAt),
    messageCount: 0,
    systemSent: false,
    abortedLastRun: false,
  };
}

function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function knownChatType(value: string): SessionEntry["chatType"] {
  return value === "direct" || value === "group" || value === "channel" ? value : undefined;
}
