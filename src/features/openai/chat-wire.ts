import type { RunSnapshot, RunUsage } from "../../model/run-types";
import { isSilentReply } from "../../runs/deltas";
import { parseUpstreamFailure } from "../../runs/runners/upstream-failure";
import type { ClientToolCall } from "./client-tools";
import { argumentChunks } from "./client-tools";
import { OpenAiError } from "./errors";

/** Chat completion bodies and SSE chunks as OpenClaw writes them (no nulls the SDKs fill in themselves). */

export type ChatUsage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };
export type FinishReason = "stop" | "length" | "tool_calls";
/** The fields every chunk of one completion shares. */
export type ChunkBase = { id: string; created: number; model: string };

/** OpenClaw's answer when a run produced no text. */
export const EMPTY_REPLY_TEXT = "No response from OpenClaw.";

export function chatUsage(usage: RunUsage | undefined): ChatUsage {
  const prompt = usage?.input ?? 0;
  const completion = usage?.output ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: Math.max(prompt + completion, usage?.totalTokens ?? 0),
  };
}

export function finishReason(stopReason: string | undefined, toolCalls: readonly ClientToolCall[] = []): FinishReason {
  if (toolCalls.length > 0) return "tool_calls";
  return stopReason === "length" ? "length" : "stop";
}

/** The reply text of an ended run ("" when the run produced none or stayed silent). */
export function replyText(snapshot: RunSnapshot): string {
  const text = snapshot.reply ?? "";
  return isSilentReply(text) ? "" : text;
}

export function completionBody(
  base: ChunkBase,
  snapshot: RunSnapshot,
  toolCalls: readonly ClientToolCall[] = [],
): Record<string, unknown> {
  const text = replyText(snapshot);
  const message =
    toolCalls.length > 0
      ? {
          role: "assistant",
          content: "",
          tool_calls: toolCalls.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: call.arguments },
          })),
        }
      : { role: "assistant", content: text || EMPTY_REPLY_TEXT };
  return {
    id: base.id,
    object: "chat.completion",
    created: base.created,
    model: base.model,
    choices: [{ index: 0, message, finish_reason: finishReason(snapshot.stopReason, toolCalls) }],
    usage: chatUsage(snapshot.usage),
  };
}

function chunk(base: ChunkBase, choices: unknown[], usage?: ChatUsage): Record<string, unknown> {
  return {
    id: base.id,
    object: "chat.completion.chunk",
    created: base.created,
    model: base.model,
    choices,
    ...(usage ? { usage } : {}),
  };
}

export const roleChunk = (base: ChunkBase) =>
  chunk(base, [{ index: 0, delta: { role: "assistant" }, finish_reason: null }]);
export const contentChunk = (base: ChunkBase, content: string) =>
  chunk(base, [{ index: 0, delta: { content }, finish_reason: null }]);
export const finishChunk = (base: ChunkBase, reason: FinishReason) =>
  chunk(base, [{ index: 0, delta: {}, finish_reason: reason }]);
export const usageChunk = (base: ChunkBase, usage: ChatUsage) => chunk(base, [], usage);

/** Each call: an identity chunk with empty arguments, then its arguments in pieces. */
export function toolCallChunks(base: ChunkBase, calls: readonly ClientToolCall[]): Record<string, unknown>[] {
  return calls.flatMap((call, index) => [
    chunk(base, [
      {
        index: 0,
        delta: {
          tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
        },
        finish_reason: null,
      },
    ]),
    ...argumentChunks(call.arguments).map((piece) =>
      chunk(base, [
        { index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null },
      ]),
    ),
  ]);
}

/**
 * A run that did not end `ok`, as an OpenAI error (chat's body; responses wrap it in a failed
 * resource). A model provider's refusal is answered as OpenClaw maps it (SPEC §3.10); other
 * failures keep this service's own clear text (also at `GET /v1/runs/{id}`).
 */
export function runFailure(snapshot: RunSnapshot): OpenAiError {
  switch (snapshot.state) {
    case "timeout":
      return new OpenAiError(504, "api_error", snapshot.error ?? "upstream provider timeout");
    case "aborted":
      return new OpenAiError(500, "api_error", "run was aborted");
    default:
      return upstreamError(snapshot.error) ?? new OpenAiError(500, "api_error", snapshot.error ?? "internal error");
  }
}

function upstreamError(error: string | undefined): OpenAiError | null {
  const failure = parseUpstreamFailure(error);
  if (!failure) return null;
  const { status, message } = failure;
  const said = `${status} ${message}`.trim();
  if (status === 401 || status === 403) return new OpenAiError(401, "authentication_error", said);
  if (status === 429) return new OpenAiError(429, "rate_limit_error", said);
  if (status >= 500) return new OpenAiError(502, "api_error", "upstream provider error");
  if (status === 400 || status === 404) return new OpenAiError(status, "invalid_request_error", said);
  return new OpenAiError(502, "api_error", "upstream provider error");
}
