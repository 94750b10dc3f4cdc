/**
 * The promise's outcome, or `onAbort()`'s (its value, or what it throws) once `signal` aborts
 * first — at once when it already has. The listener is removed when the promise settles.
 */
export function raceAbort<T, A>(promise: Promise<T>, signal: AbortSignal, onAbort: () => A): Promise<T | A> {
  return new Promise<T | A>((resolve, reject) => {
    const abort = () => {
      try {
        resolve(onAbort());
      } catch (error) {
        reject(error);
      }
    };
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", abort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", abort);
        reject(error);
      },
    );
  });
}
