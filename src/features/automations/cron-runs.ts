import type { TenantContext } from "../../domain/context";
import { DomainError } from "../../domain/errors";
import { agentWait, startRun } from "../../domain/runs";
import { type RunSnapshot, TERMINAL_STATES } from "../../model/run-types";
import type { TenantConfig } from "../../protocol/config";
import { type ObjectBindings, tenantContext } from "../../stubs";
import type { CronJob } from "./cron-schemas";
import { jobMessage, jobSessionKey } from "./jobs";

/** How the scheduler starts a job's run and learns its outcome (a port, so its rules test without runs). */
export type CronRunPort = {
  /** Starts the run (a run id already used answers from that run). Refusals are data, not throws. */
  start(
    job: CronJob,
    runId: string,
    origin?: string,
  ): Promise<{ ok: true; sessionKey: string } | { ok: false; error: string }>;
  /** The run's outcome if it ends within `waitMs`; "running" while it runs; "unknown" when no run has this id. */
  outcome(runId: string, waitMs: number): Promise<RunSnapshot | "running" | "unknown">;
};

/** Runs through the domain, as the tenant's own scheduled caller (write scope, no admin overrides). */
export function tenantRunPort(
  env: ObjectBindings & { ATTACHMENTS: R2Bucket },
  tenantId: string,
  config: () => Promise<TenantConfig>,
): CronRunPort {
  const context = async (origin?: string): Promise<TenantContext> =>
    tenantContext(env, {
      tenantId,
      config: await config(),
      principal: { kind: "operator", scopes: ["operator.write"] },
      ...(origin ? { origin } : {}),
    });
  return {
    async start(job, runId, origin) {
      const ctx = await context(origin);
      try {
        const key = jobSessionKey(job, ctx.config);
        const result = await startRun(ctx, {
          key,
          runId,
          message: jobMessage(job),
          origin: "agent",
          provenance: { kind: "internal_system", sourceChannel: "cron", jobId: job.id, runId },
          ...(job.payload.kind === "agentTurn" && job.payload.thinking ? { thinking: job.payload.thinking } : {}),
          ...(job.payload.kind === "agentTurn" && job.payload.timeoutSeconds
            ? { timeoutSeconds: Math.ceil(job.payload.timeoutSeconds) }
            : {}),
          label: job.name,
        });
        return { ok: true, sessionKey: result.sessionKey };
      } catch (error) {
        if (error instanceof DomainError) return { ok: false, error: error.message };
        throw error;
      }
    },
    async outcome(runId, waitMs) {
      const ctx = await context();
      const key = await ctx.tenant.waitForRunKey(runId, 0);
      if (!key) return "unknown";
      const snapshot = await agentWait(ctx, runId, waitMs);
      return TERMINAL_STATES.includes(snapshot.state) ? snapshot : "running";
    },
  };
}
