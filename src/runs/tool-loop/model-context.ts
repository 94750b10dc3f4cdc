import type { MessageRecord } from "../../model/message-record";
import { parseMessage } from "../../model/message-record";
import type { TranscriptMessage } from "../../protocol/session";
import { type ContextMessage, contentText, type ModelToolCall } from "../runners/runner";

/**
 * Transcript records as model context. Without tools: user, assistant and system texts (what
 * text-only runners always got). With tools: earlier turns' tool calls and results are
 * replayed as OpenClaw replays them, each call paired with its result; a call without a
 * result (a run aborted mid-tool) and a result without its call (cut off by the context
 * window) are left out, since providers refuse unpaired tool messages.
 */
export function modelContext(records: MessageRecord[], withTools: boolean): ContextMessage[] {
  const messages: ContextMessage[] = [];
  for (const record of records) {
    const message = parseMessage(record) as unknown as TranscriptMessage;
    if (message.role === "user" || message.role === "system") {
      messages.push({ role: message.role, content: contentText(message.content) });
    } else if (message.role === "assistant") {
      const toolCalls = withTools ? toolCallsOf(message) : [];
      messages.push({ role: "assistant", content: textOf(message), ...(toolCalls.length ? { toolCalls } : {}) });
    } else if (withTools && message.role === "toolResult" && message.toolCallId) {
      messages.push({
        role: "tool",
        toolCallId: message.toolCallId,
        toolName: message.toolName ?? "",
        content: contentText(message.content),
        ...(message.isError ? { isError: true } : {}),
      });
    }
  }
  return withTools ? paired(messages) : messages;
}

function paired(messages: ContextMessage[]): ContextMessage[] {
  const out: ContextMessage[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === "tool") continue; // kept only right after its call, below
    if (message.role !== "assistant" || !message.toolCalls) {
      out.push(message);
      continue;
    }
    const results = new Map<string, ContextMessage>();
    for (let j = i + 1; j < messages.length && messages[j]!.role === "tool"; j++) {
      const result = messages[j] as Extract<ContextMessage, { role: "tool" }>;
      results.set(result.toolCallId, result);
    }
    const answered = message.toolCalls.filter((call) => results.has(call.id));
    if (answered.length > 0) {
      out.push({ ...message, toolCalls: answered });
      for (const call of answered) out.push(results.get(call.id)!);
    } else if (message.content !== "") {
      out.push({ role: "assistant", content: message.content });
    }
  }
  return out;
}

function textOf(message: TranscriptMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
}

function toolCallsOf(message: TranscriptMessage): ModelToolCall[] {
  if (typeof message.content === "string") return [];
  return message.content
    .filter((block) => block.type === "toolCall" && typeof block.id === "string" && typeof block.name === "string")
    .map((block) => ({
      id: block.id as string,
      name: block.name as string,
      arguments: isObject(block.arguments) ? block.arguments : {},
    }));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
