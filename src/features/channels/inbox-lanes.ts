/**
 * The turns of different sessions side by side, each session's in arrival order (issue 46
 * item 7, docs/channels.md "A busy bot"): the drain decides updates one at a time, and hands
 * each turn start (the typing call, files, the run's admission and start: platform and object
 * round trips) to its session's lane. A lane stops at its first failure: the updates behind it
 * wait for the drain's retry, so a session's turns never overtake one another; other lanes go on.
 * At most `maxQueued` starts are queued or running at once (a lane's queued ones included), so
 * the webhook's accepts, which share the object (and on `wrangler dev` the one thread), keep
 * their turn.
 */
export class InboxLanes {
  /** Each session's last queued start; a failed one stays, so nothing of that session runs after it. */
  private readonly tails = new Map<string, Promise<void>>();
  private readonly running = new Set<Promise<void>>();
  private failure: { error: unknown } | null = null;

  constructor(private readonly maxQueued: number) {}

  /**
   * Queues `start` behind the session's earlier starts (skipped when one of them failed);
   * `settled` runs once it ran or was skipped. Waits first while `maxQueued` starts are queued.
   */
  async add(sessionKey: string, start: () => Promise<void>, settled: () => void): Promise<void> {
    while (this.running.size >= this.maxQueued) await this.oneSettled();
    const before = this.tails.get(sessionKey) ?? Promise.resolve();
    const tail = before.then(start);
    this.tails.set(sessionKey, tail);
    const done: Promise<void> = tail
      .then(
        () => {
          if (this.tails.get(sessionKey) === tail) this.tails.delete(sessionKey);
        },
        (error: unknown) => {
          this.failure ??= { error };
        },
      )
      .finally(() => {
        this.running.delete(done);
        settled();
      });
    this.running.add(done);
  }

  /** Once any queued start settled (at once when none is). */
  async oneSettled(): Promise<void> {
    if (this.running.size > 0) await Promise.race(this.running);
  }

  /** Every queued start settled; throws the first failure (the drain's timer retries what is left). */
  async settle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
    this.tails.clear();
    const failure = this.failure;
    this.failure = null;
    if (failure) throw failure.error;
  }

  /** A start failed in this pass: its update is pending again, so the drain stops deciding and retries later. */
  get failed(): boolean {
    return this.failure !== null;
  }

  /** Whether a start is queued or running (the drain does not decide a running update's again). */
  get busy(): boolean {
    return this.running.size > 0;
  }
}
