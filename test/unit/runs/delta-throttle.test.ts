import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DELTA_INTERVAL_MS, DeltaThrottle } from "../../../src/runs/deltas";

// The delta throttle of a run's streamed text (run-events.ts keeps one per run), on fake timers:
// clients get at most one delta per DELTA_INTERVAL_MS, each carrying the cumulative text and
// what was added since the last one.

describe("DeltaThrottle", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => vi.useRealTimers());

  function throttle() {
    const emitted: Array<[text: string, delta: string]> = [];
    return { emitted, throttle: new DeltaThrottle((text, delta) => emitted.push([text, delta])) };
  }

  it("emits the first text at once and what follows within the interval once, at its end", () => {
    const { emitted, throttle: t } = throttle();
    t.push("He");
    expect(emitted).toEqual([["He", "He"]]);
    t.push("Hell");
    vi.advanceTimersByTime(DELTA_INTERVAL_MS / 2);
    t.push("Hello");
    expect(emitted).toHaveLength(1);
    vi.advanceTimersByTime(DELTA_INTERVAL_MS / 2 - 1);
    expect(emitted).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(emitted).toEqual([
      ["He", "He"],
      ["Hello", "llo"],
    ]);
  });

  it("emits at once again once an interval has passed since the last emission", () => {
    const { emitted, throttle: t } = throttle();
    t.push("a");
    vi.advanceTimersByTime(DELTA_INTERVAL_MS);
    t.push("ab");
    expect(emitted).toEqual([
      ["a", "a"],
      ["ab", "b"],
    ]);
  });

  it("flush emits what is pending now, and nothing when nothing changed", () => {
    const { emitted, throttle: t } = throttle();
    t.push("a");
    t.push("ab");
    t.flush();
    expect(emitted).toEqual([
      ["a", "a"],
      ["ab", "b"],
    ]);
    t.flush();
    vi.advanceTimersByTime(DELTA_INTERVAL_MS * 2);
    expect(emitted).toHaveLength(2);
  });

  it("cancel drops what is pending: no delta after the run ended another way", () => {
    const { emitted, throttle: t } = throttle();
    t.push("a");
    t.push("ab");
    t.cancel();
    vi.advanceTimersByTime(DELTA_INTERVAL_MS * 2);
    t.flush();
    expect(emitted).toEqual([["a", "a"]]);
  });

  it("a text that does not extend the last one is sent whole as the delta", () => {
    const { emitted, throttle: t } = throttle();
    t.push("NO_");
    vi.advanceTimersByTime(DELTA_INTERVAL_MS);
    t.push("Not silent");
    expect(emitted.at(-1)).toEqual(["Not silent", "Not silent"]);
  });
});
