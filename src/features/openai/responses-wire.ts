import type { RunSnapshot, RunUsage } from "../../model/run-types";
import { replyText } from "./chat-wire";
import type { ClientToolCall } from "./client-tools";
import type { OpenAiError } from "./errors";

/** Response resources, output items and SSE events of `/v1/responses` as OpenClaw writes them. */

export type ResponseBase = { id: string; createdAt: number; model: string };
export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

export function responseUsage(usage: RunUsage | undefined) {
  const input = usage?.input ?? 0;
  const output = usage?.output ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: Math.max(input + output, usage?.totalTokens ?? 0),
  };
}

export function responseResource(
  base: ResponseBase,
  status: ResponseStatus,
  output: unknown[],
  usage: RunUsage | undefined,
  error?: OpenAiError,
): Record<string, unknown> {
  return {
    id: base.id,
    object: "response",
    created_at: base.createdAt,
    status,
    model: base.model,
    output,
    usage: responseUsage(usage),
    ...(status === "incomplete" ? { incomplete_details: { reason: "max_output_tokens" } } : {}),
    ...(error ? { error: { code: error.type, message: error.message } } : {}),
  };
}

/**
 * A text part of an output message. `annotations` is required by OpenAI's schema (OpenClaw
 * leaves it out; the AI SDK and LangChain refuse a part without it); there are none here.
 */
export function outputTextPart(text: string) {
  return { type: "output_text", text, annotations: [] };
}

export function messageItem(itemId: string, text: string, status: "completed" | "incomplete") {
  return {
    type: "message",
    id: itemId,
    role: "assistant",
    content: [outputTextPart(text)],
    phase: "final_answer",
    status,
  };
}

export function functionCallItem(call: ClientToolCall) {
  return {
    type: "function_call",
    id: `call_${crypto.randomUUID()}`,
    call_id: call.id,
    name: call.name,
    arguments: call.arguments,
  };
}

/** The final resource of a run that ended `ok` (a length stop is `incomplete`). */
export function finishedResponse(
  base: ResponseBase,
  itemId: string,
  snapshot: RunSnapshot,
  toolCalls: readonly ClientToolCall[] = [],
): Record<string, unknown> {
  if (toolCalls.length > 0) {
    return responseResource(base, "completed", toolCalls.map(functionCallItem), snapshot.usage);
  }
  const status = snapshot.stopReason === "length" ? "incomplete" : "completed";
  const item = messageItem(itemId, replyText(snapshot), status === "incomplete" ? "incomplete" : "completed");
  return responseResource(base, status, [item], snapshot.usage);
}

export function failedResponse(base: ResponseBase, error: OpenAiError): Record<string, unknown> {
  return responseResource(base, "failed", [], undefined, error);
}

/** One SSE event: `event: <type>` and the data with the same `type` (no sequence numbers, as OpenClaw). */
export function responseEvent(type: string, fields: Record<string, unknown>): { event: string; data: string } {
  return { event: type, data: JSON.stringify({ type, ...fields }) };
}

/** The events sent before the run starts: created, in progress, the message item and its text part. */
export function openingEvents(base: ResponseBase, itemId: string) {
  const resource = responseResource(base, "in_progress", [], undefined);
  return [
    responseEvent("response.created", { response: resource }),
    responseEvent("response.in_progress", { response: resource }),
    responseEvent("response.output_item.added", {
      output_index: 0,
      item: { type: "message", id: itemId, role: "assistant", content: [], status: "in_progress" },
    }),
    responseEvent("response.content_part.added", {
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      part: outputTextPart(""),
    }),
  ];
}

export function textDeltaEvent(itemId: string, delta: string) {
  return responseEvent("response.output_text.delta", { item_id: itemId, output_index: 0, content_index: 0, delta });
}

/**
 * The closing events: text done, part done, item done, then completed (or incomplete). A run
 * that stopped at client tool calls closes its message item empty as `commentary`, then adds
 * each call as its own item, as OpenClaw streams them.
 */
export function closingEvents(
  base: ResponseBase,
  itemId: string,
  snapshot: RunSnapshot,
  toolCalls: readonly ClientToolCall[] = [],
) {
  const final = finishedResponse(base, itemId, snapshot);
  const text = toolCalls.length > 0 ? "" : replyText(snapshot);
  const item =
    toolCalls.length > 0
      ? { ...messageItem(itemId, "", "completed"), phase: "commentary" }
      : (final.output as unknown[])[0];
  const at = { item_id: itemId, output_index: 0, content_index: 0 };
  const callItems = toolCalls.map(functionCallItem);
  const done = toolCalls.length > 0 ? responseResource(base, "completed", [item, ...callItems], snapshot.usage) : final;
  return [
    responseEvent("response.output_text.done", { ...at, text }),
    responseEvent("response.content_part.done", { ...at, part: outputTextPart(text) }),
    responseEvent("response.output_item.done", { output_index: 0, item }),
    // Added without a status, done with one (as OpenClaw streams them).
    ...callItems.flatMap((call, index) => [
      responseEvent("response.output_item.added", { output_index: index + 1, item: call }),
      responseEvent("response.output_item.done", { output_index: index + 1, item: { ...call, status: "completed" } }),
    ]),
    responseEvent(done.status === "incomplete" ? "response.incomplete" : "response.completed", { response: done }),
  ];
}
