import type { ClientTool, RunSnapshot } from "../model/run-types";
import type { RunTapLine } from "../runs/run-taps";
import type { TenantContext } from "./context";
import { startRun } from "./runs";

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
  key: string;
  runId: string;
  message: string;
  extraSystemPrompt?: string | undefined;
  /** The caller's own tools, offered to the model; a call of one ends the run (`clientToolCalls`). */
  clientTools?: ClientTool[] | undefined;
  /** Open the live text before the run starts (streaming answers). */
  follow: boolean;
};

/** Counts one completion against `rateLimit.completionsPerMinute`; answers the seconds to wait, or 0. */
export async function admitCompletion(
  ctx: TenantContext<"runs">,
): Promise<{ retryAfterSeconds: number; perMinute: number }> {
  const { retryAfterMs, perMinute } = await ctx.tenant.admit("completions");
  return { retryAfterSeconds: retryAfterMs > 0 ? Math.ceil(retryAfterMs / 1000) : 0, perMinute };
}

/**
 * Starts the run (as the `agent` method does: OpenClaw runs these through its agent command).
 * Refusals before the run (send policy, size) throw DomainError; a started run's failure is
 * in its outcome.
 */
export async function startCompletion(ctx: TenantContext<"runs">, request: CompletionRequest): Promise<CompletionRun> {
  const session = ctx.sessions(request.key);
  // Opened first, so not even the first delta of a fast run is missed.
  const tap = request.follow ? await session.followRun(request.runId) : null;
  try {
    await startRun(ctx, {
      key: request.key,
      runId: request.runId,
      message: request.message,
      origin: "agent",
      provenance: { kind: "external_user" },
      ...(request.extraSystemPrompt ? { extraSystemPrompt: request.extraSystemPrompt } : {}),
      ...(request.clientTools?.length ? { clientTools: request.clientTools } : {}),
    });
  } catch (error) {
    await tap?.cancel().catch(() => undefined);
    throw error;
  }
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
