import type { StartResult } from "../contracts/session-api";
import type { RunRecord, RunSnapshot } from "../model/run-types";

/** The one mapping from a run's stored state to what callers see (agent.wait, dedupe answers). */

export function toSnapshot(run: RunRecord): RunSnapshot {
  const status: RunSnapshot["status"] =
    run.state === "ok"
      ? "ok"
      : run.state === "queued" || run.state === "running"
        ? "pending"
        : run.state === "timeout"
          ? "timeout"
          : "error";
  return {
    runId: run.runId,
    status,
    state: run.state,
    ...(run.startedAt !== undefined ? { startedAt: run.startedAt } : {}),
    ...(run.endedAt !== undefined ? { endedAt: run.endedAt } : {}),
    ...(run.stopReason ? { stopReason: run.stopReason } : {}),
    ...(run.error ? { error: run.error } : {}),
    ...(run.reply !== undefined ? { reply: run.reply } : {}),
    ...(run.usage ? { usage: run.usage } : {}),
    ...(run.clientToolCalls ? { clientToolCalls: run.clientToolCalls } : {}),
  };
}

/** The answer to starting a run id that already exists: in flight, or how it ended. */
export function existingRunResult(snapshot: RunSnapshot): StartResult {
  if (snapshot.status === "pending") return { runId: snapshot.runId, status: "in_flight" };
  const state = snapshot.state;
  return {
    runId: snapshot.runId,
    status: state === "ok" || state === "timeout" || state === "aborted" ? state : "error",
    ...(snapshot.error ? { summary: snapshot.error } : {}),
    ...(snapshot.reply !== undefined ? { reply: snapshot.reply } : {}),
    ...(snapshot.stopReason ? { stopReason: snapshot.stopReason } : {}),
    ...(snapshot.endedAt !== undefined ? { endedAt: snapshot.endedAt } : {}),
  };
}
