/**
 * Names a platform gives for ids (a user's display name, a channel's or a group's name), cached
 * per isolate for the rows and the model's envelope: a name rarely changes, and a stale one only
 * names a row or a sender. Bounded: at most `maxEntries`, each for `ttlMs`, the least recently
 * named dropped first. Best effort: a refused, failed or late lookup leaves the name out. The
 * inbox turns one update at a time, so a hung or refusing profile API must not hold every chat:
 * - a lookup slower than `lookupTimeoutMs` (NAME_LOOKUP_TIMEOUT_MS) is not waited for (its name kept for the next turn
 *   when it comes);
 * - a refused, failed or late lookup is remembered as "no name" for `missTtlMs`
 *   (NAME_MISS_TTL_MS), so the turns after it neither call nor wait again;
 * - one lookup per key is in flight: a turn asking meanwhile shares it (and its deadline).
 * Keys carry the credential's digest, so tenants never share an entry.
 */
export type NameCache = {
  get(key: string, lookUp: () => Promise<string | undefined>): Promise<string | undefined>;
};

/** How long a turn waits for a name (a lookup on loopback takes milliseconds, LINE's ~25 ms recorded). */
export const NAME_LOOKUP_TIMEOUT_MS = 3_000;

/** How long a refused, failed or late lookup is remembered as no name: short, a name that appears soon is told soon. */
export const NAME_MISS_TTL_MS = 30_000;

/** A longer name is cut: it labels a row (origin labels take 512 characters) and a sender. */
const NAME_MAX_CHARS = 256;

export function nameCache(bounds: {
  maxEntries: number;
  ttlMs: number;
  lookupTimeoutMs?: number;
  missTtlMs?: number;
}): NameCache {
  const options = { lookupTimeoutMs: NAME_LOOKUP_TIMEOUT_MS, missTtlMs: NAME_MISS_TTL_MS, ...bounds };
  // `name` undefined: a miss, remembered for `missTtlMs`.
  const names = new Map<string, { name: string | undefined; until: number }>();
  const inFlight = new Map<string, Flight>();
  const remember = (key: string, found: string | undefined) => {
    const name = found?.slice(0, NAME_MAX_CHARS);
    names.delete(key);
    names.set(key, { name, until: Date.now() + (name === undefined ? options.missTtlMs : options.ttlMs) });
    // A Map iterates oldest first: past the bound, the least recently named goes.
    if (names.size > options.maxEntries) names.delete(names.keys().next().value!);
    return name;
  };
  /** The lookup, answered by its deadline at the latest; past it a miss (until the late name comes). */
  const lookUpOnce = async (key: string, lookUp: () => Promise<string | undefined>) => {
    let settled = false;
    const settle = (found: string | undefined) => {
      settled = true;
      return remember(key, found);
    };
    const flight = {
      looked: lookUp().then(settle, () => settle(undefined)),
      deadline: Date.now() + options.lookupTimeoutMs,
    };
    inFlight.set(key, flight);
    const name = await within(flight.looked, options.lookupTimeoutMs);
    if (inFlight.get(key) === flight) inFlight.delete(key);
    if (!settled) remember(key, undefined);
    return name;
  };
  return {
    async get(key, lookUp) {
      const cached = names.get(key);
      if (cached && cached.until > Date.now()) return cached.name;
      const flight = inFlight.get(key);
      // Joined with its own timer: in Workers a promise settles in the context of the request that
      // started it, and that request may be gone; a flight past its deadline is not joined.
      if (flight && flight.deadline > Date.now()) return within(flight.looked, flight.deadline - Date.now());
      return lookUpOnce(key, lookUp);
    },
  };
}

/** A lookup in flight: its answer (the cache already written), and when its turns stop waiting (ms since epoch). */
type Flight = { looked: Promise<string | undefined>; deadline: number };

/** `answer`, or undefined once `waitMs` have passed (the timer cleared when the answer comes first). */
async function within<T>(answer: Promise<T>, waitMs: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), waitMs);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
