/**
 * Callers waiting for a session's transcript to move past a seq (the sessions_wait tool). They
 * live in memory: an open wait keeps the session object awake, and every wait ends by its own
 * timeout, so an evicted object only cuts a wait short (the caller simply waits again).
 */
export class SeqWaiters {
  private readonly waiters = new Set<{ sessionId: string; afterSeq: number; wake: () => void }>();

  /** Resolves true once `appended` reports a message past `afterSeq` (or a new transcript), false after `timeoutMs`. */
  wait(sessionId: string, afterSeq: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter = { sessionId, afterSeq, wake: () => {} };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      waiter.wake = () => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(true);
      };
      this.waiters.add(waiter);
    });
  }

  /** Messages up to `lastSeq` were committed to transcript `sessionId`. */
  appended(sessionId: string, lastSeq: number): void {
    for (const waiter of [...this.waiters]) {
      if (waiter.sessionId !== sessionId || lastSeq > waiter.afterSeq) waiter.wake();
    }
  }
}
