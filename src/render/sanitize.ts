import type { StoredMessage } from "../model/message-record";
import { SILENT_REPLY } from "../protocol/silent-reply";
import { redactSecrets } from "./redact";

/**
 * Pure display/tool sanitizers for transcript messages (no I/O, no Cloudflare APIs).
 *
 * - `sanitizeChatHistory` mirrors OpenClaw's `chat.history` rules
 *   (openclaw src/gateway/server-methods/chat.ts; spec §2.7 steps 2–5).
 * - `sanitizeToolHistory` mirrors the `sessions_history` agent tool
 *   (openclaw src/agents/tools/sessions-history-tool.ts; spec §4.5).
 * - Secrets in tool-visible text are masked by `redactSecrets` (./redact.ts).
 *
 * Inputs are never mutated: every changed message/block is a fresh shallow copy.
 */

type Block = Record<string, unknown>;

/** Options for `sanitizeChatHistory`. `maxBytes`: the client's cap on the messages' JSON (chat.history's maxBytes); the oldest go first. */
export type ChatHistoryOptions = { maxChars?: number; budgetBytes?: number; maxBytes?: number };

/** Options for `sanitizeToolHistory`. */
export type ToolHistoryOptions = { includeTools?: boolean };

/** Result of `sanitizeToolHistory` (the sessions_history payload minus sessionKey). */
export type ToolHistoryResult = {
  messages: StoredMessage[];
  truncated: boolean;
  droppedMessages: number;
  contentTruncated: boolean;
  contentRedacted: boolean;
  bytes: number;
};

// ---------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------

export const CHAT_HISTORY_TEXT_MAX_CHARS = 12_000;
export const CHAT_HISTORY_TRUNCATION_SUFFIX = "\n...(truncated)...";
export const CHAT_HISTORY_MAX_SINGLE_MESSAGE_BYTES = 128 * 1024;
export const CHAT_HISTORY_BUDGET_BYTES = 6 * 1024 * 1024;
export const CHAT_HISTORY_OVERSIZED_TEXT = "[chat.history omitted: message too large]";

export const SESSIONS_HISTORY_TEXT_MAX_CHARS = 4000;
export const SESSIONS_HISTORY_TRUNCATION_SUFFIX = "\n…(truncated)…";
export const SESSIONS_HISTORY_MAX_BYTES = 80 * 1024;
export const SESSIONS_HISTORY_OVERSIZED_TEXT = "[sessions_history omitted: message too large]";

/** Assistant usage keys that survive chat.history (numeric, finite only). */
const CHAT_HISTORY_USAGE_KEYS = [
  "input",
  "output",
  "totalTokens",
  "inputTokens",
  "outputTokens",
  "cacheRead",
  "cacheWrite",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
] as const;

const TOOL_ROLES = new Set(["toolResult", "tool"]);

// ---------------------------------------------------------------------------
// Small shared helpers
// ---------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** UTF-8 byte length of a string, without allocating an encoded copy. */
function stringUtf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3; // BMP char, or a lone surrogate (encoded as U+FFFD)
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** UTF-8 byte length of `JSON.stringify(value)` (falls back to `String(value)`). */
export function utf8Bytes(value: unknown): number {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = undefined; // circular / BigInt: measure the plain string form instead
  }
  return stringUtf8Bytes(json ?? String(value));
}

/** Cuts to at most `maxChars` UTF-16 units without splitting a surrogate pair. */
function truncateUtf16Safe(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const last = text.charCodeAt(maxChars - 1);
  const cut = last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars;
  return text.slice(0, cut);
}

type TextResult = { text: string; truncated: boolean };

function truncateWithSuffix(text: string, maxChars: number, suffix: string): TextResult {
  if (text.length <= maxChars) return { text, truncated: false };
  return { text: `${truncateUtf16Safe(text, maxChars)}${suffix}`, truncated: true };
}

/** Decoded size of base64 (or a base64 data: URL) without decoding it. */
function base64DecodedBytes(data: string): number {
  const payload = data.replace(/^data:[^,]*;base64,/i, "").replace(/\s+/g, "");
  if (!payload) return 0;
  const padding = payload.endsWith("==") ? 2 : payload.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((payload.length * 3) / 4) - padding);
}

/** Replaces an image block's inline `data` with `omitted` + decoded `bytes`. */
function omitImageData(block: Block): boolean {
  if (block.type !== "image" || !("data" in block)) return false;
  const data = block.data;
  delete block.data;
  block.omitted = true;
  if (typeof data === "string") block.bytes = base64DecodedBytes(data);
  return true;
}

/** Drops messages whose role is `toolResult` or `tool`. */
export function filterToolMessages<T extends { role?: unknown }>(messages: readonly T[]): T[] {
  return messages.filter((message) => !TOOL_ROLES.has(String(message.role)));
}

/**
 * Keeps the newest suffix of `items` whose JSON array size fits `maxBytes`
 * (always keeps at least one item); `bytes` is the resulting array size.
 */
function capArrayByJsonBytes<T>(items: T[], maxBytes: number): { items: T[]; bytes: number } {
  if (items.length === 0) return { items, bytes: 2 };
  const sizes = items.map((item) => utf8Bytes(item));
  // "[" + "]" + one comma between each pair of items.
  let bytes = 2 + sizes.reduce((sum, size) => sum + size, 0) + (items.length - 1);
  let start = 0;
  while (bytes > maxBytes && start < items.length - 1) {
    bytes -= (sizes[start] ?? 0) + 1;
    start++;
  }
  return { items: start > 0 ? items.slice(start) : items, bytes };
}

// ---------------------------------------------------------------------------
// Inline directive tags (openclaw src/utils/directive-tags.ts)
// ---------------------------------------------------------------------------

// [[audio_as_voice]] is stripped anywhere; reply tags ([[reply_to_current]],
// [[reply_to: <id>]]) only at start of text/line or after whitespace, so
// "[[" in the middle of a URL or word is left alone. Case-insensitive and
// tolerant of inner whitespace like upstream.
const AUDIO_TAG_RE = /\[\[\s*audio_as_voice\s*\]\]/gi;
const REPLY_TAG_RE = /(?<=^|\s)\[\[\s*(?:reply_to_current|reply_to\s*:\s*[^\]\n]+)\s*\]\]/gi;

/** Removes chat-delivery directive tags that should never be displayed. */
export function stripDirectiveTags(text: string): string {
  if (!text.includes("[[")) return text;
  return text.replace(AUDIO_TAG_RE, "").replace(REPLY_TAG_RE, "");
}

// ---------------------------------------------------------------------------
// chat.history
// ---------------------------------------------------------------------------

type ChatTextLimits = { maxChars: number };

function chatTruncate(text: string, limits: ChatTextLimits): string {
  return truncateWithSuffix(text, limits.maxChars, CHAT_HISTORY_TRUNCATION_SUFFIX).text;
}

/** Directive tags are stripped before truncation so the cut sees display text. */
function chatDisplayText(text: string, limits: ChatTextLimits): string {
  return chatTruncate(stripDirectiveTags(text), limits);
}

function sanitizeChatBlock(block: unknown, limits: ChatTextLimits): unknown {
  if (!isRecord(block)) return block;
  const next: Block = { ...block };
  if (typeof next.text === "string") next.text = chatDisplayText(next.text, limits);
  for (const key of ["partialJson", "arguments", "thinking"] as const) {
    const value = next[key];
    if (typeof value === "string") next[key] = chatTruncate(value, limits);
  }
  // Encrypted reasoning signatures are large and useless to a viewer.
  delete next.thinkingSignature;
  omitImageData(next);
  return next;
}

function pickUsage(usage: unknown): Record<string, unknown> | undefined {
  if (!isRecord(usage)) return undefined;
  const kept: Record<string, unknown> = {};
  for (const key of CHAT_HISTORY_USAGE_KEYS) {
    if (isFiniteNumber(usage[key])) kept[key] = usage[key];
  }
  const cost = pickCost(usage.cost);
  if (cost) kept.cost = cost;
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/** Only `cost.total` is shown; per-bucket pricing stays server-side. */
function pickCost(cost: unknown): { total: number } | undefined {
  return isRecord(cost) && isFiniteNumber(cost.total) ? { total: cost.total } : undefined;
}

function sanitizeChatUsage(next: Record<string, unknown>): void {
  const assistant = next.role === "assistant";
  const usage = assistant ? pickUsage(next.usage) : undefined;
  const cost = assistant ? pickCost(next.cost) : undefined;
  delete next.usage;
  delete next.cost;
  if (usage) next.usage = usage;
  if (cost) next.cost = cost;
}

function sanitizeChatMessage(message: StoredMessage, limits: ChatTextLimits): StoredMessage {
  const next: StoredMessage = { ...message };
  // Tool-result details can be huge nested payloads; the UI never shows them.
  delete next.details;
  sanitizeChatUsage(next);
  if (typeof next.content === "string") {
    next.content = chatDisplayText(next.content, limits);
  } else if (Array.isArray(next.content)) {
    next.content = next.content.map((block) => sanitizeChatBlock(block, limits));
  }
  if (typeof next.text === "string") next.text = chatDisplayText(next.text, limits);
  return next;
}

/**
 * Visible assistant text for the silent-token check: `text` wins over
 * `content`; block content counts only when every block is a text block.
 */
function assistantVisibleText(message: StoredMessage): string | undefined {
  if (message.role !== "assistant") return undefined;
  if (typeof message.text === "string") return message.text;
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const texts: string[] = [];
  for (const block of content) {
    if (!isRecord(block) || block.type !== "text" || typeof block.text !== "string") {
      return undefined;
    }
    texts.push(block.text);
  }
  return texts.join("\n");
}

function isSilentAssistantReply(message: StoredMessage): boolean {
  const text = assistantVisibleText(message);
  return text !== undefined && text.trim() === SILENT_REPLY;
}

function buildChatPlaceholder(message: StoredMessage | undefined): StoredMessage {
  const meta = isRecord(message?.__openclaw) ? message.__openclaw : {};
  const placeholder: StoredMessage = { role: message?.role ?? "assistant" };
  // Upstream falls back to Date.now(); this module stays pure, so a missing
  // timestamp is simply left out.
  if (message && "timestamp" in message) placeholder.timestamp = message.timestamp;
  placeholder.content = [{ type: "text", text: CHAT_HISTORY_OVERSIZED_TEXT }];
  placeholder.__openclaw = { ...meta, truncated: true, reason: "oversized" };
  return placeholder;
}

function replaceOversized(messages: StoredMessage[], maxBytes: number): StoredMessage[] {
  return messages.map((m) => (utf8Bytes(m) > maxBytes ? buildChatPlaceholder(m) : m));
}

/** Final guard: whole array, else the newest message, else its placeholder. */
function enforceChatBudget(messages: StoredMessage[], budgetBytes: number): StoredMessage[] {
  if (messages.length === 0 || utf8Bytes(messages) <= budgetBytes) return messages;
  const last = messages.at(-1);
  if (last && utf8Bytes([last]) <= budgetBytes) return [last];
  const placeholder = buildChatPlaceholder(last);
  return utf8Bytes([placeholder]) <= budgetBytes ? [placeholder] : [];
}

function positiveIntOr(value: number | undefined, fallback: number): number {
  return isFiniteNumber(value) && value >= 1 ? Math.floor(value) : fallback;
}

/** Applies chat.history display rules (spec §2.7 steps 2–5) to transcript messages. */
export function sanitizeChatHistory(messages: StoredMessage[], opts: ChatHistoryOptions = {}): StoredMessage[] {
  const limits = { maxChars: positiveIntOr(opts.maxChars, CHAT_HISTORY_TEXT_MAX_CHARS) };
  const budgetBytes = positiveIntOr(opts.budgetBytes, CHAT_HISTORY_BUDGET_BYTES);
  const singleMax = Math.min(CHAT_HISTORY_MAX_SINGLE_MESSAGE_BYTES, budgetBytes);

  const visible = messages
    .map((message) => sanitizeChatMessage(message, limits))
    .filter((message) => !isSilentAssistantReply(message));
  const bounded = replaceOversized(visible, singleMax);
  const capBytes = Math.min(budgetBytes, positiveIntOr(opts.maxBytes, budgetBytes));
  const capped = capArrayByJsonBytes(bounded, capBytes).items;
  return enforceChatBudget(capped, budgetBytes);
}

// ---------------------------------------------------------------------------
// sessions_history
// ---------------------------------------------------------------------------

/** Per-message sanitize outcome; `truncated` also covers removed fields. */
type ToolSanitizeState = { truncated: boolean; redacted: boolean };

/** Redacts first, so truncation can never leave half a secret visible. */
function toolText(text: string, state: ToolSanitizeState): string {
  const redaction = redactSecrets(text);
  const cut = truncateWithSuffix(redaction.text, SESSIONS_HISTORY_TEXT_MAX_CHARS, SESSIONS_HISTORY_TRUNCATION_SUFFIX);
  state.redacted ||= redaction.redacted;
  state.truncated ||= cut.truncated;
  return cut.text;
}

function deleteKeys(target: Record<string, unknown>, keys: readonly string[], state: ToolSanitizeState): void {
  for (const key of keys) {
    if (key in target) {
      delete target[key];
      state.truncated = true;
    }
  }
}

function sanitizeToolBlock(block: unknown, state: ToolSanitizeState): unknown {
  if (!isRecord(block)) return block;
  const next: Block = { ...block };
  for (const key of ["text", "thinking", "partialJson"] as const) {
    const value = next[key];
    if (typeof value === "string") next[key] = toolText(value, state);
  }
  // Signatures and replay blobs are opaque and can be very large.
  deleteKeys(next, ["thinkingSignature", "openclawReasoningReplay"], state);
  if (omitImageData(next)) state.truncated = true;
  return next;
}

function sanitizeToolMessage(message: StoredMessage, state: ToolSanitizeState): StoredMessage {
  const next: StoredMessage = { ...message };
  deleteKeys(next, ["details", "usage", "cost"], state);
  if (typeof next.content === "string") {
    next.content = toolText(next.content, state);
  } else if (Array.isArray(next.content)) {
    next.content = next.content.map((block) => sanitizeToolBlock(block, state));
  }
  if (typeof next.text === "string") next.text = toolText(next.text, state);
  return next;
}

function buildToolPlaceholder(): StoredMessage {
  return { role: "assistant", content: SESSIONS_HISTORY_OVERSIZED_TEXT };
}

/**
 * Applies sessions_history tool rules (spec §4.5): tool filtering, redaction,
 * 4000-char text cap and an 80 KiB byte cap keeping the newest messages.
 */
export function sanitizeToolHistory(messages: StoredMessage[], opts: ToolHistoryOptions = {}): ToolHistoryResult {
  const selected = opts.includeTools ? messages : filterToolMessages(messages);
  const state: ToolSanitizeState = { truncated: false, redacted: false };
  const sanitized = selected.map((message) => sanitizeToolMessage(message, state));

  const capped = capArrayByJsonBytes(sanitized, SESSIONS_HISTORY_MAX_BYTES);
  let kept = capped.items;
  let bytes = capped.bytes;
  let keptReal = kept.length;
  if (bytes > SESSIONS_HISTORY_MAX_BYTES) {
    // Only the newest message is left and it alone is over the cap.
    kept = [buildToolPlaceholder()];
    bytes = utf8Bytes(kept);
    keptReal = 0;
  }

  const droppedMessages = selected.length - keptReal;
  return {
    messages: kept,
    truncated: droppedMessages > 0 || state.truncated,
    droppedMessages,
    contentTruncated: state.truncated,
    contentRedacted: state.redacted,
    bytes,
  };
}
