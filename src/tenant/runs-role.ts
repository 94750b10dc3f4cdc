import type {
  CompletionAdmission,
  ContinuedRun,
  FlowStepAnswer,
  RunStartAnswer,
  TenantRunsApi,
} from "../contracts/tenant-api";
import type { FlowStep } from "../policy/flow-steps";
import type { LimitsState, Meter, TranscriptLimits } from "../policy/limit-rules";
import type { RunIndex } from "./run-index";
import type { ModelSlot } from "./run-quota";
import type { TenantLimits } from "./tenant-limits";

/**
 * The tenant object's runs role (contracts/tenant-api.ts `TenantRunsApi`): run ids, run
 * admission, model slots and meters, over the run index and the tenant's limits. The object
 * answers its RPC methods of this role here (tenant-object.ts).
 */
export class TenantRunsRole implements TenantRunsApi {
  constructor(
    private readonly runs: RunIndex,
    private readonly quota: TenantLimits,
  ) {}

  recordAnnounceRun(runId: string, key: string): string {
    return this.runs.record(runId, key, false);
  }

  recordRunStart(runId: string, key: string): RunStartAnswer {
    // A run id seen before answers from its run: it is not counted again.
    const refused = this.runs.keyOf(runId) === null ? this.quota.admitRun(runId) : null;
    return refused ? { refused } : { owner: this.runs.record(runId, key, true) };
  }

  recordFlowStep(runId: string, key: string, step: FlowStep): FlowStepAnswer {
    const decision = this.quota.flowStep(step);
    if ("stopped" in decision) return decision;
    const recorded = this.recordRunStart(runId, key);
    return "refused" in recorded ? recorded : { ...recorded, runner: decision.runner };
  }

  admitCompletion(runId: string, key: string, continues?: ContinuedRun): CompletionAdmission {
    const meter = this.admit("completions");
    if (meter.retryAfterMs > 0) return { limited: meter };
    const previous = continues ? this.runs.keyOf(continues.runId) : null;
    const continued = previous !== null && continues!.keyPrefixes.some((prefix) => previous.startsWith(prefix));
    const runKey = continued ? previous : key;
    return { key: runKey, recorded: this.recordRunStart(runId, runKey) };
  }

  acquireModelSlot(runId: string): Promise<ModelSlot> {
    return this.quota.acquireModelSlot(runId);
  }

  transcriptLimits(): TranscriptLimits {
    return this.quota.transcriptLimits();
  }

  limits(override?: Record<string, unknown> | null): LimitsState {
    return this.quota.state(override);
  }

  recentRunIds(key: string): string[] {
    return this.runs.recentRunIds(key);
  }

  runKey(runId: string): string | null {
    return this.runs.keyOf(runId);
  }

  waitForRunKey(runId: string, timeoutMs: number): Promise<string | null> {
    return this.runs.waitForKey(runId, timeoutMs);
  }

  admit(meter: Meter, want = 1) {
    return this.quota.admitMeter(meter, want);
  }
}
