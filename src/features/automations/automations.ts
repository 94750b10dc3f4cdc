import type { TenantContext } from "../../domain/context";
import { DomainError } from "../../domain/errors";
import { agentIdParam } from "../../domain/keys";
import type { CronAddParams, CronJob, CronListParams, CronPatch, CronRunsParams } from "./cron-schemas";
import type { CronResult, CronRunMode } from "./scheduler-api";

/** Automations as every transport offers them (`cron.*`, /v1/automations): the tenant's scheduler object decides. */

function caller(ctx: TenantContext<"runs">) {
  return { config: ctx.config, ...(ctx.origin ? { origin: ctx.origin } : {}) };
}

/** The caller with the tenant's automation limits in force (a definition is checked against them). */
async function definingCaller(ctx: TenantContext<"runs">) {
  const { limits } = await ctx.tenant.limits();
  return { ...caller(ctx), limits: { minIntervalMs: limits.cronMinIntervalMs.limit, maxJobs: limits.cronJobs.limit } };
}

/** A refusal in OpenClaw's words: `invalid <method> params: <why>`, or the job not found. */
function unwrap<T>(method: string, result: CronResult<T>): T {
  if (result.ok) return result.value;
  if (result.code === "not_found") throw new DomainError("not_found", result.error);
  if (result.code === "changed") throw new DomainError("conflict", result.error, result.details);
  throw new DomainError("invalid", `invalid ${method} params: ${result.error}`);
}

/** `{ id }` or the legacy `{ jobId }`. */
export function jobIdOf(method: string, params: { id?: string | undefined; jobId?: string | undefined }): string {
  const id = (params.id ?? params.jobId)?.trim();
  if (!id) throw new DomainError("invalid", `invalid ${method} params: missing id`);
  return id;
}

export async function addCronJob(ctx: TenantContext<"runs">, params: CronAddParams): Promise<CronJob> {
  // Refused here, in the caller's door: a refusal thrown inside the scheduler object loses its kind.
  if (params.agentId) agentIdParam(params.agentId);
  return unwrap("cron.add", await ctx.scheduler.add(params, await definingCaller(ctx)));
}

export async function updateCronJob(
  ctx: TenantContext<"runs">,
  id: string,
  patch: CronPatch,
  expectedConfigRevision?: string,
): Promise<CronJob> {
  if (patch.agentId) agentIdParam(patch.agentId);
  return unwrap(
    "cron.update",
    await ctx.scheduler.update(id, patch, await definingCaller(ctx), expectedConfigRevision),
  );
}

export async function removeCronJob(ctx: TenantContext<"runs">, id: string): Promise<{ ok: true; removed: true }> {
  return unwrap("cron.remove", await ctx.scheduler.remove(id));
}

export async function getCronJob(ctx: TenantContext<"runs">, id: string): Promise<CronJob> {
  const job = await ctx.scheduler.get(id);
  if (!job)
    throw new DomainError("not_found", `cron job not found: ${id}. List automations and retry with a current job id.`);
  return job;
}

export function listCronJobs(ctx: TenantContext<"runs">, params: CronListParams) {
  return ctx.scheduler.list(params, ctx.config);
}

export function cronStatus(ctx: TenantContext<"runs">) {
  return ctx.scheduler.status();
}

export async function runCronJob(ctx: TenantContext<"runs">, id: string, mode: CronRunMode = "force") {
  return unwrap("cron.run", await ctx.scheduler.run(id, mode, caller(ctx)));
}

export async function cronRuns(ctx: TenantContext<"runs">, params: CronRunsParams) {
  return unwrap("cron.runs", await ctx.scheduler.runs(params));
}
