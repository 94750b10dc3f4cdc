import { describe, expect, it } from "vitest";
import { AUDIENCE_TTL_MS, COLD_WINDOW_MS, eventCutsWindow, publishDelayMs } from "../../../src/session/publish-window";

const NOW = 1_800_000_000_000;
const appends = { urgent: false, reasons: 0, events: 0 };
const events = { urgent: false, reasons: 0, events: 3 };
const nobody = { hot: false, listening: false, at: NOW - 100 };
const readersOnly = { hot: false, listening: true, at: NOW - 100 };
const followed = { hot: true, listening: true, at: NOW - 100 };

describe("when a session sends its next index update (publish-window)", () => {
  it("holds appends and events of a session nobody listens to for one window (≥ 1 s)", () => {
    expect(COLD_WINDOW_MS).toBeGreaterThanOrEqual(1_000);
    expect(publishDelayMs(appends, nobody, NOW)).toBe(COLD_WINDOW_MS);
    expect(publishDelayMs(events, nobody, NOW)).toBe(COLD_WINDOW_MS);
    expect(eventCutsWindow(nobody, NOW)).toBe(false);
  });

  it("sends at once what a follower, a reader of run events or a waiting caller needs", () => {
    expect(publishDelayMs(appends, followed, NOW)).toBe(0);
    expect(publishDelayMs(events, followed, NOW)).toBe(0);
    // Run events go to every reader; plain appends only to followers.
    expect(publishDelayMs(events, readersOnly, NOW)).toBe(0);
    expect(eventCutsWindow(readersOnly, NOW)).toBe(true);
    expect(publishDelayMs(appends, readersOnly, NOW)).toBe(COLD_WINDOW_MS);
    expect(publishDelayMs({ ...appends, urgent: true }, nobody, NOW)).toBe(0);
    expect(publishDelayMs({ ...appends, reasons: 1 }, nobody, NOW)).toBe(0);
  });

  it("treats a missing or stale answer as someone listening (a client that connected meanwhile waits no window)", () => {
    expect(publishDelayMs(appends, null, NOW)).toBe(0);
    expect(eventCutsWindow(null, NOW)).toBe(true);
    const stale = { ...nobody, at: NOW - AUDIENCE_TTL_MS };
    expect(publishDelayMs(appends, stale, NOW)).toBe(0);
    expect(eventCutsWindow(stale, NOW)).toBe(true);
    const fresh = { ...nobody, at: NOW - AUDIENCE_TTL_MS + 1 };
    expect(publishDelayMs(appends, fresh, NOW)).toBe(COLD_WINDOW_MS);
  });
});
