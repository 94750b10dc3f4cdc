import { Waiters } from "../util/waiters";
import { RecentRuns } from "./recent-runs";
import type { RunsIndexStore } from "./runs-index-store";

/**
 * Which session each run belongs to (agent.wait and callbacks carry only the runId), with
 * waiters for a run id not recorded yet and the runs of a key started a moment ago.
 */
export class RunIndex {
  private readonly waiters = new Waiters<string, boolean>();
  private readonly recent = new RecentRuns();

  constructor(private readonly index: RunsIndexStore) {}

  record(runId: string, key: string, abortable: boolean): string {
    const now = Date.now();
    const owner = this.index.recordRun(runId, key, now);
    if (abortable && owner === key) this.recent.recorded(key, runId, now);
    this.waiters.wake(runId, true);
    return owner;
  }

  recentRunIds(key: string): string[] {
    return this.recent.of(key, Date.now());
  }

  keyOf(runId: string): string | null {
    return this.index.runKey(runId) ?? null;
  }

  /** The run's session, waiting up to `timeoutMs` for the run id to be recorded; null when it is not. */
  async waitForKey(runId: string, timeoutMs: number): Promise<string | null> {
    const key = this.keyOf(runId);
    if (key || timeoutMs <= 0) return key;
    await this.waiters.wait(runId, timeoutMs, () => false);
    return this.keyOf(runId);
  }
}
