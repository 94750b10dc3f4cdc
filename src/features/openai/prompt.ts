import { invalidRequest } from "./errors";
import { fileBlock, refuseImageUrl } from "./input-attachments";
import type { ResponseInputItem } from "./openai-schemas";

/**
 * How OpenClaw turns an OpenAI conversation into one agent turn: system and developer text
 * becomes extra system prompt for this run only; the other messages become one user message,
 * the current one alone or, with history, a marker block (which is also what the transcript
 * stores). The session's own history is the agent's context as for any run.
 */

export type AgentTurn = { message: string; extraSystemPrompt?: string };

/** One flattened conversation entry; `sender` is how the block labels it. */
type Entry = { kind: "user" | "assistant" | "tool"; sender: string; text: string };

const HISTORY_HEADER = "[Chat messages since your last reply - for context]";
const CURRENT_HEADER = "[Current message - respond to this]";

export const MISSING_CHAT_MESSAGE = "Missing user message in `messages`.";
export const MISSING_INPUT_MESSAGE = "Missing user message in `input`.";

/** `messages[]` of a chat completion → one turn (400 when nothing is there to answer). */
export function chatTurn(messages: readonly unknown[] | null | undefined): AgentTurn {
  const system: string[] = [];
  const entries: Entry[] = [];
  for (const raw of messages ?? []) {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) continue;
    const message = raw as Record<string, unknown>;
    const text = openAiContentText(message.content);
    switch (message.role) {
      case "system":
      case "developer":
        if (text.trim()) system.push(text.trim());
        break;
      case "user":
        {
          const image = imagePart(message.content);
          if (image) refuseImageUrl(image);
        }
        if (text.trim()) entries.push({ kind: "user", sender: "User", text });
        break;
      case "assistant": {
        const calls = toolCallLines(message.tool_calls, message.function_call);
        const body = [text, ...calls].filter((line) => line !== "").join("\n");
        if (body.trim()) entries.push({ kind: "assistant", sender: "Assistant", text: body });
        break;
      }
      case "tool":
      case "function":
        entries.push({ kind: "tool", sender: toolSender(message), text });
        break;
    }
  }
  const message = joinTurn(entries);
  if (message === null) throw invalidRequest(MISSING_CHAT_MESSAGE);
  return withSystem(message, system);
}

/**
 * `input` of a response → one turn: a string as it is; items flattened as chat messages are
 * (function calls as `tool_call` lines, outputs as `Tool:<call_id>` entries).
 */
export function responsesTurn(input: string | readonly ResponseInputItem[], instructions?: string | null): AgentTurn {
  const system: string[] = [];
  if (instructions?.trim()) system.push(instructions.trim());
  if (typeof input === "string") {
    if (!input.trim()) throw invalidRequest(MISSING_INPUT_MESSAGE);
    return withSystem(input, system);
  }
  const entries: Entry[] = [];
  const files: string[] = [];
  for (const item of input) {
    if (item.type === "message") {
      const parts = typeof item.content === "string" ? [] : item.content;
      for (const part of parts) {
        if (part.type === "input_image" || part.type === "input_file") files.push(fileBlock(part));
      }
      const text = openAiContentText(item.content);
      if (item.role === "system" || item.role === "developer") {
        if (text.trim()) system.push(text.trim());
      } else if (text.trim()) {
        entries.push({ kind: item.role, sender: item.role === "user" ? "User" : "Assistant", text });
      }
    } else if (item.type === "function_call") {
      const line = toolCallLine(item.call_id ?? item.id ?? "", item.name, item.arguments);
      const previous = entries.at(-1);
      // Consecutive calls belong to one assistant turn, as in chat's `tool_calls`.
      if (previous?.kind === "assistant") previous.text += `\n${line}`;
      else entries.push({ kind: "assistant", sender: "Assistant", text: line });
    } else if (item.type === "function_call_output") {
      entries.push({ kind: "tool", sender: `Tool:${item.call_id}`, text: item.output });
    }
  }
  const message = joinTurn(entries);
  if (message === null) throw invalidRequest(MISSING_INPUT_MESSAGE);
  // File text goes after everything else in the run's system prompt (OpenClaw's order).
  return withSystem(message, [...system, ...files]);
}

/** The current entry is the last user or tool entry (a trailing assistant prefill is dropped). */
function joinTurn(entries: Entry[]): string | null {
  if (entries.length === 0) return null;
  let current = -1;
  for (let i = entries.length - 1; i >= 0; i--) {
    if (entries[i]!.kind !== "assistant") {
      current = i;
      break;
    }
  }
  // Only assistant entries: the last one is answered (and stored as the user message).
  if (current < 0) current = entries.length - 1;
  const head = entries.slice(0, current);
  const last = entries[current]!;
  const lines = (list: Entry[]) => list.map((entry) => `${entry.sender}: ${entry.text}`).join("\n");
  // A lone user (or assistant) message is sent as it is; a lone tool result keeps its label
  // (`Tool:<call_id>: <output>`, as recorded from a responses follow-up).
  if (head.length === 0) return last.kind === "tool" ? lines([last]) : last.text;
  return `${HISTORY_HEADER}\n${lines(head)}\n\n${CURRENT_HEADER}\n${lines([last])}`;
}

function withSystem(message: string, system: string[]): AgentTurn {
  return system.length > 0 ? { message, extraSystemPrompt: system.join("\n\n") } : { message };
}

/**
 * An OpenAI message's content as text: a string, or its `text` / `input_text` / `output_text`
 * parts joined with newlines (other parts are not text: images and files are read apart). Not
 * runs/runners/runner.ts `contentText`, which reads a transcript message's blocks.
 */
function openAiContentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const part of content) {
    if (!part || typeof part !== "object") continue;
    const { type, text } = part as { type?: unknown; text?: unknown };
    if ((type === "text" || type === "input_text" || type === "output_text") && typeof text === "string") {
      texts.push(text);
    }
  }
  return texts.join("\n");
}

/** The first `image_url` part of a message's content, if any. */
function imagePart(content: unknown): { image_url?: unknown } | undefined {
  if (!Array.isArray(content)) return undefined;
  return content.find((part) => part && typeof part === "object" && (part as { type?: unknown }).type === "image_url");
}

function toolSender(message: Record<string, unknown>): string {
  if (typeof message.tool_call_id === "string" && message.tool_call_id) return `Tool:${message.tool_call_id}`;
  if (typeof message.name === "string" && message.name) return `Tool:${message.name}`;
  return "Tool";
}

function toolCallLine(id: string, name: string, args: string): string {
  return `tool_call id=${id} name=${name} arguments=${args}`;
}

/** An assistant's `tool_calls` (or legacy `function_call`) as `tool_call id=… name=… arguments=…` lines. */
function toolCallLines(toolCalls: unknown, functionCall: unknown): string[] {
  const lines: string[] = [];
  if (Array.isArray(toolCalls)) {
    for (const call of toolCalls) {
      if (!call || typeof call !== "object") continue;
      const { id, function: fn } = call as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
      if (!fn || typeof fn.name !== "string") continue;
      lines.push(toolCallLine(typeof id === "string" ? id : "", fn.name, argumentsText(fn.arguments)));
    }
  }
  if (functionCall && typeof functionCall === "object") {
    const { name, arguments: args } = functionCall as { name?: unknown; arguments?: unknown };
    if (typeof name === "string") lines.push(toolCallLine("", name, argumentsText(args)));
  }
  return lines;
}

function argumentsText(args: unknown): string {
  if (typeof args === "string") return args;
  return args === undefined ? "{}" : JSON.stringify(args);
}
