/**
 * Names a platform gives for ids (a user's display name, a channel's or a group's name), cached
 * per isolate for the rows and the model's envelope: a name rarely changes, and a stale one only
 * names a row or a sender. Bounded: at most `maxEntries`, each for `ttlMs`, the least recently
 * named dropped first. Best effort: a refused or failed lookup is not cached and leaves the name
 * out; a lookup slower than `lookupTimeoutMs` is not waited for (the inbox turns one update at a
 * time: a hung profile API must not hold every chat), its name kept for the next turn when it
 * comes. Keys carry the credential's digest, so tenants never share an entry.
 */
export type NameCache = {
  get(key: string, lookUp: () => Promise<string | undefined>): Promise<string | undefined>;
};

/** How long a turn waits for a name (a lookup on loopback takes milliseconds, LINE's ~25 ms recorded). */
export const NAME_LOOKUP_TIMEOUT_MS = 3_000;

/** A longer name is cut: it labels a row (origin labels take 512 characters) and a sender. */
const NAME_MAX_CHARS = 256;

export function nameCache(options: { maxEntries: number; ttlMs: number; lookupTimeoutMs: number }): NameCache {
  const names = new Map<string, { name: string; until: number }>();
  const remember = (key: string, found: string | undefined) => {
    if (found === undefined) return undefined;
    const name = found.slice(0, NAME_MAX_CHARS);
    names.delete(key);
    names.set(key, { name, until: Date.now() + options.ttlMs });
    // A Map iterates oldest first: past the bound, the least recently named goes.
    if (names.size > options.maxEntries) names.delete(names.keys().next().value!);
    return name;
  };
  return {
    async get(key, lookUp) {
      const cached = names.get(key);
      if (cached && cached.until > Date.now()) return cached.name;
      const looked = lookUp().then(
        (found) => remember(key, found),
        () => undefined,
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), options.lookupTimeoutMs);
      });
      try {
        return await Promise.race([looked, late]);
      } finally {
        if (timer !== undefined) clearTimeout(timer);
      }
    },
  };
}
