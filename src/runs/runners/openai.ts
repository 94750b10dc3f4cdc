import type { RunUsage } from "../../model/run-types";
import { toBase64 } from "../../util/encoding";
import { parseToolArguments, sanitizeToolCallId } from "../tool-loop/tool-calls";
import { loadedFiles, loadFiles, partFileName } from "./media-parts";
import { postModelStream } from "./model-stream";
import { type ContextFile, type ContextMessage, type ModelToolCall, type Runner, RunnerError } from "./runner";
import { runnerCredential } from "./runner-keys";

/**
 * Any OpenAI-compatible `POST /v1/chat/completions`, streaming. Deltas are reported as
 * cumulative text; usage comes from the final chunk (`stream_options.include_usage`). With
 * tools offered it sends them as OpenClaw does (`tools`, `tool_choice: "auto"`) and gathers
 * the streamed `tool_calls` (id and name first, arguments in pieces) into the reply.
 */
export const openaiRunner: Runner = async (request) => {
  const config = request.config;
  if (config.type !== "openai") throw new RunnerError("openai runner misconfigured");
  const messages: unknown[] = [];
  if (request.input.extraSystemPrompt) messages.push({ role: "system", content: request.input.extraSystemPrompt });
  const files = await loadFiles(request, request.context);
  messages.push(...request.context.map((message) => wireMessage(message, files)));
  const tools = request.tools?.length
    ? {
        tools: request.tools.map((tool) => ({
          type: "function",
          function: { name: tool.name, description: tool.description, parameters: tool.parameters },
        })),
        tool_choice: "auto",
      }
    : {};
  const endpoint = `${config.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const apiKey = await runnerCredential(
    request,
    { ref: config.apiKey, deploymentSecret: config.apiKeySecret, field: "apiKey" },
    endpoint,
  );

  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const stream = await postModelStream(
    request,
    endpoint,
    headers,
    {
      model: config.model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      ...tools,
      ...(request.maxTokens ? { max_completion_tokens: request.maxTokens } : {}),
    },
    apiKey,
  );

  let text = "";
  let usage: RunUsage | undefined;
  let finishReason: string | undefined;
  let responseId: string | undefined;
  const calls: Array<{ id: string; name: string; args: string }> = [];
  let sawDone = false;
  let sawChunk = false;
  for await (const data of stream) {
    if (data === "[DONE]") {
      sawDone = true;
      break;
    }
    let chunk: {
      id?: unknown;
      choices?: Array<{ delta?: { content?: unknown; tool_calls?: unknown }; finish_reason?: string | null }>;
      usage?: Record<string, unknown>;
    };
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new RunnerError("malformed stream from model: a chunk is not JSON");
    }
    if (typeof chunk !== "object" || chunk === null)
      throw new RunnerError("malformed stream from model: a chunk is not an object");
    sawChunk = true;
    if (typeof chunk.id === "string" && responseId === undefined) responseId = chunk.id;
    const choice = chunk.choices?.[0];
    if (Array.isArray(choice?.delta?.tool_calls)) gatherToolCalls(calls, choice.delta.tool_calls);
    if (typeof choice?.delta?.content === "string" && choice.delta.content !== "") {
      text += choice.delta.content;
      request.onText(text);
    }
    if (choice?.finish_reason) finishReason = choice.finish_reason;
    if (chunk.usage) {
      const input = Number(chunk.usage.prompt_tokens ?? 0);
      const output = Number(chunk.usage.completion_tokens ?? 0);
      usage = { input, output, totalTokens: Number(chunk.usage.total_tokens ?? input + output) };
    }
  }
  if (!sawChunk && !sawDone) throw new RunnerError("malformed stream from model: no data");
  if (!sawDone && !finishReason) throw new RunnerError("malformed stream from model: ended before [DONE]");
  const toolCalls: ModelToolCall[] = calls
    .filter((call) => call.name !== "")
    .map((call) => ({ id: call.id, name: call.name, arguments: parseToolArguments(call.args) }));
  return {
    kind: "reply",
    text,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(responseId ? { responseId } : {}),
    ...(usage ? { usage } : {}),
    stopReason: toolCalls.length > 0 ? "toolUse" : finishReason === "length" ? "length" : "stop",
    model: config.model,
    provider: "openai",
    api: "openai-completions",
  };
};

/** A context message in Chat Completions' shape (tool call ids alphanumeric, as OpenClaw sends them). */
function wireMessage(message: ContextMessage, files: ReadonlyMap<string, Uint8Array>): unknown {
  const attached = message.role === "user" ? loadedFiles(message, files) : [];
  if (attached.length > 0) {
    // The text part, then each file as a data URL: OpenAI's vision input, and its PDF input.
    return { role: "user", content: [{ type: "text", text: message.content }, ...attached.map(filePart)] };
  }
  if (message.role === "tool") {
    return { role: "tool", content: message.content, tool_call_id: sanitizeToolCallId(message.toolCallId) };
  }
  if (message.role === "assistant" && message.toolCalls?.length) {
    return {
      role: "assistant",
      content: message.content === "" ? null : message.content,
      tool_calls: message.toolCalls.map((call) => ({
        id: sanitizeToolCallId(call.id),
        type: "function",
        function: { name: call.name, arguments: JSON.stringify(call.arguments) },
      })),
    };
  }
  return { role: message.role, content: message.content };
}

/** A file as a Chat Completions content part: an image's `image_url`, a document's `file` (PDF only). */
function filePart(file: ContextFile & { data: Uint8Array }): unknown {
  const url = `data:${file.mimeType};base64,${toBase64(file.data)}`;
  if (file.part === "image") return { type: "image_url", image_url: { url } };
  return { type: "file", file: { filename: partFileName(file), file_data: url } };
}

/** Streamed `delta.tool_calls` pieces: by `index`, id and name come first, `arguments` in parts. */
function gatherToolCalls(calls: Array<{ id: string; name: string; args: string }>, pieces: unknown[]): void {
  for (const piece of pieces) {
    if (typeof piece !== "object" || piece === null) continue;
    const {
      index,
      id,
      function: fn,
    } = piece as { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } };
    const at = typeof index === "number" && Number.isInteger(index) && index >= 0 && index < 128 ? index : calls.length;
    const call = calls[at] ?? { id: "", name: "", args: "" };
    calls[at] = call;
    if (typeof id === "string" && id !== "") call.id = id;
    if (typeof fn?.name === "string") call.name += fn.name;
    if (typeof fn?.arguments === "string") call.args += fn.arguments;
    if (call.id === "") call.id = `call_${at}`;
  }
}
