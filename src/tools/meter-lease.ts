import type { MeterGrant } from "../contracts/tenant-api";

/** The most calls one isolate takes from the tenant's meter at once. */
export const MAX_LEASE_CALLS = 20;
/** A lease is at most this share of the per-minute limit, so small limits stay exact (1 call per lease). */
const LEASE_SHARE_OF_LIMIT = 1 / 50;
/** Tenants × meters whose leases one isolate keeps (oldest dropped first). */
const MAX_LEASES = 1_000;

/** Calls one isolate takes per round trip to the tenant object for a limit of `perMinute`. */
export function leaseSize(perMinute: number): number {
  return Math.max(1, Math.min(MAX_LEASE_CALLS, Math.floor(perMinute * LEASE_SHARE_OF_LIMIT)));
}

type Lease = { left: number; until: number };
type Take = (want: number) => Promise<MeterGrant>;

/**
 * A tenant's per-minute meter (`rateLimit.toolsPerMinute`), answered in the caller's isolate:
 * the isolate takes several calls from the tenant object's window at once and spends them
 * here, so a busy tenant's tool calls cost the tenant object one round trip per lease instead
 * of one per call. The limit still holds across isolates (every call was counted in the
 * tenant's window); what an isolate leased and did not spend is lost with the window, so a
 * tenant with many isolates can be refused up to (lease − 1) calls per isolate early.
 */
export class MeterLeases {
  private readonly leases = new Map<string, Lease>();

  /** 0 when admitted, else the milliseconds until the tenant's window resets. */
  async admit(key: string, perMinute: number, take: Take, now = Date.now()): Promise<number> {
    // The limit is part of the key: a changed limit starts a fresh lease.
    const leaseKey = `${key}:${perMinute}`;
    const lease = this.leases.get(leaseKey);
    if (lease && lease.left > 0 && now < lease.until) {
      lease.left -= 1;
      return 0;
    }
    const grant = await take(leaseSize(perMinute));
    if (grant.granted <= 0) {
      this.leases.delete(leaseKey);
      return Math.max(1, grant.retryAfterMs);
    }
    if (!this.leases.has(leaseKey) && this.leases.size >= MAX_LEASES) {
      this.leases.delete(this.leases.keys().next().value!);
    }
    // Whatever another call of this isolate leased meanwhile in the same window is kept too.
    const current = this.leases.get(leaseKey);
    const kept = current && current.until === grant.windowEndsAt ? current.left : 0;
    const left = kept + grant.granted - 1;
    this.leases.set(leaseKey, { left, until: grant.windowEndsAt });
    return 0;
  }
}

/** This isolate's leases (module state: shared by the objects and requests the isolate runs). */
export const isolateMeterLeases = new MeterLeases();
