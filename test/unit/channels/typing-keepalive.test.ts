import { describe, expect, it } from "vitest";
import { TypingKeepAlive } from "../../../src/features/channels/typing-keepalive";
import type { DeliveryTarget } from "../../../src/model/delivery";

/**
 * The keep-alive's rules over its ports (the e2e test/e2e/channels-telegram.e2e.mjs proves the
 * pacing against wrangler dev): a run with a reply target repeats typing from its start until
 * its end; a run without one, or on a platform without typing, sends nothing.
 */

const INTERVAL_MS = 40;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const started = (runId: string) => ({ event: "sessions.changed" as const, payload: { phase: "start", runId, ts: 0 } });
const ended = (runId: string, phase = "end") => ({
  event: "sessions.changed" as const,
  payload: { phase, runId, ts: 0 },
});

function keepAlive(targets: Record<string, DeliveryTarget>, platformHasTyping = true) {
  const sent: string[] = [];
  let resolved = 0;
  const typing = new TypingKeepAlive(
    {
      replyTargetOf: (runId) => targets[runId],
      typing: async (target) => {
        resolved++;
        return platformHasTyping ? async () => void sent.push(target.to) : null;
      },
    },
    INTERVAL_MS,
  );
  return { typing, sent, resolvedCount: () => resolved };
}

describe("TypingKeepAlive", () => {
  it("repeats typing while the run lasts and stops at its end", async () => {
    const { typing, sent } = keepAlive({ r1: { channel: "telegram", to: "telegram:5" } });
    typing.offer(started("r1"));
    await sleep(INTERVAL_MS * 4.5);
    typing.offer(ended("r1"));
    const atEnd = sent.length;
    expect(atEnd).toBeGreaterThanOrEqual(2);
    await sleep(INTERVAL_MS * 3);
    expect(sent.length).toBe(atEnd);
    expect(typing.size).toBe(0);
  });

  it("stops on an error end too, and a second start of the same run keeps one timer", async () => {
    const { typing, sent } = keepAlive({ r2: { channel: "telegram", to: "telegram:6" } });
    typing.offer(started("r2"));
    typing.offer(started("r2"));
    expect(typing.size).toBe(1);
    typing.offer(ended("r2", "error"));
    await sleep(INTERVAL_MS * 2);
    expect(sent).toEqual([]);
  });

  it("keeps nothing for a run without a reply target; resolves the platform only once the interval passed", async () => {
    const { typing, sent, resolvedCount } = keepAlive({ r3: { channel: "slack", to: "user:U1" } }, false);
    typing.offer(started("no-target"));
    expect(typing.size).toBe(0);
    typing.offer(started("r3"));
    expect(resolvedCount()).toBe(0);
    await sleep(INTERVAL_MS * 3.5);
    typing.offer(ended("r3"));
    expect(resolvedCount()).toBe(1);
    expect(sent).toEqual([]);
  });
});
