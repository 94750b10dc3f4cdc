import { agentIdParam, canonicalKey, mainKeyOf } from "../../domain/keys";
import { defaultAgentId, isKnownAgent } from "../../policy/agent-config";
import type { TenantConfig } from "../../protocol/config";
import type { CronAddParams, CronJob, CronPatch } from "./cron-schemas";
import { firstRunAt, scheduleProblem } from "./schedule";

/**
 * Jobs as definitions: building one from `cron.add`, applying a `cron.update` patch, the
 * rules OpenClaw checks on both, and which session a job's runs go to. Pure.
 */

export type JobLimits = { minIntervalMs: number };

/** A job or why it cannot be (OpenClaw's texts where it has them). */
export type Checked = { ok: true; job: CronJob } | { ok: false; error: string };

export function createJob(
  params: CronAddParams,
  options: { id: string; nowMs: number; config: TenantConfig; limits: JobLimits },
): Checked {
  const { nowMs, id } = options;
  const schedule =
    params.schedule.kind === "every" && params.schedule.anchorMs === undefined
      ? { ...params.schedule, anchorMs: nowMs }
      : params.schedule;
  const job: CronJob = {
    id,
    ...(params.agentId ? { agentId: agentIdParam(params.agentId) } : {}),
    ...(params.sessionKey ? { sessionKey: params.sessionKey } : {}),
    name: params.name.trim(),
    ...(params.description ? { description: params.description } : {}),
    enabled: params.enabled ?? true,
    // One-shots delete themselves after a successful run unless told otherwise (OpenClaw's default).
    ...((params.deleteAfterRun ?? schedule.kind === "at") ? { deleteAfterRun: true } : {}),
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    schedule,
    sessionTarget: params.sessionTarget,
    wakeMode: params.wakeMode,
    payload: params.payload,
    ...(params.delivery ? { delivery: params.delivery } : {}),
    state: {},
  };
  return finish(job, options, true);
}

export function patchJob(
  current: CronJob,
  patch: CronPatch,
  options: { nowMs: number; config: TenantConfig; limits: JobLimits },
): Checked {
  const job: CronJob = structuredClone(current);
  if (patch.name !== undefined) job.name = patch.name.trim();
  if (patch.description !== undefined) job.description = patch.description;
  if (patch.agentId !== undefined) {
    if (patch.agentId === null) delete job.agentId;
    else job.agentId = agentIdParam(patch.agentId);
  }
  if (patch.sessionKey !== undefined) {
    if (patch.sessionKey === null) delete job.sessionKey;
    else job.sessionKey = patch.sessionKey;
  }
  if (patch.enabled !== undefined) job.enabled = patch.enabled;
  const previousKind = job.schedule.kind;
  if (patch.deleteAfterRun !== undefined) job.deleteAfterRun = patch.deleteAfterRun;
  else if (patch.schedule?.kind === "at" && previousKind !== "at") job.deleteAfterRun = true;
  else if (previousKind === "at" && patch.schedule && patch.schedule.kind !== "at") delete job.deleteAfterRun;
  if (patch.schedule) {
    job.schedule =
      patch.schedule.kind === "every" && patch.schedule.anchorMs === undefined
        ? { ...patch.schedule, anchorMs: options.nowMs }
        : patch.schedule;
  }
  if (patch.sessionTarget !== undefined) job.sessionTarget = patch.sessionTarget;
  if (patch.wakeMode !== undefined) job.wakeMode = patch.wakeMode;
  if (patch.delivery !== undefined) job.delivery = patch.delivery;
  if (patch.payload) {
    const merged = patch.payload.kind === job.payload.kind ? { ...job.payload, ...patch.payload } : patch.payload;
    if (merged.kind === "systemEvent" && !merged.text) {
      return { ok: false, error: 'cron.update payload.kind="systemEvent" requires text' };
    }
    if (merged.kind === "agentTurn" && !merged.message) {
      return { ok: false, error: 'cron.update payload.kind="agentTurn" requires message' };
    }
    job.payload = merged as CronJob["payload"];
  }
  job.updatedAtMs = options.nowMs;
  const scheduleTouched = patch.schedule !== undefined || (patch.enabled === true && !current.enabled);
  return finish(job, { ...options, id: job.id }, scheduleTouched);
}

/** The rules on a whole job, then its next due time when its schedule (or enabling) changed. */
function finish(
  job: CronJob,
  options: { id: string; nowMs: number; config: TenantConfig; limits: JobLimits },
  reschedule: boolean,
): Checked {
  const agentId = job.agentId ?? defaultAgentId(options.config);
  if (!isKnownAgent(options.config, agentId)) return { ok: false, error: `unknown agent id "${agentId}"` };
  if (job.sessionTarget === "main" && job.payload.kind !== "systemEvent") {
    return { ok: false, error: 'main cron jobs require payload.kind="systemEvent"' };
  }
  if (job.sessionTarget !== "main" && job.payload.kind !== "agentTurn") {
    return { ok: false, error: 'isolated/current/session cron jobs require payload.kind="agentTurn"' };
  }
  if (job.sessionTarget === "current" && !job.sessionKey) {
    return { ok: false, error: 'sessionTarget "current" needs the sessionKey of the session to run in' };
  }
  try {
    jobSessionKey(job, options.config);
  } catch (error) {
    return { ok: false, error: `invalid cron sessionTarget session id: ${(error as Error).message}` };
  }
  if (reschedule) {
    const problem = scheduleProblem(job.schedule, {
      nowMs: options.nowMs,
      minIntervalMs: options.limits.minIntervalMs,
      jobId: job.id,
    });
    if (problem) return { ok: false, error: problem };
    const next = job.enabled ? firstRunAt(job.schedule, options.nowMs, job.id) : undefined;
    if (next === undefined) delete job.state.nextRunAtMs;
    else job.state.nextRunAtMs = next;
  } else if (!job.enabled) {
    delete job.state.nextRunAtMs;
  }
  return { ok: true, job };
}

/**
 * Where a job's runs go: `isolated` → its own `agent:<agentId>:cron:<jobId>` session, `main` →
 * the agent's main session, `current` → the session it was created from, `session:<key>` → that key.
 */
export function jobSessionKey(job: CronJob, config: TenantConfig): string {
  const agentId = job.agentId ?? defaultAgentId(config);
  const ctx = { config };
  switch (job.sessionTarget) {
    case "isolated":
      return `agent:${agentId}:cron:${job.id}`;
    case "main":
      return mainKeyOf(ctx, agentId);
    case "current":
      return canonicalKey(ctx, job.sessionKey ?? "", agentId);
    default:
      return canonicalKey(ctx, job.sessionTarget.slice("session:".length), agentId);
  }
}

/** The message a job's run starts with. */
export function jobMessage(job: CronJob): string {
  return job.payload.kind === "agentTurn" ? job.payload.message : job.payload.text;
}
