import type { Context } from "hono";
import { admitCompletion, type CompletionRequest, type CompletionRun, startCompletion } from "../domain/completions";
import type { TenantContext } from "../domain/context";
import type { RunSnapshot } from "../model/run-types";
import { OpenAiError } from "./errors";
import type { AgentTurn } from "./prompt";
import type { ClientToolSpec } from "./tools";

/** What both completion routes do around a run: the rate limit, the start, the client's disconnect. */

/** The run of a completion request: its session, id, turn and the client's tools. */
export function doorRequest(key: string, runId: string, turn: AgentTurn, tools: ClientToolSpec | null): DoorRequest {
  return { key, runId, message: turn.message, extraSystemPrompt: turn.extraSystemPrompt, clientTools: tools?.tools };
}

/** With client tools on offer, streamed text is held back: a stop at tool calls answers the calls alone. */
export function holdsText(request: DoorRequest): boolean {
  return (request.clientTools?.length ?? 0) > 0;
}

/** The run a completion request asks for. */
export type DoorRequest = Omit<CompletionRequest, "follow">;

/** A 429 (`rate_limit_error`, with Retry-After) once the tenant's `rateLimit.completionsPerMinute` is used up. */
export async function admitOrRefuse(ctx: TenantContext): Promise<void> {
  const admitted = await admitCompletion(ctx);
  if (admitted.retryAfterSeconds === 0) return;
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
export async function runToEnd(c: Context, ctx: TenantContext, request: DoorRequest): Promise<RunSnapshot> {
  const run = await startCompletion(ctx, { ...request, follow: false });
  const signal = c.req.raw.signal as AbortSignal | undefined;
  const abort = () => void run.abort().catch(() => undefined);
  if (signal?.aborted) abort();
  signal?.addEventListener("abort", abort, { once: true });
  try {
    return await run.outcome();
  } finally {
    signal?.removeEventListener("abort", abort);
  }
}

/** Starts a followed run for a stream; a client that goes away (or already went) aborts it. */
export async function startFollowed(
  c: Context,
  ctx: TenantContext,
  request: DoorRequest,
  onGone: (handler: () => void) => void,
): Promise<CompletionRun> {
  const run = await startCompletion(ctx, { ...request, follow: true });
  const abort = () => void run.abort().catch(() => undefined);
  onGone(abort);
  const signal = c.req.raw.signal as AbortSignal | undefined;
  if (signal?.aborted) abort();
  signal?.addEventListener("abort", abort, { once: true });
  return run;
}
