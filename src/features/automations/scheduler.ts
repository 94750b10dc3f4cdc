import type { RunSnapshot } from "../../model/run-types";
import { defaultAgentId } from "../../policy/agent-config";
import type { TenantConfig } from "../../protocol/config";
import type { TimerHandlers, TimerPort } from "../../timers/timers";
import type { CronRunPort } from "./cron-runs";
import type {
  CronAddParams,
  CronJob,
  CronListParams,
  CronPatch,
  CronRunEntry,
  CronRunStatus,
  CronRunsParams,
} from "./cron-schemas";
import type { CronStore } from "./cron-store";
import { createJob, jobSessionKey, patchJob } from "./jobs";
import { nextRunAfter } from "./schedule";
import type { CronCallerInfo, CronResult } from "./scheduler-api";

/**
 * A tenant's automations: OpenClaw's `cron.*` rules over the job store, fired from the
 * scheduler object's one alarm through two timer kinds:
 * - `cron-due` (one per enabled job, at its next due time): claims that due time for a run
 *   and schedules the next, in one synchronous step, before anything is awaited. The run id
 *   is derived from the job and the due time (`cron:<jobId>:<dueAt>`), and a run id already
 *   used answers from its run, so a due time retried after a crash starts its run once.
 * - `cron-check` (while a job has a run in progress): finds the run's outcome, or starts the
 *   run (same id) if a crash came between the claim and the start.
 * A job has at most one run in progress: a due time that comes while it runs is recorded as
 * skipped. A due time missed while the object was down runs once when the alarm fires late
 * (further missed repetitions are not replayed; the next is computed from then).
 */

export type CronTimerKind = "cron-due" | "cron-check";

/** The first check of a run in progress, and the interval of later ones (a live watcher usually records it first). */
export const CRON_CHECK_AFTER_MS = 15_000;
/** How long a live watcher waits on one run before leaving it to the checks. */
const WATCH_MS = 10 * 60_000;
/** Run text kept in a history entry's summary. */
const SUMMARY_MAX_CHARS = 500;
const LIST_DEFAULT_LIMIT = 50;
const RUNS_DEFAULT_LIMIT = 50;

export type SchedulerLimits = { minIntervalMs: number; maxJobs: number };
/** Defaults; a deployment sets its own (wrangler vars CRON_MIN_INTERVAL_MS, CRON_MAX_JOBS_PER_TENANT). */
export const DEFAULT_MIN_INTERVAL_MS = 2_000;
export const DEFAULT_MAX_JOBS = 100;

export type SchedulerDeps = {
  store: CronStore;
  timers: TimerPort<CronTimerKind>;
  runs: CronRunPort;
  limits: SchedulerLimits;
  /** The tenant's current config (runs go where it says now). */
  config(): Promise<TenantConfig>;
  waitUntil(promise: Promise<unknown>): void;
  now?: () => number;
};

export type CronRunAnswer =
  | { ok: true; enqueued: true; runId: string }
  | { ok: true; ran: false; reason: "already-running" | "not-due" | "disabled" };

type Outcome = {
  status: CronRunStatus;
  error?: string;
  summary?: string;
  usage?: CronRunEntry["usage"];
  endedAt?: number;
};

export class Scheduler {
  private manualRuns = 0;

  constructor(private readonly deps: SchedulerDeps) {}

  readonly handlers: TimerHandlers<CronTimerKind> = {
    "cron-due": (jobId, now) => this.due(jobId, now),
    "cron-check": (jobId, now) => this.check(jobId, now),
  };

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  // ── Definitions ─────────────────────────────────────────────────────────

  add(params: CronAddParams, caller: CronCallerInfo): CronResult<CronJob> {
    const limits = caller.limits ?? this.deps.limits;
    if (this.deps.store.count() >= limits.maxJobs) {
      return { ok: false, code: "invalid", error: `a tenant can have at most ${limits.maxJobs} automations` };
    }
    const checked = createJob(params, { id: crypto.randomUUID(), nowMs: this.now(), config: caller.config, limits });
    if (!checked.ok) return { ok: false, code: "invalid", error: checked.error };
    this.deps.store.insert(checked.job, caller.origin);
    this.reschedule(checked.job);
    return { ok: true, value: readView(checked.job) };
  }

  update(id: string, patch: CronPatch, caller: CronCallerInfo): CronResult<CronJob> {
    const stored = this.deps.store.get(id);
    if (!stored) return notFound(id);
    const limits = caller.limits ?? this.deps.limits;
    const checked = patchJob(stored.job, patch, { nowMs: this.now(), config: caller.config, limits });
    if (!checked.ok) return { ok: false, code: "invalid", error: checked.error };
    this.deps.store.save(checked.job);
    this.reschedule(checked.job);
    return { ok: true, value: readView(checked.job) };
  }

  /** Removes a job, its timers and history; a run in progress finishes unrecorded. */
  remove(id: string): CronResult<{ ok: true; removed: true }> {
    if (!this.deps.store.remove(id)) return notFound(id);
    this.deps.timers.clear("cron-due", id);
    this.deps.timers.clear("cron-check", id);
    return { ok: true, value: { ok: true, removed: true } };
  }

  get(id: string): CronJob | null {
    const stored = this.deps.store.get(id);
    return stored ? readView(stored.job) : null;
  }

  list(params: CronListParams, config: TenantConfig) {
    const defaultAgent = defaultAgentId(config);
    const enabledFilter = params.enabled ?? (params.includeDisabled ? "all" : "enabled");
    const query = params.query?.trim().toLowerCase();
    let jobs = this.deps.store.all().map((stored) => stored.job);
    jobs = jobs.filter(
      (job) =>
        (enabledFilter === "all" || (enabledFilter === "enabled") === job.enabled) &&
        (!params.scheduleKind || params.scheduleKind === "all" || job.schedule.kind === params.scheduleKind) &&
        (!params.lastRunStatus ||
          params.lastRunStatus === "all" ||
          (job.state.lastRunStatus ?? "unknown") === params.lastRunStatus) &&
        (!params.agentId || (job.agentId ?? defaultAgent) === params.agentId.toLowerCase()) &&
        (!query || `${job.name}\n${job.description ?? ""}\n${job.id}`.toLowerCase().includes(query)),
    );
    const sortBy = params.sortBy ?? "nextRunAtMs";
    const direction = params.sortDir === "desc" ? -1 : 1;
    const sortValue = (job: CronJob): number | string =>
      sortBy === "name"
        ? job.name.toLowerCase()
        : sortBy === "updatedAtMs"
          ? job.updatedAtMs
          : (job.state.nextRunAtMs ?? Number.MAX_SAFE_INTEGER);
    jobs.sort((a, b) => {
      const [x, y] = [sortValue(a), sortValue(b)];
      return (x < y ? -1 : x > y ? 1 : a.createdAtMs - b.createdAtMs) * direction;
    });
    const offset = params.offset ?? 0;
    const limit = params.limit ?? LIST_DEFAULT_LIMIT;
    const page = jobs.slice(offset, offset + limit);
    const hasMore = offset + page.length < jobs.length;
    return {
      jobs: page.map((job) => ({ ...readView(job), effectiveAgentId: job.agentId ?? defaultAgent })),
      // The UI pages through one snapshot and refuses a page without a revision.
      snapshotRevision: `r${this.deps.store.revision()}`,
      total: jobs.length,
      offset,
      limit,
      hasMore,
      nextOffset: hasMore ? offset + page.length : null,
    };
  }

  /** The scheduler as it is: it always runs here (a Durable Object alarm needs no process). */
  status() {
    const all = this.deps.store.all();
    const due = all
      .filter((stored) => stored.job.enabled)
      .map((stored) => stored.job.state.nextRunAtMs)
      .filter((t): t is number => t !== undefined);
    return {
      enabled: true,
      triggersEnabled: false,
      storage: "durable-object",
      jobs: all.length,
      running: all.filter((stored) => stored.running).length,
      nextWakeAtMs: due.length > 0 ? Math.min(...due) : null,
    };
  }

  runs(params: CronRunsParams): CronResult<ReturnType<Scheduler["runsPage"]>> {
    const jobId = params.id ?? params.jobId;
    const scope = params.scope ?? (jobId ? "job" : "all");
    if (scope === "job") {
      if (!jobId) return { ok: false, code: "invalid", error: "missing id" };
      if (!this.deps.store.get(jobId) && this.deps.store.runs({ jobId, limit: 1, offset: 0, asc: false }).total === 0) {
        return notFound(jobId);
      }
    }
    return { ok: true, value: this.runsPage(params, scope === "job" ? jobId : undefined) };
  }

  private runsPage(params: CronRunsParams, jobId: string | undefined) {
    const statuses = params.statuses ?? (params.status && params.status !== "all" ? [params.status] : undefined);
    const offset = params.offset ?? 0;
    const limit = params.limit ?? RUNS_DEFAULT_LIMIT;
    const page = this.deps.store.runs({
      ...(jobId ? { jobId } : {}),
      ...(params.runId ? { runId: params.runId } : {}),
      ...(statuses ? { statuses } : {}),
      limit,
      offset,
      asc: params.sortDir === "asc",
    });
    const query = params.query?.trim().toLowerCase();
    const entries = query
      ? page.entries.filter((e) =>
          `${e.jobName ?? ""}\n${e.summary ?? ""}\n${e.error ?? ""}`.toLowerCase().includes(query),
        )
      : page.entries;
    const hasMore = offset + page.entries.length < page.total;
    return {
      entries,
      total: page.total,
      offset,
      limit,
      hasMore,
      nextOffset: hasMore ? offset + page.entries.length : null,
    };
  }

  /** Deletes every job and its history (the tenant is being deleted). */
  clear(): void {
    for (const stored of this.deps.store.all()) this.remove(stored.job.id);
  }

  private reschedule(job: CronJob): void {
    const next = job.state.nextRunAtMs;
    if (job.enabled && next !== undefined) this.deps.timers.set("cron-due", job.id, next);
    else this.deps.timers.clear("cron-due", job.id);
  }

  // ── Runs ────────────────────────────────────────────────────────────────

  /** `cron.run`: now (`force`, the default), only if enabled, or only if due. */
  async runNow(
    id: string,
    mode: "due" | "force" | "if-enabled",
    caller: CronCallerInfo,
  ): Promise<CronResult<CronRunAnswer>> {
    const stored = this.deps.store.get(id);
    if (!stored) return notFound(id);
    const { job } = stored;
    const now = this.now();
    if (mode === "if-enabled" && !job.enabled) return { ok: true, value: { ok: true, ran: false, reason: "disabled" } };
    if (stored.running) return { ok: true, value: { ok: true, ran: false, reason: "already-running" } };
    const next = job.state.nextRunAtMs;
    if (mode === "due" && !(job.enabled && next !== undefined && next <= now)) {
      return { ok: true, value: { ok: true, ran: false, reason: "not-due" } };
    }
    // Out of band: the job's next scheduled time stays as it is.
    const runId = `manual:${id}:${now}:${++this.manualRuns}`;
    job.state.runningAtMs = now;
    this.deps.store.save(job, { runId, startedAt: now });
    this.deps.timers.set("cron-check", id, now + CRON_CHECK_AFTER_MS);
    await this.begin(job, runId, caller.origin ?? stored.origin);
    return { ok: true, value: { ok: true, enqueued: true, runId } };
  }

  /** A due time came: claim it for a run (or record it skipped), schedule the next, start the run. */
  private async due(jobId: string, now: number): Promise<void> {
    const stored = this.deps.store.get(jobId);
    if (!stored?.job.enabled) return;
    const { job } = stored;
    const dueAt = job.state.nextRunAtMs;
    if (dueAt === undefined) return;
    if (dueAt > now) return this.deps.timers.set("cron-due", jobId, dueAt);
    const next = nextRunAfter(job.schedule, now, jobId);
    if (next === undefined) delete job.state.nextRunAtMs;
    else job.state.nextRunAtMs = next;
    const runId = `cron:${jobId}:${dueAt}`;
    if (stored.running) {
      this.deps.store.save(job);
      this.deps.store.addRun({
        ts: now,
        jobId,
        action: "finished",
        status: "skipped",
        error: "skipped: the previous run of this job is still running",
        runId,
        runAtMs: dueAt,
        durationMs: 0,
        ...(next !== undefined ? { nextRunAtMs: next } : {}),
        jobName: job.name,
      });
    } else {
      job.state.runningAtMs = now;
      this.deps.store.save(job, { runId, startedAt: now, dueAt });
      this.deps.timers.set("cron-check", jobId, now + CRON_CHECK_AFTER_MS);
    }
    if (next !== undefined) this.deps.timers.set("cron-due", jobId, next);
    if (!stored.running) await this.begin(job, runId, stored.origin);
  }

  /** Starts a claimed run; a refusal is its outcome, a failure is left to the check (same run id). */
  private async begin(job: CronJob, runId: string, origin: string | undefined): Promise<void> {
    let started: Awaited<ReturnType<CronRunPort["start"]>>;
    try {
      started = await this.deps.runs.start(job, runId, origin);
    } catch (error) {
      console.error(`cron: starting run ${runId} failed; the check retries it`, error);
      return;
    }
    if (!started.ok) return this.finish(job.id, runId, { status: "error", error: started.error });
    this.deps.waitUntil(this.watch(job.id, runId));
  }

  private async watch(jobId: string, runId: string): Promise<void> {
    try {
      const outcome = await this.deps.runs.outcome(runId, WATCH_MS);
      if (typeof outcome === "object") await this.finish(jobId, runId, outcomeOf(outcome));
    } catch (error) {
      console.error(`cron: watching run ${runId} failed; the check records it`, error);
    }
  }

  private async check(jobId: string, now: number): Promise<void> {
    const stored = this.deps.store.get(jobId);
    if (!stored?.running) return;
    const { runId } = stored.running;
    const outcome = await this.deps.runs.outcome(runId, 0);
    if (typeof outcome === "object") return this.finish(jobId, runId, outcomeOf(outcome));
    this.deps.timers.set("cron-check", jobId, now + CRON_CHECK_AFTER_MS);
    // The claim was written but the run never reached its session (a crash in between): start it now.
    if (outcome === "unknown") await this.begin(stored.job, runId, stored.origin);
  }

  /** Records a run's outcome once, and what it means for the job (a finished one-shot goes or is disabled). */
  private async finish(jobId: string, runId: string, outcome: Outcome): Promise<void> {
    const config = await this.deps.config();
    // From here on synchronous: a second finisher of the same run finds it recorded.
    const stored = this.deps.store.get(jobId);
    if (!stored || stored.running?.runId !== runId) return;
    const { job, running } = stored;
    const now = this.now();
    this.deps.store.addRun({
      ts: now,
      jobId,
      action: "finished",
      status: outcome.status,
      ...(outcome.error ? { error: outcome.error } : {}),
      ...(outcome.summary ? { summary: outcome.summary } : {}),
      sessionKey: safeSessionKey(job, config),
      runId,
      runAtMs: running.startedAt,
      durationMs: Math.max(0, (outcome.endedAt ?? now) - running.startedAt),
      ...(job.state.nextRunAtMs !== undefined ? { nextRunAtMs: job.state.nextRunAtMs } : {}),
      ...(outcome.usage ? { usage: outcome.usage } : {}),
      jobName: job.name,
    });
    const state = job.state;
    delete state.runningAtMs;
    state.lastRunAtMs = running.startedAt;
    state.lastRunStatus = outcome.status;
    state.lastStatus = outcome.status;
    if (outcome.error) state.lastError = outcome.error;
    else delete state.lastError;
    state.lastDurationMs = Math.max(0, (outcome.endedAt ?? now) - running.startedAt);
    state.consecutiveErrors = outcome.status === "error" ? (state.consecutiveErrors ?? 0) + 1 : 0;
    this.deps.timers.clear("cron-check", jobId);
    // A one-shot whose time was used: deleted after a success if asked, else kept, disabled.
    if (job.schedule.kind === "at" && state.nextRunAtMs === undefined) {
      if (outcome.status === "ok" && job.deleteAfterRun) {
        this.remove(jobId);
        return;
      }
      job.enabled = false;
    }
    this.deps.store.save(job, null);
  }
}

/** A job as OpenClaw lists it: its state, and the state's main fields at the top level too. */
export function readView(job: CronJob): CronJob & Record<string, unknown> {
  return {
    ...job,
    ...(job.state.nextRunAtMs !== undefined ? { nextRunAtMs: job.state.nextRunAtMs } : {}),
    ...(job.state.lastRunAtMs !== undefined ? { lastRunAtMs: job.state.lastRunAtMs } : {}),
    ...(job.state.lastRunStatus ? { lastRunStatus: job.state.lastRunStatus } : {}),
    ...(job.state.lastError ? { lastRunError: job.state.lastError } : {}),
  };
}

function outcomeOf(snapshot: RunSnapshot): Outcome {
  const usage = snapshot.usage
    ? {
        input_tokens: snapshot.usage.input,
        output_tokens: snapshot.usage.output,
        total_tokens: snapshot.usage.totalTokens,
      }
    : undefined;
  const ok = snapshot.state === "ok";
  const error = ok
    ? undefined
    : (snapshot.error ??
      (snapshot.state === "aborted" ? `aborted (${snapshot.stopReason ?? "stop"})` : snapshot.state));
  return {
    status: ok ? "ok" : "error",
    ...(error ? { error } : {}),
    ...(snapshot.reply ? { summary: snapshot.reply.slice(0, SUMMARY_MAX_CHARS) } : {}),
    ...(usage ? { usage } : {}),
    ...(snapshot.endedAt !== undefined ? { endedAt: snapshot.endedAt } : {}),
  };
}

function safeSessionKey(job: CronJob, config: TenantConfig): string | undefined {
  try {
    return jobSessionKey(job, config);
  } catch {
    return undefined;
  }
}

function notFound(id: string): { ok: false; code: "not_found"; error: string } {
  return {
    ok: false,
    code: "not_found",
    error: `Automation not found: ${id}. List automations and retry with a current job id.`,
  };
}
