/** The length of a rate-limit window. */
const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows per meter, in memory (best effort: a restarted object starts a
 * fresh window). One limiter per tenant object, so meters are per tenant.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  /** 0 when admitted, else the milliseconds until the meter's window resets. */
  admit(meter: string, perMinute: number, now = Date.now()): number {
    const window = this.windows.get(meter);
    if (!window || now - window.startedAt >= WINDOW_MS) {
      this.windows.set(meter, { startedAt: now, count: 1 });
      return 0;
    }
    if (window.count >= perMinute) return window.startedAt + WINDOW_MS - now;
    window.count++;
    return 0;
  }
}
