import type { RunUsage } from "../run-types";
import { type ContextMessage, type Runner, RunnerError } from "./runner";
import { runnerCredential } from "./runner-keys";

/**
 * Any OpenAI-compatible `POST /v1/chat/completions`, streaming. Deltas are reported as
 * cumulative text; usage comes from the final chunk (`stream_options.include_usage`).
 */
export const openaiRunner: Runner = async (request) => {
  const config = request.config;
  if (config.type !== "openai") throw new RunnerError("openai runner misconfigured");
  const messages: ContextMessage[] = [];
  if (request.input.extraSystemPrompt) messages.push({ role: "system", content: request.input.extraSystemPrompt });
  messages.push(...request.context);
  const endpoint = `${config.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const apiKey = await runnerCredential(
    request,
    { ref: config.apiKey, deploymentSecret: config.apiKeySecret, field: "apiKey" },
    endpoint,
  );

  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify({ model: config.model, messages, stream: true, stream_options: { include_usage: true } }),
      signal: request.signal,
    });
  } catch (error) {
    if (request.signal.aborted) throw error;
    throw new RunnerError(`model endpoint unreachable: ${(error as Error).message}`);
  }
  if (!response.ok || !response.body) {
    const detail = (await response.text().catch(() => "")).slice(0, 200);
    throw new RunnerError(`model endpoint answered ${response.status}${detail ? `: ${detail}` : ""}`);
  }

  let text = "";
  let usage: RunUsage | undefined;
  let finishReason: string | undefined;
  let sawDone = false;
  let sawChunk = false;
  for await (const data of sseData(response.body)) {
    if (data === "[DONE]") {
      sawDone = true;
      break;
    }
    let chunk: {
      choices?: Array<{ delta?: { content?: unknown }; finish_reason?: string | null }>;
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
    const choice = chunk.choices?.[0];
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
  return {
    kind: "reply",
    text,
    ...(usage ? { usage } : {}),
    stopReason: finishReason === "length" ? "length" : "stop",
    model: config.model,
    provider: "openai",
    api: "openai-completions",
  };
};

/** The `data:` payloads of an SSE body, one per event. */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
      const line = buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
      if (line.startsWith("data:")) yield line.slice(5).trim();
    }
  }
  const last = buffer.trim();
  if (last.startsWith("data:")) yield last.slice(5).trim();
}
