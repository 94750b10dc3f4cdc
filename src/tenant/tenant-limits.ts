import type { MeterGrant } from "../contracts/tenant-api";
import { type FlowStep, flowStepDecision } from "../policy/flow-steps";
import {
  cleanOverride,
  deploymentLimits,
  effectiveLimits,
  type Limits,
  type LimitsState,
  limitsView,
  METER_LIMITS,
  type Meter,
  type Refusal,
  sessionRefusal,
  socketRefusal,
  spendRefusal,
  type TranscriptLimits,
  tenantBytesRefusal,
  utcDay,
} from "../policy/limit-rules";
import type { RunnerConfig, TenantConfig } from "../protocol/config";
import { RateLimiter } from "./minute-meters";
import { type ModelSlot, RunQuota } from "./run-quota";
import type { TenantStore } from "./tenant-store";

/** How old the ledger's token count may be before a run start asks it again (in the background). */
export const SPEND_REFRESH_MS = 2_000;

/**
 * The tenant object's side of its limits: the effective limits (deployment vars, the
 * operator's override, the tenant's config: src/policy/limit-rules.ts), the per-minute
 * meters, the run quota and the spend cap (today's tokens from the ledger, read in the
 * background at most every SPEND_REFRESH_MS, so a start never waits for the ledger).
 */
export class TenantLimits {
  private readonly meters = new RateLimiter();
  private readonly quota: RunQuota;
  private readonly deployment: Limits;
  private spent = { day: "", tokens: 0, readAt: 0 };
  private reading = false;

  constructor(
    vars: Record<string, unknown>,
    private readonly store: TenantStore,
    private readonly config: () => Readonly<TenantConfig>,
    /** Today's tokens from the tenant's ledger. */
    private readonly tokensOn: (day: string) => Promise<number>,
    private readonly waitUntil: (promise: Promise<unknown>) => void,
    /** The tenant's gateway sockets now. */
    private readonly sockets: () => number,
    /** The tenant's sessions: index rows, and keys claimed to be created that have none yet. */
    private readonly sessionCount: () => number,
    /** The message bytes of all the tenant's sessions (the index's running total). */
    private readonly messageBytes: () => number,
  ) {
    this.deployment = deploymentLimits(vars);
    this.quota = new RunQuota(() => this.effective());
  }

  effective(): Limits {
    return effectiveLimits(this.deployment, this.store.limitOverride(), this.config());
  }

  /** Up to `want` calls of a meter (none when its window is spent) and the limit in force. */
  admitMeter(meter: Meter, want = 1): MeterGrant & { perMinute: number } {
    const perMinute = this.effective()[METER_LIMITS[meter]];
    return { ...this.meters.admit(meter, perMinute, want), perMinute };
  }

  /** A new gateway socket, given the tenant's sockets now. */
  admitSocket(sockets: number): Refusal | null {
    return socketRefusal(sockets, this.effective());
  }

  /** A new session, given the tenant's sessions now (and those being created). */
  admitSession(): Refusal | null {
    return sessionRefusal(this.sessionCount(), this.effective());
  }

  /** What a session object checks its appends against (src/session/transcript-quota.ts). */
  transcriptLimits(): TranscriptLimits {
    const limits = this.effective();
    return {
      perSession: limits.transcriptBytesPerSession,
      tenantFull: tenantBytesRefusal(this.messageBytes(), limits),
    };
  }

  /** A sessions_send flow step as the config is now (src/policy/flow-steps.ts). */
  flowStep(step: FlowStep): { runner: RunnerConfig } | { stopped: string } {
    return flowStepDecision(this.config(), step);
  }

  admitRun(runId: string, now = Date.now()): Refusal | null {
    return spendRefusal(this.tokensToday(now), this.effective(), now) ?? this.quota.admit(runId, now);
  }

  /** The last count read for today (0 on a new day), asking the ledger again when it is old. */
  private tokensToday(now: number): number {
    const day = utcDay(now);
    if (this.spent.day !== day) this.spent = { day, tokens: 0, readAt: 0 };
    if (!this.reading && now - this.spent.readAt >= SPEND_REFRESH_MS) {
      this.reading = true;
      const read = this.tokensOn(day)
        .then((tokens) => {
          if (this.spent.day === day) this.spent = { day, tokens, readAt: Date.now() };
        })
        .catch(() => undefined)
        .finally(() => {
          this.reading = false;
        });
      this.waitUntil(read);
    }
    return this.spent.tokens;
  }

  acquireModelSlot(runId: string): Promise<ModelSlot> {
    return this.quota.acquire(runId);
  }

  /** The limits with their use; with `override`, the operator's values are replaced first (null clears them). */
  state(override?: Record<string, unknown> | null): LimitsState {
    if (override !== undefined) this.store.saveLimitOverride(cleanOverride(override ?? {}));
    return {
      limits: limitsView(this.effective(), {
        ...this.quota.used(),
        tokensPerDay: this.tokensToday(Date.now()),
        sockets: this.sockets(),
        sessions: this.sessionCount(),
        transcriptBytesPerTenant: this.messageBytes(),
      }),
      override: this.store.limitOverride(),
      deployment: this.deployment,
    };
  }
}
