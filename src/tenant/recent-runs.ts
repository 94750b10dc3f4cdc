/** How long a recorded run id counts as possibly still on its way to its session. */
export const RECENT_RUN_MS = 10_000;

/**
 * Abortable run ids (started through a session's startRun: chat.send, agent, ingest) recorded
 * in the last RECENT_RUN_MS, per session key: an abort without a run id
 * (chat.abort, sessions.abort, /stop) also aborts a run whose start has not reached its
 * session yet, as OpenClaw aborts every pre-registered run of the key. Memory only: the
 * window is a moment, and an evicted tenant object has no start in flight.
 */
export class RecentRuns {
  private readonly byKey = new Map<string, Array<{ runId: string; at: number }>>();

  recorded(key: string, runId: string, now: number): void {
    const runs = this.fresh(key, now);
    runs.push({ runId, at: now });
    this.byKey.set(key, runs);
  }

  of(key: string, now: number): string[] {
    return this.fresh(key, now).map((r) => r.runId);
  }

  private fresh(key: string, now: number): Array<{ runId: string; at: number }> {
    const runs = (this.byKey.get(key) ?? []).filter((r) => now - r.at <= RECENT_RUN_MS);
    if (runs.length === 0) this.byKey.delete(key);
    else this.byKey.set(key, runs);
    return runs;
  }
}
