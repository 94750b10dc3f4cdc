import { classifySessionKind, isCronRunKey, type MainAliasConfig, type SessionKind } from "../keys/session-key";
import type { SessionEntry } from "../protocol/session";

/**
 * The session row that lists, events and the session index carry: OpenClaw's gateway row
 * (`buildGatewaySessionRow`) for the entry fields this service has.
 */
export type SessionRow = Omit<SessionEntry, "createdAt"> & {
  kind: "direct" | "group" | "global" | "unknown";
  childSessions?: string[];
};

/** OpenClaw's gateway kind: group when the chat type or the key says so. */
export function gatewayKind(entry: Pick<SessionEntry, "key" | "chatType">): SessionRow["kind"] {
  if (entry.key === "global") return "global";
  if (entry.key === "unknown") return "unknown";
  if (entry.chatType === "group" || entry.chatType === "channel") return "group";
  if (entry.key.includes(":group:") || entry.key.includes(":channel:")) return "group";
  return "direct";
}

export function toSessionRow(entry: SessionEntry): SessionRow {
  const { createdAt: _createdAt, ...rest } = entry;
  return { ...rest, kind: gatewayKind(entry) };
}

/** A row's list kind (main, group, cron, …) under the tenant's session config (OpenClaw's sessions_list). */
export function listKind(row: SessionRow, cfg: MainAliasConfig | undefined): SessionKind {
  return classifySessionKind(row.key, {
    cfg,
    agentId: row.agentId,
    ...(row.chatType ? { chatType: row.chatType } : {}),
  });
}

/** What the tenant's index derives from a row to filter and search by. */
export type IndexColumns = { kind: string; isCronRun: boolean; searchText: string };

export function indexColumns(row: SessionRow, cfg: MainAliasConfig | undefined): IndexColumns {
  return {
    kind: listKind(row, cfg),
    isCronRun: isCronRunKey(row.key),
    searchText: [row.displayName, row.label, row.sessionId, row.key]
      .filter((part): part is string => typeof part === "string")
      .join("\n")
      .toLowerCase(),
  };
}

/** A short preview of a message for list rows (first text, whitespace folded). */
export function messagePreview(content: unknown, maxChars = 120): string | undefined {
  const text = firstText(content)?.replace(/\s+/g, " ").trim();
  if (!text) return undefined;
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

function firstText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    if (block && typeof block === "object" && typeof (block as { text?: unknown }).text === "string") {
      return (block as { text: string }).text;
    }
  }
  return undefined;
}
