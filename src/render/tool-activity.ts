import type { StoredMessage } from "../model/message-record";
import { toolDeclaration } from "../protocol/tool-specs/tool-declarations";

/** The Control UI's name for a tool (item rows: `Sessions 5`, `Session History <key>`): its declared label. */
export function toolLabel(name: string): string {
  return toolDeclaration(name)?.label ?? name;
}

export type ToolActivityItem = {
  itemId: string;
  toolCallId: string;
  name: string;
  kind: "tool";
  phase: "start" | "end";
  title: string;
  status: "running" | "completed" | "failed";
  commandBearing: false;
};

/** chat.history's `activity`: the tool items of each shown message, by its `__openclaw.id`. */
export type ToolActivity = { messageId: string; items: ToolActivityItem[] };

/**
 * The tool-item summaries OpenClaw's chat.history sends beside its messages (the Control UI
 * draws its tool rows from them): one entry for an assistant message with tool calls (all its
 * calls) and one for each tool result (its call), both ended (`failed` when the result is an
 * error) or still running when the page has no result for the call yet.
 */
export function toolActivity(messages: StoredMessage[]): ToolActivity[] {
  const results = new Map<string, boolean>();
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== "toolResult" || typeof message.toolCallId !== "string") continue;
    results.set(message.toolCallId, message.isError === true);
  }
  const item = (toolCallId: string, name: string): ToolActivityItem => {
    const failed = results.get(toolCallId);
    return {
      itemId: `tool:${toolCallId}`,
      toolCallId,
      name,
      kind: "tool",
      phase: failed === undefined ? "start" : "end",
      title: toolLabel(name),
      status: failed === undefined ? "running" : failed ? "failed" : "completed",
      commandBearing: false,
    };
  };
  const activity: ToolActivity[] = [];
  for (const message of messages) {
    const messageId = messageIdOf(message);
    if (!messageId) continue;
    if (message.role === "assistant" && Array.isArray(message.content)) {
      const items = message.content.filter(isToolCall).map((call) => {
        names.set(call.id, call.name);
        return item(call.id, call.name);
      });
      if (items.length > 0) activity.push({ messageId, items });
    } else if (message.role === "toolResult" && typeof message.toolCallId === "string") {
      const name = typeof message.toolName === "string" ? message.toolName : names.get(message.toolCallId);
      if (name) activity.push({ messageId, items: [item(message.toolCallId, name)] });
    }
  }
  return activity;
}

function messageIdOf(message: StoredMessage): string | undefined {
  const meta = message.__openclaw;
  if (!meta || typeof meta !== "object") return undefined;
  const id = (meta as { id?: unknown }).id;
  return typeof id === "string" ? id : undefined;
}

function isToolCall(block: unknown): block is { type: "toolCall"; id: string; name: string } {
  if (!block || typeof block !== "object") return false;
  const { type, id, name } = block as Record<string, unknown>;
  return type === "toolCall" && typeof id === "string" && typeof name === "string";
}

/**
 * OpenClaw's chat.history shows an assistant message that said something before its tool
 * calls as two rows with the same `__openclaw` (the UI draws the text as its own paragraph
 * above the tool row): the text alone, marked `openclawStreamFallback`, then the calls with
 * the message's usage and stop reason.
 */
export function splitPreToolText(messages: StoredMessage[]): StoredMessage[] {
  const rows: StoredMessage[] = [];
  for (const message of messages) {
    const content = message.role === "assistant" && Array.isArray(message.content) ? message.content : null;
    const firstCall = content ? content.findIndex(isToolCall) : -1;
    const texts = content && firstCall > 0 ? content.slice(0, firstCall).filter(isText) : [];
    if (!content || texts.length === 0) {
      rows.push(message);
      continue;
    }
    const text = texts.map((block) => block.text).join("\n");
    const messageId = messageIdOf(message) ?? "message";
    rows.push({
      role: "assistant",
      content: texts,
      ...(message.timestamp !== undefined ? { timestamp: message.timestamp } : {}),
      openclawStreamFallback: { replacementText: text, source: "segment", itemId: `commentary-0-${messageId}` },
      ...(message.__openclaw !== undefined ? { __openclaw: message.__openclaw } : {}),
    });
    rows.push({ ...message, content: content.filter((block) => !texts.includes(block as never)) });
  }
  return rows;
}

function isText(block: unknown): block is { type: "text"; text: string } {
  return !!block && typeof block === "object" && (block as { type?: unknown }).type === "text";
}
