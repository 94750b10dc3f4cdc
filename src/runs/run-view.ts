import { type RunRecord, TERMINAL_STATES } from "../model/run-types";
import type { RunnerConfig } from "../protocol/config";
import type { RunView } from "../protocol/runs";

/** Characters of message and reply a run list carries per run (the run route gives them whole). */
export const RUN_LIST_TEXT_CHARS = 2_000;

/** A stored run as the HTTP API shows it: no runner URL, no callback base, no run token. */
export function toRunView(run: RunRecord, options: { maxTextChars?: number } = {}): RunView {
  const stored = run.input as RunRecord["input"] & { runner?: RunnerConfig; agentId?: string };
  const max = options.maxTextChars ?? Number.POSITIVE_INFINITY;
  const cut = (text: string) => (text.length > max ? text.slice(0, max) : text);
  const truncated = run.input.message.length > max || (run.reply?.length ?? 0) > max;
  return {
    runId: run.runId,
    sessionKey: run.sessionKey,
    ...(stored.agentId ? { agentId: stored.agentId } : {}),
    status: run.state,
    done: TERMINAL_STATES.includes(run.state),
    origin: run.input.origin,
    runner: run.input.fixedReply !== undefined ? "fixed" : (stored.runner?.type ?? "echo"),
    message: cut(run.input.message),
    createdAt: run.createdAt,
    ...(run.startedAt !== undefined ? { startedAt: run.startedAt } : {}),
    ...(run.endedAt !== undefined ? { endedAt: run.endedAt } : {}),
    ...(run.startedAt !== undefined && run.endedAt !== undefined ? { durationMs: run.endedAt - run.startedAt } : {}),
    ...(run.stopReason ? { stopReason: run.stopReason } : {}),
    ...(run.error ? { error: run.error } : {}),
    ...(run.reply !== undefined ? { reply: cut(run.reply) } : {}),
    ...(run.usage ? { usage: run.usage } : {}),
    attempts: run.attempts,
    deferred: run.deferred,
    ...(run.userSeq !== undefined ? { messageSeq: run.userSeq } : {}),
    ...(run.replySeq !== undefined ? { replySeq: run.replySeq } : {}),
    ...(truncated ? { truncated: true } : {}),
  };
}
