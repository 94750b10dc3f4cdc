import type { HubInterest } from "../contracts/hub-api";

/** A report that failed is tried again after this long (the tenant object was restarting). */
const RETRY_DELAY_MS = 200;
const MAX_ATTEMPTS = 5;

/**
 * A hub object's reports of its connections to the tenant object: one in flight at a time,
 * changes meanwhile folded into the next (the summary is always the current one), so a burst
 * of connects is a few reports. `settled` resolves once the tenant has the latest.
 */
export class InterestReporter {
  private dirty = false;
  private running: Promise<void> | null = null;

  constructor(
    private readonly summary: () => HubInterest,
    private readonly send: (interest: HubInterest) => Promise<void>,
  ) {}

  changed(): void {
    this.dirty = true;
    this.running ??= this.loop().finally(() => {
      this.running = null;
    });
  }

  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async loop(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      await this.sendWithRetry(this.summary());
    }
  }

  private async sendWithRetry(interest: HubInterest): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.send(interest);
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS) {
          console.error("gateway hub: reporting its connections failed", error);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * attempt));
      }
    }
  }
}
