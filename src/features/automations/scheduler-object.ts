import { DurableObject } from "cloudflare:workers";
import { installLedgerLogSink } from "../../ledger/log-sink";
import type { TenantConfig } from "../../protocol/config";
import { migrate } from "../../storage/migrations";
import { tenantApi } from "../../stubs";
import { Timers } from "../../timers/timers";
import { positiveVar } from "../../util/deployment-var";
import { listWithRevisions, resultWithRevision, updateIfCurrent, withRevision } from "./config-revision";
import { tenantRunPort } from "./cron-runs";
import type { CronAddParams, CronListParams, CronPatch, CronRunsParams } from "./cron-schemas";
import { CRON_SCHEMAS, CronStore } from "./cron-store";
import { type CronTimerKind, DEFAULT_MAX_JOBS, DEFAULT_MIN_INTERVAL_MS, Scheduler } from "./scheduler";
import type { CronCallerInfo, CronRunMode, SchedulerApi } from "./scheduler-api";

/**
 * A tenant's scheduler (one per tenant, named by its id): its automations and the alarm that
 * fires them, apart from the tenant object, whose alarm keeps its gateway sockets. Wiring and
 * RPC methods; the rules are in Scheduler (src/features/automations/scheduler.ts).
 */
export class SchedulerObject extends DurableObject<Env> implements SchedulerApi {
  private readonly timers: Timers<CronTimerKind>;
  private readonly scheduler: Scheduler;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    installLedgerLogSink(env);
    migrate(ctx.storage, CRON_SCHEMAS);
    this.timers = new Timers<CronTimerKind>(ctx.storage);
    const tenantId = ctx.id.name ?? "";
    const config = async () => tenantApi(env, tenantId).config();
    this.scheduler = new Scheduler({
      store: new CronStore(ctx.storage.sql),
      timers: this.timers,
      runs: tenantRunPort(env, tenantId, config),
      limits: {
        minIntervalMs: positiveVar(env.CRON_MIN_INTERVAL_MS, DEFAULT_MIN_INTERVAL_MS),
        maxJobs: positiveVar(env.CRON_MAX_JOBS_PER_TENANT, DEFAULT_MAX_JOBS),
      },
      config,
      waitUntil: (promise) => ctx.waitUntil(promise),
    });
    // Work a previous instance was doing when it died is due again now.
    this.timers.recoverLeases();
  }

  override async alarm(): Promise<void> {
    await this.timers.fire(this.scheduler.handlers);
  }

  add(params: CronAddParams, caller: CronCallerInfo) {
    return resultWithRevision(this.scheduler.add(params, caller));
  }

  update(id: string, patch: CronPatch, caller: CronCallerInfo, expectedConfigRevision?: string) {
    return updateIfCurrent(this.scheduler, id, patch, caller, expectedConfigRevision);
  }

  remove(id: string) {
    return this.scheduler.remove(id);
  }

  get(id: string) {
    return withRevision(this.scheduler.get(id));
  }

  list(params: CronListParams, config: TenantConfig) {
    return listWithRevisions(this.scheduler.list(params, config));
  }

  status() {
    return this.scheduler.status();
  }

  run(id: string, mode: CronRunMode, caller: CronCallerInfo) {
    return this.scheduler.runNow(id, mode, caller);
  }

  runs(params: CronRunsParams) {
    return this.scheduler.runs(params);
  }

  async clear(): Promise<void> {
    this.scheduler.clear();
    await this.ctx.storage.deleteAlarm();
  }
}
