/** Retries with exponential backoff and jitter, honouring a server's "retry after". */

export const RETRY_ATTEMPTS = 8;
const BASE_DELAY_MS = 250;
const MAX_DELAY_MS = 30_000;

/** Told about each retry (what was retried, why, and after how long). */
export type OnRetry = (what: string, error: unknown, delayMs: number) => void;

/** What a failed attempt says about retrying: no, or yes (optionally after a given delay). */
export type RetryVerdict = { retry: false } | { retry: true; afterMs?: number };

export async function withRetry<T>(
  attempt: () => Promise<T>,
  verdict: (error: unknown) => RetryVerdict,
  options: { attempts?: number; onRetry?: (error: unknown, delayMs: number) => void } = {},
): Promise<T> {
  const attempts = options.attempts ?? RETRY_ATTEMPTS;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      const decision = verdict(error);
      if (!decision.retry || n >= attempts) throw error;
      const backoff = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (n - 1));
      const delayMs = Math.max(decision.afterMs ?? 0, backoff / 2 + Math.random() * (backoff / 2));
      options.onRetry?.(error, delayMs);
      await sleep(delayMs);
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
