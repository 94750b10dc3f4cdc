import type { AbortReason } from "./run-payloads";

/** How long an abort for a run that has not reached its session yet is remembered. */
const EARLY_ABORT_TTL_MS = 60_000;

/**
 * Aborts of runs that are not stored yet. OpenClaw aborts a run right after `chat.send`,
 * before it started; here a start is on its way while the session object awaits (a reset,
 * the session index), or an abort by run id can even arrive before the start itself. The start
 * consults this and records the run as aborted instead of running it. Memory only: a start
 * in progress does not survive eviction either.
 */
export class EarlyAborts {
  /** Starts in progress: run id → how it was aborted meanwhile (null: not aborted). */
  private readonly starting = new Map<string, AbortReason | null>();
  /** Aborts by run id that arrived before their start: run id → reason and when. */
  private readonly early = new Map<string, { reason: AbortReason; at: number }>();

  /** A start begins; false when one for this run id is already in progress. */
  begin(runId: string): boolean {
    if (this.starting.has(runId)) return false;
    this.starting.set(runId, null);
    return true;
  }

  /** The start is done: how the run was aborted meanwhile, or null to run it. */
  finish(runId: string, now = Date.now()): AbortReason | null {
    const reason = this.starting.get(runId) ?? null;
    this.starting.delete(runId);
    const early = this.early.get(runId);
    this.early.delete(runId);
    if (reason) return reason;
    return early && now - early.at <= EARLY_ABORT_TTL_MS ? early.reason : null;
  }

  /** Aborts a start in progress by run id; false when none is. */
  abort(runId: string, reason: AbortReason): boolean {
    if (this.starting.get(runId) !== null || !this.starting.has(runId)) return false;
    this.starting.set(runId, reason);
    return true;
  }

  /**
   * Remembers aborts for runs the tenant recorded for this session whose start has not
   * arrived yet (neither stored nor starting); returns their ids.
   */
  abortUnarrived(
    runIds: string[],
    reason: AbortReason,
    stored: (runId: string) => boolean,
    now = Date.now(),
  ): string[] {
    for (const [id, entry] of this.early) if (now - entry.at > EARLY_ABORT_TTL_MS) this.early.delete(id);
    const unarrived = runIds.filter((id) => !this.starting.has(id) && !stored(id));
    for (const id of unarrived) this.early.set(id, { reason, at: now });
    return unarrived;
  }

  /** Aborts every start in progress; returns their run ids. */
  abortAll(reason: AbortReason): string[] {
    const ids = [...this.starting.keys()].filter((id) => this.starting.get(id) === null);
    for (const id of ids) this.starting.set(id, reason);
    return ids;
  }
}
