import { logWarning } from "../observability/log";
import { raceAbort } from "../util/race-abort";

/** Tries at a slot before a call goes ahead without one (the tenant object kept failing). */
const SLOT_ATTEMPTS = 3;
/** Pause between tries at a slot. */
const SLOT_RETRY_MS = 250;

/**
 * Makes one model call inside a tenant-wide model slot (the tenant's `runsInFlight` limit):
 * waits for the slot, gives it back when the call ends. An accepted run is never failed for
 * want of a slot: when the tenant object cannot be asked (it restarted while the run waited),
 * the call is retried and at last made without one. A run aborted while it waits stops waiting.
 */
export async function withModelSlot<T>(
  acquire: () => Promise<Disposable>,
  signal: AbortSignal,
  call: () => Promise<T>,
  context: { tenant: string; run: string },
): Promise<T> {
  const slot = await waitForSlot(acquire, signal, context);
  try {
    return await call();
  } finally {
    slot?.[Symbol.dispose]();
  }
}

async function waitForSlot(
  acquire: () => Promise<Disposable>,
  signal: AbortSignal,
  context: { tenant: string; run: string },
): Promise<Disposable | null> {
  for (let attempt = 1; attempt <= SLOT_ATTEMPTS; attempt++) {
    if (signal.aborted) return null;
    const pending = acquire();
    try {
      return await raceAbort(pending, signal, () => {
        throw new Error("aborted");
      });
    } catch (error) {
      if (signal.aborted) {
        // A slot granted after the abort goes straight back.
        void pending.then((slot) => slot[Symbol.dispose]()).catch(() => undefined);
        return null;
      }
      if (attempt === SLOT_ATTEMPTS) {
        logWarning("run.slot_unavailable", { ...context, error: (error as Error)?.message ?? String(error) });
        return null;
      }
      await new Promise((resolve) => setTimeout(resolve, SLOT_RETRY_MS));
    }
  }
  return null;
}
