/**
 * Callers waiting in memory for something to happen, each until its own timeout: sessions_wait
 * for a message past a seq, agent.wait for a run's end or for its run id to be recorded. An
 * open wait keeps its object awake, and every wait ends by its timeout, so an evicted object
 * only cuts a wait short (the caller simply waits again).
 */
export class Waiters<Key, Value> {
  private readonly waiting = new Map<Key, Set<(value: Value) => void>>();

  /** Resolves with what `wake` passes for `key`, or with `timedOut()` after `timeoutMs`. */
  wait(key: Key, timeoutMs: number, timedOut: () => Value): Promise<Value> {
    return new Promise((resolve) => {
      const waiters = this.waiting.get(key) ?? new Set();
      const done = (value: Value) => {
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        waiters.delete(done);
        if (waiters.size === 0) this.waiting.delete(key);
        resolve(timedOut());
      }, timeoutMs);
      waiters.add(done);
      this.waiting.set(key, waiters);
    });
  }

  /** Wakes every waiter of `key` with `value`. */
  wake(key: Key, value: Value): void {
    const waiters = this.waiting.get(key);
    if (!waiters) return;
    this.waiting.delete(key);
    for (const done of waiters) done(value);
  }

  /** Wakes the waiters of every key `matches` picks. */
  wakeWhere(matches: (key: Key) => boolean, value: Value): void {
    for (const key of [...this.waiting.keys()]) if (matches(key)) this.wake(key, value);
  }
}
