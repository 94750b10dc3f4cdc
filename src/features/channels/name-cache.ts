/**
 * Names a platform gives for ids (a user's display name, a channel's or a group's name), cached
 * per isolate for the rows and the model's envelope: a name rarely changes, and a stale one only
 * names a row or a sender. Bounded: at most `maxEntries`, each for `ttlMs`, the least recently
 * named dropped first. Best effort: a refused or failed lookup is not cached and leaves the name
 * out; the turn goes on. Keys carry the credential's digest, so tenants never share an entry.
 */
export type NameCache = {
  get(key: string, lookUp: () => Promise<string | undefined>): Promise<string | undefined>;
};

/** A longer name is cut: it labels a row (origin labels take 512 characters) and a sender. */
const NAME_MAX_CHARS = 256;

export function nameCache(options: { maxEntries: number; ttlMs: number }): NameCache {
  const names = new Map<string, { name: string; until: number }>();
  return {
    async get(key, lookUp) {
      const now = Date.now();
      const cached = names.get(key);
      if (cached && cached.until > now) return cached.name;
      const found = await lookUp().catch(() => undefined);
      if (found === undefined) return undefined;
      const name = found.slice(0, NAME_MAX_CHARS);
      names.delete(key);
      names.set(key, { name, until: now + options.ttlMs });
      // A Map iterates oldest first: past the bound, the least recently named goes.
      if (names.size > options.maxEntries) names.delete(names.keys().next().value!);
      return name;
    },
  };
}
