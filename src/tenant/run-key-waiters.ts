/**
 * Callers waiting for a run id to be recorded (agent.wait may arrive before its `agent`
 * request reached the tenant, as OpenClaw allows). In memory: an open wait keeps the tenant
 * object awake, and every wait ends by its own timeout.
 */
export class RunKeyWaiters {
  private readonly waiters = new Map<string, Set<() => void>>();

  /** Resolves true once `recorded(runId)` is called, false after `timeoutMs`. */
  wait(runId: string, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiters = this.waiters.get(runId) ?? new Set();
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        waiters.delete(wake);
        if (waiters.size === 0) this.waiters.delete(runId);
        resolve(false);
      }, timeoutMs);
      waiters.add(wake);
      this.waiters.set(runId, waiters);
    });
  }

  recorded(runId: string): void {
    const waiters = this.waiters.get(runId);
    if (!waiters) return;
    this.waiters.delete(runId);
    for (const wake of waiters) wake();
  }
}
