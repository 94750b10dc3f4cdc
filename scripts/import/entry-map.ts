/**
 * Maps a source `sessions.list` row to the entry fields the target keeps (the import page's
 * `entry`), and names the row's fields that have no equivalent there. Pure.
 */

export type ImportEntry = Record<string, unknown>;

export type MappedRow = {
  key: string;
  sessionId: string;
  updatedAt: number | undefined;
  entry: ImportEntry;
  /** Source fields (with a value) that the target has no place for, or whose value it cannot take. */
  unmapped: string[];
};

/** Strings the target keeps, with its length limits. */
const STRINGS: Record<string, number> = {
  label: 512,
  displayName: 512,
  channel: 64,
  lastChannel: 64,
  lastTo: 512,
  lastAccountId: 256,
  model: 256,
  modelProvider: 128,
  thinkingLevel: 32,
  verboseLevel: 32,
  reasoningLevel: 32,
  elevatedLevel: 32,
  execHost: 256,
  execSecurity: 64,
  execAsk: 64,
  execNode: 256,
  spawnedWorkspaceDir: 1024,
  spawnedBy: 512,
  parentSessionKey: 512,
};
const NUMBERS = [
  "createdAt",
  "updatedAt",
  "contextTokens",
  "inputTokens",
  "outputTokens",
  "totalTokens",
  "estimatedCostUsd",
  "startedAt",
  "endedAt",
  "runtimeMs",
  "archivedAt",
  "lastInteractionAt",
  "lastReadAt",
  "markedUnreadAt",
  "pinnedAt",
];
const BOOLEANS = ["fastMode", "systemSent", "abortedLastRun", "sandboxed"];
const ENUMS: Record<string, readonly string[]> = {
  chatType: ["direct", "group", "channel"],
  responseUsage: ["on", "off", "tokens", "full"],
  groupActivation: ["mention", "always"],
  sendPolicy: ["allow", "deny"],
  subagentRole: ["orchestrator", "leaf"],
  subagentControlScope: ["children", "none"],
  // "running" is left out: no run of the source continues here, and a running sub-agent
  // would count as an active child forever. A rerun after it ends brings the final status.
  status: ["done", "failed", "killed", "timeout"],
};
const ROUTE_FIELDS: Record<string, Record<string, number>> = {
  deliveryContext: { channel: 64, to: 512, accountId: 256 },
  origin: { label: 512, provider: 64, surface: 64, chatType: 32, from: 512, to: 512, accountId: 256 },
};
/** Row fields the target derives itself (or that identify the row). */
const DERIVED = new Set([
  "key",
  "sessionId",
  "agentId",
  "kind",
  "messageCount",
  "lastMessagePreview",
  "childSessions",
  // The real gateway's projections of the fields above.
  "archived",
  "unread",
  "classification",
  "isMain",
]);

/** The row's mapping, or null when it names no session (no key or no transcript id). */
export function mapRow(row: Record<string, unknown>): MappedRow | null {
  const key = row.key;
  const sessionId = row.sessionId;
  if (typeof key !== "string" || key.trim() === "" || typeof sessionId !== "string" || sessionId === "") return null;
  const entry: ImportEntry = {};
  const unmapped: string[] = [];
  for (const [field, value] of Object.entries(row)) {
    if (value === null || value === undefined || DERIVED.has(field)) continue;
    const mapped = mapField(field, value);
    if (mapped === undefined)
      unmapped.push(field in STRINGS || isKnown(field) ? `${field} (value not accepted)` : field);
    else entry[field] = mapped;
  }
  const updatedAt = typeof entry.updatedAt === "number" ? entry.updatedAt : undefined;
  return { key, sessionId, updatedAt, entry, unmapped };
}

function isKnown(field: string): boolean {
  return (
    NUMBERS.includes(field) ||
    BOOLEANS.includes(field) ||
    field in ENUMS ||
    field in ROUTE_FIELDS ||
    field === "spawnDepth" ||
    field === "lastThreadId"
  );
}

function mapField(field: string, value: unknown): unknown {
  const maxChars = STRINGS[field];
  if (maxChars !== undefined) return boundedString(value, maxChars);
  if (NUMBERS.includes(field))
    return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
  if (BOOLEANS.includes(field)) return typeof value === "boolean" ? value : undefined;
  const allowed = ENUMS[field];
  if (allowed) return typeof value === "string" && allowed.includes(value) ? value : undefined;
  if (field === "spawnDepth")
    return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 10 ? value : undefined;
  if (field === "lastThreadId") return threadId(value);
  const shape = ROUTE_FIELDS[field];
  if (shape) return route(value, shape);
  return undefined;
}

function boundedString(value: unknown, maxChars: number): string | undefined {
  return typeof value === "string" && value.length > 0 && value.length <= maxChars ? value : undefined;
}

function threadId(value: unknown): string | number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  return boundedString(value, 256);
}

/** A delivery route or origin with the fields the target knows (others are dropped). */
function route(value: unknown, shape: Record<string, number>): Record<string, unknown> | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const source = value as Record<string, unknown>;
  const kept: Record<string, unknown> = {};
  for (const [name, maxChars] of Object.entries(shape)) {
    const text = boundedString(source[name], maxChars);
    if (text !== undefined) kept[name] = text;
  }
  const thread = threadId(source.threadId);
  if (thread !== undefined) kept.threadId = thread;
  return Object.keys(kept).length > 0 ? kept : undefined;
}
