import { describe, expect, it } from "vitest";
import { HANDSHAKE_TIMEOUT_MS, handshakeExpired, planAlarm } from "../../../src/gateway/liveness";
import { TICK_INTERVAL_MS } from "../../../src/protocol/gateway";

const NOW = 1_800_000_000_000;
const socket = (name: string, phase: "challenge" | "ready", challengeTs: number) => ({
  name,
  state: { phase, challengeTs },
});

describe("the gateway alarm (tick and handshake deadline)", () => {
  it("expires a socket still in the challenge phase at exactly its deadline, never a ready one", () => {
    expect(handshakeExpired({ phase: "challenge", challengeTs: NOW }, NOW + HANDSHAKE_TIMEOUT_MS - 1)).toBe(false);
    expect(handshakeExpired({ phase: "challenge", challengeTs: NOW }, NOW + HANDSHAKE_TIMEOUT_MS)).toBe(true);
    expect(handshakeExpired({ phase: "ready", challengeTs: NOW }, NOW + 10 * HANDSHAKE_TIMEOUT_MS)).toBe(false);
  });

  it("ticks the ready, closes the expired, and wakes at the next deadline or tick", () => {
    const ready = socket("ready", "ready", NOW - 60_000);
    const expired = socket("expired", "challenge", NOW - HANDSHAKE_TIMEOUT_MS);
    const waiting = socket("waiting", "challenge", NOW - 5_000);
    const plan = planAlarm([ready, expired, waiting], NOW);
    expect(plan.tick.map((c) => c.name)).toEqual(["ready"]);
    expect(plan.expired.map((c) => c.name)).toEqual(["expired"]);
    expect(plan.nextAt).toBe(NOW - 5_000 + HANDSHAKE_TIMEOUT_MS);
    expect(planAlarm([ready], NOW).nextAt).toBe(NOW + TICK_INTERVAL_MS);
  });

  it("sets no alarm once nobody is left (the object may sleep)", () => {
    expect(planAlarm([], NOW).nextAt).toBeNull();
    expect(planAlarm([socket("gone", "challenge", NOW - HANDSHAKE_TIMEOUT_MS)], NOW)).toMatchObject({
      nextAt: null,
      expired: [{ name: "gone" }],
    });
  });
});
