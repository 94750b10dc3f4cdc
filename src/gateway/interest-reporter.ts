import type { HubInterest } from "../contracts/hub-api";

/** A report that failed is tried again after this long, doubling up to the cap. */
const RETRY_DELAY_MS = 100;
const RETRY_DELAY_MAX_MS = 2_000;

/**
 * A hub object's reports of its connections to the tenant object: one in flight at a time,
 * changes meanwhile folded into the next (the summary is always the current one), so a burst
 * of connects is a few reports. A report that fails is tried again until it arrives (without
 * it the tenant object would not route a subscription's events here). `settled` resolves once
 * the tenant has every change made before the call, however busy the hub stays after it.
 */
export class InterestReporter {
  /** Changes so far, and the last of them the tenant object has. */
  private changes = 0;
  private acknowledged = 0;
  private running = false;
  /** The last summary the tenant object has (nothing is sent while it stays the same). */
  private lastSent: string | undefined;
  private readonly waiters: Array<{ change: number; resolve: () => void }> = [];

  constructor(
    private readonly summary: () => HubInterest,
    private readonly send: (interest: HubInterest) => Promise<void>,
  ) {}

  changed(): void {
    this.changes += 1;
    if (!this.running) void this.loop();
  }

  settled(): Promise<void> {
    if (this.acknowledged >= this.changes) return Promise.resolve();
    const change = this.changes;
    return new Promise((resolve) => this.waiters.push({ change, resolve }));
  }

  private async loop(): Promise<void> {
    this.running = true;
    try {
      while (this.acknowledged < this.changes) {
        const change = this.changes;
        const summary = this.summary();
        const json = JSON.stringify(summary);
        if (json !== this.lastSent) await this.sendUntilArrived(summary);
        this.lastSent = json;
        this.acknowledged = change;
        for (let i = this.waiters.length - 1; i >= 0; i--) {
          if (this.waiters[i]!.change <= change) this.waiters.splice(i, 1)[0]!.resolve();
        }
      }
    } finally {
      this.running = false;
    }
  }

  private async sendUntilArrived(interest: HubInterest): Promise<void> {
    for (let delay = RETRY_DELAY_MS; ; delay = Math.min(delay * 2, RETRY_DELAY_MAX_MS)) {
      try {
        return await this.send(interest);
      } catch (error) {
        console.error("gateway hub: reporting its connections failed; trying again", error);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}
