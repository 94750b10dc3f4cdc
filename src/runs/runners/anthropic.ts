import type { RunUsage } from "../../model/run-types";
import { ANTHROPIC_DEFAULT_BASE_URL } from "../../protocol/runner-specs/anthropic-declaration";
import { toBase64 } from "../../util/encoding";
import { parseToolArguments } from "../tool-loop/tool-calls";
import { documentText, loadedFiles, loadFiles } from "./media-parts";
import { postModelStream } from "./model-stream";
import { type ContextFile, type ContextMessage, type ModelToolCall, type Runner, RunnerError } from "./runner";
import { runnerCredential } from "./runner-keys";
import { upstreamDetail } from "./upstream-failure";

/** The Messages API version this wire module speaks. */
const ANTHROPIC_VERSION = "2023-06-01";
/** `max_tokens` is required by the Messages API; OpenClaw's default model cap. */
const DEFAULT_MAX_TOKENS = 4096;

type Block = { type: string; text?: string; id?: string; name?: string; json?: string };
type WireMessage = { role: "user" | "assistant"; content: unknown[] };

/**
 * Anthropic's Messages API (`POST {baseUrl}/messages`, streaming), a small wire module rather
 * than the SDK (see docs/tool-loop.md): tools are `{name, description, input_schema}`, the
 * model's calls are `tool_use` blocks whose input streams as `input_json_delta` pieces, and
 * results go back as `tool_result` blocks in a user message. Text deltas are reported as
 * cumulative text, like the OpenAI runner.
 */
export const anthropicRunner: Runner = async (request) => {
  const config = request.config;
  if (config.type !== "anthropic") throw new RunnerError("anthropic runner misconfigured");
  const apiKey = await runnerCredential(
    request,
    { ref: config.apiKey, deploymentSecret: config.apiKeySecret, field: "apiKey" },
    messagesEndpoint(config.baseUrl),
  );
  const system = [
    ...(request.input.extraSystemPrompt ? [request.input.extraSystemPrompt] : []),
    ...request.context.flatMap((m) => (m.role === "system" ? [m.content] : [])),
  ].join("\n\n");
  const body = {
    model: config.model,
    max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
    ...(system ? { system } : {}),
    messages: wireMessages(request.context, await loadFiles(request, request.context)),
    ...(request.tools?.length
      ? {
          tools: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: tool.parameters,
          })),
        }
      : {}),
    stream: true,
  };

  const headers = { "anthropic-version": ANTHROPIC_VERSION, ...(apiKey ? { "x-api-key": apiKey } : {}) };
  const stream = await postModelStream(request, messagesEndpoint(config.baseUrl), headers, body, apiKey);

  const blocks: Block[] = [];
  let text = "";
  let responseId: string | undefined;
  let stopReason: string | undefined;
  let input = 0;
  let output = 0;
  let stopped = false;
  for await (const data of stream) {
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(data);
    } catch {
      throw new RunnerError("malformed stream from model: an event is not JSON");
    }
    switch (event.type) {
      case "message_start": {
        const message = event.message as { id?: unknown; usage?: Record<string, unknown> } | undefined;
        if (typeof message?.id === "string") responseId = message.id;
        input = Number(message?.usage?.input_tokens ?? 0);
        output = Number(message?.usage?.output_tokens ?? 0);
        break;
      }
      case "content_block_start": {
        const block = event.content_block as Record<string, unknown> | undefined;
        blocks[Number(event.index ?? blocks.length)] = {
          type: String(block?.type ?? ""),
          ...(block?.type === "tool_use"
            ? { id: String(block.id ?? ""), name: String(block.name ?? ""), json: "" }
            : {}),
          ...(block?.type === "text" ? { text: String(block.text ?? "") } : {}),
        };
        break;
      }
      case "content_block_delta": {
        const block = blocks[Number(event.index)];
        const delta = event.delta as { type?: unknown; text?: unknown; partial_json?: unknown } | undefined;
        if (!block || !delta) break;
        if (delta.type === "text_delta" && typeof delta.text === "string") {
          block.text = (block.text ?? "") + delta.text;
          text += delta.text;
          request.onText(text);
        } else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
          block.json = (block.json ?? "") + delta.partial_json;
        }
        break;
      }
      case "message_delta": {
        const delta = event.delta as { stop_reason?: unknown } | undefined;
        if (typeof delta?.stop_reason === "string") stopReason = delta.stop_reason;
        const usage = event.usage as Record<string, unknown> | undefined;
        if (usage?.output_tokens !== undefined) output = Number(usage.output_tokens);
        break;
      }
      case "message_stop":
        stopped = true;
        break;
      case "error": {
        const error = event.error as { message?: unknown } | undefined;
        throw new RunnerError(
          `model stream error: ${upstreamDetail(String(error?.message ?? "unknown"), request.credentials)}`,
        );
      }
    }
    if (stopped) break;
  }
  if (!stopped && !stopReason) throw new RunnerError("malformed stream from model: ended before message_stop");
  const toolCalls: ModelToolCall[] = blocks
    .filter((block) => block?.type === "tool_use" && block.name)
    .map((block) => ({ id: block.id!, name: block.name!, arguments: parseToolArguments(block.json ?? "") }));
  const usage: RunUsage = { input, output, totalTokens: input + output };
  return {
    kind: "reply",
    text,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(responseId ? { responseId } : {}),
    usage,
    stopReason: toolCalls.length > 0 ? "toolUse" : stopReason === "max_tokens" ? "length" : "stop",
    model: config.model,
    provider: "anthropic",
    api: "anthropic-messages",
  };
};

/**
 * Context as Messages-API turns: system text goes to `system`; tool results become
 * `tool_result` blocks of a user turn; consecutive turns of one role are merged (the API wants
 * them alternating).
 */
function wireMessages(context: ContextMessage[], files: ReadonlyMap<string, Uint8Array>): WireMessage[] {
  const messages: WireMessage[] = [];
  const push = (role: WireMessage["role"], blocks: unknown[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const message of context) {
    if (message.role === "system") continue;
    if (message.role === "tool") {
      push("user", [
        {
          type: "tool_result",
          tool_use_id: anthropicId(message.toolCallId),
          content: message.content,
          ...(message.isError ? { is_error: true } : {}),
        },
      ]);
    } else if (message.role === "assistant") {
      push("assistant", [
        ...(message.content !== "" ? [{ type: "text", text: message.content }] : []),
        ...(message.toolCalls ?? []).map((call) => ({
          type: "tool_use",
          id: anthropicId(call.id),
          name: call.name,
          input: call.arguments,
        })),
      ]);
    } else if (message.role === "user") {
      // A chat message's files as `image` / `document` blocks before its text (as Anthropic advises).
      const attached = loadedFiles(message, files).flatMap(fileBlock);
      push("user", [...attached, ...(message.content !== "" ? [{ type: "text", text: message.content }] : [])]);
    }
  }
  return messages;
}

/** A file as a Messages API block: base64 `image` or PDF `document`, a text `document` (none if not UTF-8). */
function fileBlock(file: ContextFile & { data: Uint8Array }): unknown[] {
  const base64 = () => ({ type: "base64", media_type: file.mimeType, data: toBase64(file.data) });
  if (file.part === "image") return [{ type: "image", source: base64() }];
  const title = file.fileName ? { title: file.fileName } : {};
  if (file.mimeType !== "text/plain") return [{ type: "document", source: base64(), ...title }];
  const text = documentText(file.data);
  return text === null
    ? []
    : [{ type: "document", source: { type: "text", media_type: "text/plain", data: text }, ...title }];
}

/** Tool ids the Messages API accepts (`^[a-zA-Z0-9_-]+$`); the transcript keeps the original. */
function anthropicId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, "");
  return clean === "" ? "sanitizedtoolid" : clean;
}

function messagesEndpoint(baseUrl: string | undefined): string {
  return `${(baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL).replace(/\/+$/, "")}/messages`;
}
