import type { Context } from "hono";
import type { AppEnv } from "../../http/context";
import { MAX_COMPLETION_BODY_BYTES, readOpenAiBody } from "./body";
import { checkChatFields } from "./chat-request";
import {
  type ChunkBase,
  chatUsage,
  completionBody,
  contentChunk,
  finishChunk,
  finishReason,
  roleChunk,
  runFailure,
  toolCallChunks,
  usageChunk,
} from "./chat-wire";
import { chatToolSpec, unmetToolChoice } from "./client-tools";
import { OpenAiError, openAiErrorBody, toOpenAiError } from "./errors";
import { resolveAgent } from "./models";
import { chatCompletionRequestSchema } from "./openai-schemas";
import { openAiSessionKey, SESSION_KEY_HEADER } from "./openai-session-key";
import { chatTurn } from "./prompt";
import { admitOrRefuse, doorRequest, runToEnd, streamRun } from "./run-door";
import { SseStream } from "./sse-writer";

/** `x-openclaw-agent-id` (or its alias `x-openclaw-agent`) picks the agent over `model`. */
export function agentHeader(c: Context): string | undefined {
  return c.req.header("x-openclaw-agent-id") ?? c.req.header("x-openclaw-agent");
}

/** `POST /v1/chat/completions`: the checks in OpenClaw's order, then one run (JSON or SSE). */
export async function chatCompletions(c: Context<AppEnv>): Promise<Response> {
  const ctx = c.var.tenant;
  const body = await readOpenAiBody(c, chatCompletionRequestSchema, MAX_COMPLETION_BODY_BYTES);
  checkChatFields(body);
  const agentId = resolveAgent(ctx.config, body.model, agentHeader(c));
  const key = openAiSessionKey({
    config: ctx.config,
    agentId,
    surface: "openai",
    header: c.req.header(SESSION_KEY_HEADER),
    user: body.user ?? undefined,
  });
  const tools = chatToolSpec(body.tools, body.tool_choice);
  const turn = chatTurn(body.messages);
  const runId = `chatcmpl_${crypto.randomUUID()}`;
  const base: ChunkBase = { id: runId, created: Math.floor(Date.now() / 1000), model: body.model ?? "openclaw" };
  const request = doorRequest({ key }, runId, turn, tools);
  const admitted = await admitOrRefuse(ctx, request);

  if (!body.stream) {
    const outcome = await runToEnd(c, ctx, admitted);
    if (outcome.status !== "ok") throw runFailure(outcome);
    const calls = outcome.clientToolCalls ?? [];
    const unmet = unmetToolChoice(tools, calls);
    if (unmet) throw new OpenAiError(502, "api_error", unmet);
    return c.json(completionBody(base, outcome, calls));
  }

  const includeUsage = body.stream_options?.include_usage === true;
  const sse = new SseStream();
  // The role chunk goes out before the run starts, as OpenClaw sends it.
  void sse.sendJson(roleChunk(base));
  return streamRun(c, ctx, admitted, sse, {
    delta: (text) => sse.sendJson(contentChunk(base, text)),
    end: async (outcome, held) => {
      if (outcome.status !== "ok") {
        await sse.sendJson(openAiErrorBody(runFailure(outcome)));
        return;
      }
      const calls = outcome.clientToolCalls ?? [];
      const unmet = unmetToolChoice(tools, calls);
      if (unmet) {
        await sse.sendJson({ error: { message: unmet, type: "api_error" } });
        return;
      }
      if (calls.length > 0) for (const chunk of toolCallChunks(base, calls)) await sse.sendJson(chunk);
      else if (held !== "") await sse.sendJson(contentChunk(base, held));
      await sse.sendJson(finishChunk(base, finishReason(outcome.stopReason, calls)));
      if (includeUsage) await sse.sendJson(usageChunk(base, chatUsage(outcome.usage)));
    },
    fail: async (error) => {
      await sse.sendJson(openAiErrorBody(toOpenAiError(error)));
    },
  });
}
