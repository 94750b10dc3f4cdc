import type { CompletionAdmission, ContinuedRun } from "../../contracts/tenant-api";
import type { TenantContext } from "../../domain/context";
import { startRecordedRun } from "../../domain/runs";
import type { ClientTool, RunSnapshot } from "../../model/run-types";
import type { RunTapLine } from "../../runs/run-taps";

/**
 * A run started for a caller that waits for its answer over HTTP (the OpenAI-compatible
 * routes): a normal agent run in the session (send policy, transcript, events to WebSocket
 * clients and followers, timeouts), with its live text and its outcome at hand.
 */
export type CompletionRun = {
  runId: string;
  sessionKey: string;
  /** The text as it streams (empty when the run was not followed). */
  deltas(): AsyncGenerator<string>;
  /** The run's outcome once it ended (waits as long as the run lasts). */
  outcome(): Promise<RunSnapshot>;
  /** Ends the run (the client went away). */
  abort(): Promise<void>;
};

/** The run's outcome is polled in waits of this long (each one RPC; the run may last much longer). */
const OUTCOME_WAIT_MS = 60_000;

export type CompletionRequest = {
  /** The session the run goes to unless it `continues` another run's. */
  key: string;
  continues?: ContinuedRun | undefined;
  runId: string;
  message: string;
  extraSystemPrompt?: string | undefined;
  /** The caller's own tools, offered to the model; a call of one ends the run (`clientToolCalls`). */
  clientTools?: ClientTool[] | undefined;
};

/** A completion the tenant let through its meter: the run's session and its run-start answer. */
export type AdmittedCompletion = {
  request: CompletionRequest;
  recorded: Extract<CompletionAdmission, { key: string }>["recorded"];
};

/**
 * Counts one completion against `rateLimit.completionsPerMinute`, settles the run's session and
 * records its run id: one tenant call. Over the meter it answers the seconds to wait.
 */
export async function admitCompletion(
  ctx: TenantContext<"runs">,
  request: CompletionRequest,
): Promise<AdmittedCompletion | { retryAfterSeconds: number; perMinute: number }> {
  const admission = await ctx.tenant.admitCompletion(request.runId, request.key, request.continues);
  if ("limited" in admission) {
    const { retryAfterMs, perMinute } = admission.limited;
    return { retryAfterSeconds: Math.ceil(retryAfterMs / 1000), perMinute };
  }
  return { request: { ...request, key: admission.key }, recorded: admission.recorded };
}

/**
 * Starts the admitted run (as the `agent` method does: OpenClaw runs these through its agent
 * command) in one session call; `follow` opens its live text first. Refusals before the run
 * (run limits, send policy, size) throw DomainError; a started run's failure is in its outcome.
 */
export async function startCompletion(
  ctx: TenantContext<"runs">,
  { request, recorded }: AdmittedCompletion,
  follow: boolean,
): Promise<CompletionRun> {
  const session = ctx.sessions(request.key);
  const started = await startRecordedRun(
    ctx,
    {
      key: request.key,
      runId: request.runId,
      message: request.message,
      origin: "agent",
      provenance: { kind: "external_user" },
      ...(request.extraSystemPrompt ? { extraSystemPrompt: request.extraSystemPrompt } : {}),
      ...(request.clientTools?.length ? { clientTools: request.clientTools } : {}),
      ...(follow ? { follow } : {}),
    },
    recorded,
  );
  const tap = started.tap ?? null;
  return {
    runId: request.runId,
    sessionKey: request.key,
    deltas: () => (tap ? tapDeltas(tap) : noDeltas()),
    outcome: async () => {
      for (;;) {
        const snapshot = await session.waitRun(request.runId, OUTCOME_WAIT_MS);
        if (!snapshot) return { runId: request.runId, status: "error", state: "error", error: "run not found" };
        if (snapshot.status !== "pending") return snapshot;
      }
    },
    abort: async () => {
      await tap?.cancel().catch(() => undefined);
      await session.abortRun(request.runId, "rpc", [request.runId]);
    },
  };
}

async function* noDeltas(): AsyncGenerator<string> {}

/** The tap's JSON lines → the text deltas, until the run's end line (or the tap closed). */
async function* tapDeltas(tap: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = tap.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
        const line = JSON.parse(buffer.slice(0, newline)) as RunTapLine;
        buffer = buffer.slice(newline + 1);
        if (line.type === "end") return;
        if (line.text) yield line.text;
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}
