import type { LedgerApi, UsageEvent } from "../contracts/ledger-api";
import type { RunRecord } from "../model/run-types";

/**
 * What a finished run adds to its tenant's usage: its tokens by the runner's provider and
 * model, its tool calls, and whether it failed. Runs that never called a model (aborted
 * before starting, fixed replies) add nothing.
 */
export function usageEventOf(
  run: RunRecord,
  sessionId: string | undefined,
  toolCalls: Record<string, number>,
): UsageEvent | null {
  const ended = run.state === "ok" || run.state === "error" || run.state === "timeout";
  if (!ended || run.input.fixedReply !== undefined || run.startedAt === undefined) return null;
  const runner = run.input.runner;
  const priced = runner.type === "openai" || runner.type === "anthropic";
  const model = (priced ? runner.model : undefined) ?? runner.type;
  // USD per million tokens (OpenClaw's model cost).
  const price = priced ? runner.cost : undefined;
  return {
    at: run.endedAt ?? Date.now(),
    sessionKey: run.sessionKey,
    ...(sessionId ? { sessionId } : {}),
    agentId: run.input.agentId,
    provider: runner.type,
    model,
    input: run.usage?.input ?? 0,
    output: run.usage?.output ?? 0,
    totalTokens: run.usage?.totalTokens ?? 0,
    toolCalls: Object.values(toolCalls).reduce((n, calls) => n + calls, 0),
    ...(Object.keys(toolCalls).length > 0 ? { tools: toolCalls } : {}),
    failed: run.state !== "ok",
    ...(price && run.usage
      ? { cost: { input: (run.usage.input * price.input) / 1e6, output: (run.usage.output * price.output) / 1e6 } }
      : {}),
  };
}

/** Sends a run's usage to the ledger in the background; a lost report costs only a figure. */
export function reportUsage(ledger: LedgerApi, event: UsageEvent | null, waitUntil: (p: Promise<unknown>) => void) {
  if (!event) return;
  waitUntil(Promise.resolve(ledger.record(event)).catch((error) => console.error("ledger: usage not recorded", error)));
}
