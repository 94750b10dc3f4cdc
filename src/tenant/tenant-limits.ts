import {
  cleanOverride,
  deploymentLimits,
  effectiveLimits,
  type Limits,
  type LimitsState,
  limitsView,
  type Meter,
  type Refusal,
} from "../policy/tenant-limits";
import type { TenantConfig } from "../protocol/config";
import { RateLimiter } from "./rate-limit";
import { type ModelSlot, RunQuota } from "./run-quota";
import type { TenantStore } from "./tenant-store";

/**
 * The tenant object's side of its limits: the effective limits (deployment vars, the
 * operator's override, the tenant's config: src/policy/tenant-limits.ts), the per-minute
 * meters and the run quota.
 */
export class TenantLimits {
  private readonly meters = new RateLimiter();
  private readonly quota: RunQuota;
  private readonly deployment: Limits;

  constructor(
    vars: Record<string, unknown>,
    private readonly store: TenantStore,
    private readonly config: () => Readonly<TenantConfig>,
  ) {
    this.deployment = deploymentLimits(vars);
    this.quota = new RunQuota(() => this.effective());
  }

  effective(): Limits {
    return effectiveLimits(this.deployment, this.store.limitOverride(), this.config());
  }

  /** One call of a meter: 0 when admitted, else the milliseconds until its window resets. */
  admitMeter(meter: Meter): { retryAfterMs: number; perMinute: number } {
    const limits = this.effective();
    const perMinute = meter === "tools" ? limits.toolsPerMinute : limits.completionsPerMinute;
    return { retryAfterMs: this.meters.admit(meter, perMinute), perMinute };
  }

  admitRun(runId: string): Refusal | null {
    return this.quota.admit(runId);
  }

  acquireModelSlot(runId: string): Promise<ModelSlot> {
    return this.quota.acquire(runId);
  }

  /** The limits with their use; with `override`, the operator's values are replaced first (null clears them). */
  state(override?: Record<string, unknown> | null): LimitsState {
    if (override !== undefined) this.store.saveLimitOverride(cleanOverride(override ?? {}));
    return {
      limits: limitsView(this.effective(), this.quota.used()),
      override: this.store.limitOverride(),
      deployment: this.deployment,
    };
  }
}
