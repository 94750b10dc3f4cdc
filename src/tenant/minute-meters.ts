import type { MeterGrant } from "../contracts/tenant-api";

/** The length of a rate-limit window. */
const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows per meter, in memory (best effort: a restarted object starts a
 * fresh window). One limiter per tenant object, so meters are per tenant.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  /**
   * Grants up to `want` calls of the meter's window (a caller's isolate may take several at
   * once: src/tools/meter-lease.ts); none when the window is spent.
   */
  admit(meter: string, perMinute: number, want = 1, now = Date.now()): MeterGrant {
    let window = this.windows.get(meter);
    if (!window || now - window.startedAt >= WINDOW_MS) {
      window = { startedAt: now, count: 0 };
      this.windows.set(meter, window);
    }
    const windowEndsAt = window.startedAt + WINDOW_MS;
    const granted = Math.max(0, Math.min(Math.max(1, Math.floor(want)), perMinute - window.count));
    window.count += granted;
    return { granted, retryAfterMs: granted > 0 ? 0 : windowEndsAt - now, windowEndsAt };
  }
}
