import { toBase64Url } from "../../util/encoding";
import { stableJson } from "../../util/stable-json";
import type { CronJob, CronPatch } from "./cron-schemas";
import type { Scheduler } from "./scheduler";
import type { CronCallerInfo, CronResult } from "./scheduler-api";

/**
 * A job's `configRevision`, as OpenClaw gives it: `sha256:<base64url>` of the job's definition
 * (everything but its run state and update time, keys sorted). The Control UI sends it back as
 * `expectedConfigRevision` on `cron.update`, so a change made meanwhile elsewhere is refused
 * instead of overwritten.
 */
export async function configRevision(job: CronJob): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(definitionJson(job)));
  return `sha256:${toBase64Url(new Uint8Array(digest))}`;
}

/** What the revision covers: the job's definition (not its run state, update time or list-view fields). */
const DEFINITION_KEYS = [
  "id",
  "agentId",
  "sessionKey",
  "name",
  "description",
  "enabled",
  "deleteAfterRun",
  "createdAtMs",
  "schedule",
  "sessionTarget",
  "wakeMode",
  "payload",
  "delivery",
] as const satisfies readonly (keyof CronJob)[];

function definitionJson(job: CronJob): string {
  return stableJson(Object.fromEntries(DEFINITION_KEYS.map((key) => [key, job[key]])));
}

/** OpenClaw's refusal when the definition changed since the caller loaded it. */
export const CRON_JOB_CHANGED_MESSAGE =
  "cron job definition no longer matches the loaded version; review the latest version before retrying";

export async function withRevision<T extends CronJob | null>(job: T): Promise<T> {
  return job && { ...job, configRevision: await configRevision(job) };
}

export async function resultWithRevision(result: CronResult<CronJob>): Promise<CronResult<CronJob>> {
  return result.ok ? { ok: true, value: await withRevision(result.value) } : result;
}

/** A list answer with each job's revision. */
export async function listWithRevisions(list: Record<string, unknown>): Promise<Record<string, unknown>> {
  const jobs = (list.jobs ?? []) as CronJob[];
  return { ...list, jobs: await Promise.all(jobs.map(withRevision)) };
}

/**
 * `cron.update` with OpenClaw's precondition: the revision is computed, then the job is checked
 * again synchronously right before the update, so no change can slip in between.
 */
export async function updateIfCurrent(
  scheduler: Scheduler,
  id: string,
  patch: CronPatch,
  caller: CronCallerInfo,
  expected: string | undefined,
): Promise<CronResult<CronJob> | { ok: false; code: "changed"; error: string; details: Record<string, string> }> {
  if (expected !== undefined) {
    const job = scheduler.get(id);
    if (job) {
      const loaded = definitionJson(job);
      const actual = await configRevision(job);
      // Checked again after the await, in the same turn as the update.
      const current = scheduler.get(id);
      if (actual !== expected || !current || definitionJson(current) !== loaded) {
        const details = { code: "CRON_JOB_CHANGED", expectedConfigRevision: expected, actualConfigRevision: actual };
        return { ok: false, code: "changed", error: CRON_JOB_CHANGED_MESSAGE, details };
      }
    }
  }
  return resultWithRevision(scheduler.update(id, patch, caller));
}
