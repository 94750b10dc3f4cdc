import type { Context } from "hono";
import type { TenantContext } from "../../domain/context";
import type { AppEnv } from "../../http/context";
import { MAX_COMPLETION_BODY_BYTES, readOpenAiBody } from "./body";
import { agentHeader } from "./chat-handler";
import { runFailure } from "./chat-wire";
import { responsesToolSpec, ToolNameConflict, unmetToolChoice } from "./client-tools";
import type { CompletionRequest } from "./completions";
import { OpenAiError, toOpenAiError } from "./errors";
import { resolveAgent } from "./models";
import { type ResponsesRequest, responsesRequestSchema } from "./openai-schemas";
import { derivedKeyPrefixes, openAiSessionKey, SESSION_KEY_HEADER } from "./openai-session-key";
import { responsesTurn } from "./prompt";
import {
  closingEvents,
  failedResponse,
  finishedResponse,
  openingEvents,
  type ResponseBase,
  responseEvent,
  textDeltaEvent,
} from "./responses-wire";
import { admitOrRefuse, doorRequest, runToEnd, streamRun } from "./run-door";
import { SseStream } from "./sse-writer";

const RESPONSE_ID_PREFIX = "resp_";

/**
 * `POST /v1/responses`: validation and routing errors in the error envelope; a run that fails
 * is answered with a `failed` response resource (HTTP status of the failure), as OpenClaw does.
 */
export async function responses(c: Context<AppEnv>): Promise<Response> {
  const ctx = c.var.tenant;
  const body = await readOpenAiBody(c, responsesRequestSchema, MAX_COMPLETION_BODY_BYTES);
  const agentId = resolveAgent(ctx.config, body.model, agentHeader(c));
  const key = responseSessionKey(ctx, body, agentId, c.req.header(SESSION_KEY_HEADER));
  const runId = `${RESPONSE_ID_PREFIX}${crypto.randomUUID()}`;
  const base: ResponseBase = { id: runId, createdAt: Math.floor(Date.now() / 1000), model: body.model };
  let tools: ReturnType<typeof responsesToolSpec>;
  try {
    tools = responsesToolSpec(body);
  } catch (error) {
    // A name taken by an agent tool is answered with a failed response, as OpenClaw does.
    if (error instanceof ToolNameConflict) return c.json(failedResponse(base, error), error.status);
    throw error;
  }
  const turn = responsesTurn(body.input, body.instructions);
  const request = doorRequest(key, runId, turn, tools);
  const admitted = await admitOrRefuse(ctx, request);
  const itemId = `msg_${crypto.randomUUID()}`;

  if (!body.stream) {
    let failure: OpenAiError;
    try {
      const outcome = await runToEnd(c, ctx, admitted);
      if (outcome.status === "ok") {
        const calls = outcome.clientToolCalls ?? [];
        const unmet = unmetToolChoice(tools, calls);
        if (!unmet) return c.json(finishedResponse(base, itemId, outcome, calls));
        failure = new OpenAiError(502, "api_error", unmet);
      } else {
        failure = runFailure(outcome);
      }
    } catch (error) {
      failure = toOpenAiError(error);
    }
    return c.json(failedResponse(base, failure), failure.status);
  }

  const sse = new SseStream();
  const send = (event: { event: string; data: string }) => sse.send(event.data, event.event);
  const fail = (failure: OpenAiError) =>
    send(responseEvent("response.failed", { response: failedResponse(base, failure) }));
  // Created, in progress, the message item and its part go out before the run starts.
  for (const event of openingEvents(base, itemId)) void send(event);
  return streamRun(c, ctx, admitted, sse, {
    delta: (text) => send(textDeltaEvent(itemId, text)),
    end: async (outcome, held) => {
      const calls = outcome.clientToolCalls ?? [];
      const unmet = outcome.status === "ok" ? unmetToolChoice(tools, calls) : null;
      if (outcome.status !== "ok" || unmet) {
        await fail(unmet ? new OpenAiError(502, "api_error", unmet) : runFailure(outcome));
        return;
      }
      if (calls.length === 0 && held !== "") await send(textDeltaEvent(itemId, held));
      for (const event of closingEvents(base, itemId, outcome, calls)) await send(event);
    },
    fail: async (error) => {
      await fail(toOpenAiError(error));
    },
  });
}

/**
 * The header first; then `previous_response_id`, which continues its response's session when
 * that session was named by these rules (not by a header) for the same agent; then `user`,
 * then a new session. An id that does not qualify is no error: the request falls back, as
 * OpenClaw's does. The mapping is the tenant's run index (so it outlives restarts), looked up
 * in the call that admits the run.
 */
function responseSessionKey(
  ctx: TenantContext,
  body: ResponsesRequest,
  agentId: string,
  header: string | undefined,
): Pick<CompletionRequest, "key" | "continues"> {
  const key = openAiSessionKey({
    config: ctx.config,
    agentId,
    surface: "openresponses",
    header,
    user: body.user ?? undefined,
  });
  const previous = body.previous_response_id;
  if (header?.trim() || !previous?.startsWith(RESPONSE_ID_PREFIX)) return { key };
  return { key, continues: { runId: previous, keyPrefixes: derivedKeyPrefixes(agentId, "openresponses") } };
}
