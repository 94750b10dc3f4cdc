import { describe, expect, it } from "vitest";
import { usageEventOf } from "../../../src/ledger/usage-event";
import type { RunRecord } from "../../../src/model/run-types";

// The tokens a run adds to tokensPerDay are what its runner reported: a webhook runner's host or
// a model endpoint the tenant chose reports them. The meter keeps its own floor under them.

function run(
  usage: RunRecord["usage"],
  reply: string,
  runner: Record<string, unknown> = { type: "webhook", url: "https://h.example" },
): RunRecord {
  return {
    runId: "r1",
    sessionKey: "agent:main:main",
    state: "ok",
    input: { runner, agentId: "main", tenantId: "t" } as unknown as RunRecord["input"],
    createdAt: 1,
    startedAt: 1,
    endedAt: 2,
    attempts: 1,
    deferred: false,
    ...(usage ? { usage } : {}),
    reply,
  };
}

describe("usageEventOf: what the meter takes of a runner's reported usage", () => {
  it("counts at least the reply's characters / 16 as output, whatever the runner says", () => {
    const reply = "x".repeat(16_000);
    const event = usageEventOf(run({ input: 0, output: 0, totalTokens: 0 }, reply), undefined, {})!;
    expect([event.input, event.output, event.totalTokens]).toEqual([0, 1_000, 1_000]);
    expect(usageEventOf(run(undefined, reply), undefined, {})!.totalTokens).toBe(1_000);
  });

  it("never takes a negative, fractional or non-finite figure (it would lower the day's count)", () => {
    const event = usageEventOf(run({ input: -5_000_000, output: Number.NaN, totalTokens: -1 }, "ok"), undefined, {})!;
    expect([event.input, event.output, event.totalTokens]).toEqual([0, 1, 1]);
    const fractional = usageEventOf(run({ input: 10.7, output: 2.2, totalTokens: 3 }, ""), undefined, {})!;
    expect([fractional.input, fractional.output, fractional.totalTokens]).toEqual([10, 2, 12]);
  });

  it("keeps an honest report as it is (about 4 characters a token is far above the floor)", () => {
    const event = usageEventOf(run({ input: 11, output: 7, totalTokens: 18 }, "x".repeat(28)), undefined, {})!;
    expect([event.input, event.output, event.totalTokens]).toEqual([11, 7, 18]);
  });
});
