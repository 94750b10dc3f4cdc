import { RpcTarget } from "cloudflare:workers";
import {
  admitRun,
  type Limits,
  type PartialLimits,
  type Refusal,
  type RunUsage,
  slotFree,
  startRateRefusal,
} from "../policy/limit-rules";
import { RateLimiter } from "./minute-meters";

/** An admitted run counts as queued this long before it reaches a slot (or its start failed). */
const ADMITTED_MS = 10_000;
/** A slot its holder never gave back (its object vanished mid-call) is taken back after this long. */
export const MODEL_SLOT_LEASE_MS = 10 * 60_000;

/** One model call's slot, handed to the session object that makes the call: disposing its stub gives it back. */
export class ModelSlot extends RpcTarget {
  constructor(private release: (() => void) | null) {
    super();
  }

  [Symbol.dispose](): void {
    const release = this.release;
    this.release = null;
    release?.();
  }
}

/**
 * A tenant's runs against its limits, in the tenant object's memory: starts per minute, runs
 * admitted and waiting, and model slots (FIFO). A restarted object starts from zero (best
 * effort, as the rate windows); no accepted run is ever refused a slot, it waits for one.
 */
export class RunQuota {
  private readonly starts = new RateLimiter();
  /** Runs admitted by `admit` and not at a slot yet: run id → when. */
  private readonly admitted = new Map<string, number>();
  /** Slots held: slot id → when its lease ends. */
  private readonly held = new Map<number, number>();
  private readonly waiting: Array<{ slotId: number; grant: () => void }> = [];
  private nextSlotId = 1;

  constructor(private readonly limits: () => Limits) {}

  /** A run start from a door: null when admitted (it counts as queued until it takes a slot). */
  admit(runId: string, now = Date.now()): Refusal | null {
    this.expire(now);
    const limits = this.limits();
    const refusal = admitRun(this.usage(), limits);
    if (refusal) return refusal;
    const waitMs = this.starts.admit("runStarts", limits.runStartsPerMinute, 1, now).retryAfterMs;
    if (waitMs > 0) return startRateRefusal(limits, waitMs);
    this.admitted.set(runId, now);
    return null;
  }

  /** A model slot for one call of `runId`'s run, once one is free (FIFO). */
  async acquire(runId: string, now = Date.now()): Promise<ModelSlot> {
    this.admitted.delete(runId);
    this.expire(now);
    const slotId = this.nextSlotId++;
    if (this.waiting.length > 0 || !slotFree(this.held.size, this.limits())) {
      await new Promise<void>((grant) => this.waiting.push({ slotId, grant }));
    } else {
      this.held.set(slotId, now + MODEL_SLOT_LEASE_MS);
    }
    return new ModelSlot(() => this.release(slotId));
  }

  usage(): RunUsage {
    return { inFlight: this.held.size, queued: this.admitted.size + this.waiting.length };
  }

  /** What is used of each run limit (for the limits views). */
  used(now = Date.now()): PartialLimits {
    this.expire(now);
    const usage = this.usage();
    return { runsInFlight: usage.inFlight, runsQueued: usage.queued };
  }

  private release(slotId: number): void {
    this.held.delete(slotId);
    this.grant(Date.now());
  }

  /** Gives free slots to the waiting runs, oldest first. */
  private grant(now: number): void {
    const limits = this.limits();
    while (this.waiting.length > 0 && slotFree(this.held.size, limits)) {
      const next = this.waiting.shift()!;
      this.held.set(next.slotId, now + MODEL_SLOT_LEASE_MS);
      next.grant();
    }
  }

  private expire(now: number): void {
    for (const [runId, at] of this.admitted) if (now - at > ADMITTED_MS) this.admitted.delete(runId);
    let freed = false;
    for (const [slotId, until] of this.held) {
      if (until <= now) freed = this.held.delete(slotId);
    }
    if (freed) this.grant(now);
  }
}
