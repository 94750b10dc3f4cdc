import type { LedgerApi, UsageEvent } from "../contracts/ledger-api";
import type { RunRecord } from "../model/run-types";
import { runnerFacts } from "../protocol/runner-specs/runner-declarations";

/**
 * The service's own floor under a run's output tokens: one per this many characters of reply.
 * Far above what tokenizers pack into a token (about 4 characters of English), so an honest
 * report is never raised; a host reporting 0 tokens for a long reply is.
 */
const REPLY_CHARS_PER_TOKEN_FLOOR = 16;

/**
 * What a finished run adds to its tenant's usage: its tokens by the runner's provider and
 * model, its tool calls, and whether it failed. Runs that never called a model (aborted
 * before starting, fixed replies) add nothing. The tokens are what the runner reported, which
 * the tenant controls (a webhook runner's host, a model endpoint it chose), so the meter takes
 * no figure below zero and no output below the reply's own length at REPLY_CHARS_PER_TOKEN_FLOOR
 * (docs/security.md, "Cannot exceed the operator's ceilings").
 */
export function usageEventOf(
  run: RunRecord,
  sessionId: string | undefined,
  toolCalls: Record<string, number>,
): UsageEvent | null {
  const ended = run.state === "ok" || run.state === "error" || run.state === "timeout";
  if (!ended || run.input.fixedReply !== undefined || run.startedAt === undefined) return null;
  const runner = run.input.runner;
  const facts = runnerFacts(runner);
  const model = facts.model ?? runner.type;
  // USD per million tokens (OpenClaw's model cost).
  const price = facts.cost;
  const input = tokens(run.usage?.input);
  const output = Math.max(tokens(run.usage?.output), Math.ceil((run.reply?.length ?? 0) / REPLY_CHARS_PER_TOKEN_FLOOR));
  return {
    at: run.endedAt ?? Date.now(),
    sessionKey: run.sessionKey,
    ...(sessionId ? { sessionId } : {}),
    agentId: run.input.agentId,
    provider: runner.type,
    model,
    input,
    output,
    totalTokens: Math.max(tokens(run.usage?.totalTokens), input + output),
    toolCalls: Object.values(toolCalls).reduce((n, calls) => n + calls, 0),
    ...(Object.keys(toolCalls).length > 0 ? { tools: toolCalls } : {}),
    failed: run.state !== "ok",
    ...(price && run.usage
      ? { cost: { input: (input * price.input) / 1e6, output: (output * price.output) / 1e6 } }
      : {}),
  };
}

/** A reported token count as the meter takes it: a whole number, never below zero. */
function tokens(reported: number | undefined): number {
  return Number.isFinite(reported) && reported! > 0 ? Math.floor(reported!) : 0;
}

/** Sends a run's usage to the ledger in the background; a lost report costs only a figure. */
export function reportUsage(ledger: LedgerApi, event: UsageEvent | null, waitUntil: (p: Promise<unknown>) => void) {
  if (!event) return;
  waitUntil(Promise.resolve(ledger.record(event)).catch((error) => console.error("ledger: usage not recorded", error)));
}
