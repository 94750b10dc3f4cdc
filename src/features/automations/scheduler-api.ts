import type { Awaitable } from "../../contracts/session-api";
import type { TenantConfig } from "../../protocol/config";
import type { CronAddParams, CronJob, CronListParams, CronPatch, CronRunsParams } from "./cron-schemas";

/**
 * The RPC surface of a tenant's scheduler object (src/features/automations/): its automations. Refusals come
 * back as data (`ok: false`), never as thrown errors, so their text crosses the RPC boundary intact.
 */

export type CronResult<T> =
  | { ok: true; value: T }
  | { ok: false; code: "invalid" | "not_found"; error: string }
  /** The job changed since the caller loaded it (`expectedConfigRevision`). */
  | { ok: false; code: "changed"; error: string; details: Record<string, unknown> };

/**
 * Who asks: the config they act under, the origin their requests came from, and `limits`, the
 * tenant's automation limits in force (docs/operations.md "Tenant limits").
 */
export type CronCallerInfo = {
  config: TenantConfig;
  origin?: string;
  limits?: { minIntervalMs: number; maxJobs: number };
};

export type CronRunMode = "due" | "force" | "if-enabled";

export interface SchedulerApi {
  add(params: CronAddParams, caller: CronCallerInfo): Awaitable<CronResult<CronJob>>;
  update(
    id: string,
    patch: CronPatch,
    caller: CronCallerInfo,
    expectedConfigRevision?: string,
  ): Awaitable<CronResult<CronJob>>;
  remove(id: string): Awaitable<CronResult<{ ok: true; removed: true }>>;
  get(id: string): Awaitable<CronJob | null>;
  list(params: CronListParams, config: TenantConfig): Awaitable<Record<string, unknown>>;
  status(): Awaitable<Record<string, unknown>>;
  run(id: string, mode: CronRunMode, caller: CronCallerInfo): Awaitable<CronResult<Record<string, unknown>>>;
  runs(params: CronRunsParams): Awaitable<CronResult<Record<string, unknown>>>;
  /** Deletes every job and its history (tenant deletion). */
  clear(): Awaitable<void>;
}
