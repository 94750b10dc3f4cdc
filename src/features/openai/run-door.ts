import type { Context } from "hono";
import type { TenantContext } from "../../domain/context";
import type { RunSnapshot } from "../../model/run-types";
import type { ClientToolSpec } from "./client-tools";
import {
  type AdmittedCompletion,
  admitCompletion,
  type CompletionRequest,
  type CompletionRun,
  startCompletion,
} from "./completions";
import { OpenAiError } from "./errors";
import type { AgentTurn } from "./prompt";
import type { SseStream } from "./sse-writer";

/**
 * What both completion routes do around a run: the rate limit, the start, the client's
 * disconnect. Before its run starts a completion makes two calls: the tenant's (meter, session,
 * run id) and the session's (start, with the live text when streamed).
 */

/** The run of a completion request: its session (or the run it continues), id, turn and the client's tools. */
export function doorRequest(
  key: Pick<CompletionRequest, "key" | "continues">,
  runId: string,
  turn: AgentTurn,
  tools: ClientToolSpec | null,
): CompletionRequest {
  return {
    ...key,
    runId,
    message: turn.message,
    extraSystemPrompt: turn.extraSystemPrompt,
    clientTools: tools?.tools,
  };
}

/** With client tools on offer, streamed text is held back: a stop at tool calls answers the calls alone. */
function holdsText(request: CompletionRequest): boolean {
  return (request.clientTools?.length ?? 0) > 0;
}

/** A 429 (`rate_limit_error`, with Retry-After) once the tenant's `rateLimit.completionsPerMinute` is used up. */
export async function admitOrRefuse(ctx: TenantContext, request: CompletionRequest): Promise<AdmittedCompletion> {
  const admitted = await admitCompletion(ctx, request);
  if ("request" in admitted) return admitted;
  throw new OpenAiError(
    429,
    "rate_limit_error",
    `Too many requests: the limit is ${admitted.perMinute} completions per minute. Please try again later.`,
    undefined,
    { "Retry-After": String(admitted.retryAfterSeconds) },
  );
}

/**
 * Runs a non-streaming completion to its end. The client going away (the request's signal,
 * where the runtime gives one) aborts the run, as OpenClaw does.
 */
export async function runToEnd(c: Context, ctx: TenantContext, admitted: AdmittedCompletion): Promise<RunSnapshot> {
  const run = await startCompletion(ctx, admitted, false);
  const watch = abortOnGone(c, run);
  try {
    return await run.outcome();
  } finally {
    watch.stop();
  }
}

/** What a streamed completion writes, in its route's shape: a delta (false: the client is gone), the end, a failure. */
export type StreamWriter = {
  delta(text: string): Promise<boolean>;
  /** The run ended; `held` is the text held back while client tools were on offer. */
  end(outcome: RunSnapshot, held: string): Promise<void>;
  fail(error: unknown): Promise<void>;
};

/**
 * Streams the admitted run into `sse` through `writer`, in the background; answers the SSE
 * response at once. A client that goes away (or already went) aborts the run. With client
 * tools on offer the text is held back: a run that ends in tool calls answers the calls alone
 * (OpenClaw drops the commentary before them).
 */
export function streamRun(
  c: Context,
  ctx: TenantContext,
  admitted: AdmittedCompletion,
  sse: SseStream,
  writer: StreamWriter,
): Response {
  const holdText = holdsText(admitted.request);
  const streaming = (async () => {
    try {
      const run = await startCompletion(ctx, admitted, true);
      sse.onGone(abortOnGone(c, run).abort);
      let held = "";
      for await (const delta of run.deltas()) {
        if (holdText) held += delta;
        else if (!(await writer.delta(delta))) break;
      }
      if (sse.gone) return;
      await writer.end(await run.outcome(), held);
    } catch (error) {
      await writer.fail(error);
    }
    await sse.done();
  })();
  c.executionCtx.waitUntil(streaming);
  return sse.response();
}

/** Aborts the run once the request's signal fires (or at once, when it already did); `stop` stops watching. */
function abortOnGone(c: Context, run: CompletionRun): { abort: () => void; stop: () => void } {
  const abort = () => void run.abort().catch(() => undefined);
  const signal = c.req.raw.signal as AbortSignal | undefined;
  if (signal?.aborted) abort();
  signal?.addEventListener("abort", abort, { once: true });
  return { abort, stop: () => signal?.removeEventListener("abort", abort) };
}
