/**
 * The one way the service calls R2 (the ATTACHMENTS bucket): a wrapper that counts what each
 * call bills, by Cloudflare's R2 pricing (https://developers.cloudflare.com/r2/pricing/, read
 * 2026-11-29): `put` and `list` are Class A operations (PutObject, ListObjects), `get` and
 * `head` Class B (GetObject, HeadObject), `delete` is free (DeleteObject). It also counts the
 * bytes a `put` stored and a `delete` removed: their difference, summed over days, is what the
 * tenant keeps in R2 (billed per GB-month). Every count goes to the tenant whose prefix the key
 * is in (`<tenant>/…`, the layout every path writes); the account decides where that goes (the
 * object's meter, or the worker request's tally: metered-env.ts).
 *
 * Only these calls are offered: a path that needs another R2 call (multipart, copy) adds it
 * here, counted. `delete` takes each object with its size (from the listing or the put that
 * found it), so a deletion's bytes are known without a `head` per key.
 */

/** What a set of R2 calls billed, for one tenant. */
export type R2Units = {
  /** Class A operations (put, list). */
  classA: number;
  /** Class B operations (get, head). */
  classB: number;
  /** Bytes put minus bytes deleted. */
  storedBytes: number;
};

/** Where a call's units go; throws for a key the account may not touch (another tenant's). */
export type R2Account = (tenantId: string, units: R2Units) => void;

/** An object as a listing or a put returns it: enough to delete it and know the bytes freed. */
export type StoredObject = { key: string; size: number };

export interface MeteredBucket {
  /**
   * `replacing`: the object already at `key` (from a `head`), whose bytes the put frees; without
   * it the put is counted as a new key (every path but one writes fresh keys).
   */
  put(
    key: string,
    value: ReadableStream | ArrayBuffer | ArrayBufferView | string | null | Blob,
    options?: R2PutOptions,
    replacing?: { size: number } | null,
  ): Promise<R2Object | null>;
  get(key: string): Promise<R2ObjectBody | null>;
  head(key: string): Promise<R2Object | null>;
  list(options: R2ListOptions & { prefix: string }): Promise<R2Objects>;
  /** Deletes the objects (R2 takes up to 1,000 keys a call). */
  delete(objects: readonly StoredObject[]): Promise<void>;
}

/**
 * The tenant a key (or a listing's prefix) belongs to: what precedes its first `/`. A key with
 * none belongs to no tenant, and is refused: every path writes under `<tenant>/`.
 */
export function tenantOfKey(key: string): string {
  const slash = key.indexOf("/");
  if (slash <= 0) throw new Error(`R2 key outside any tenant's prefix: ${JSON.stringify(key.slice(0, 80))}`);
  return key.slice(0, slash);
}

const units = (classA: number, classB: number, storedBytes: number): R2Units => ({ classA, classB, storedBytes });

/** Nothing billed: what a call asks the account before it reaches R2 (the account's fence only). */
export const NO_R2_UNITS: Readonly<R2Units> = Object.freeze(units(0, 0, 0));

/** Whether `r2` bills nothing (an account's check before a delete): no meter needs it. */
export const billsNothing = (r2: R2Units): boolean => r2.classA === 0 && r2.classB === 0 && r2.storedBytes === 0;

/** `bucket` with every call counted to `account`. */
export function meterBucket(bucket: R2Bucket, account: R2Account): MeteredBucket {
  return {
    async put(key, value, options, replacing) {
      const tenant = tenantOfKey(key);
      // Billed whether or not it succeeds; the bytes only once stored (less those it replaced).
      account(tenant, units(1, 0, 0));
      const stored = await bucket.put(key, value, options);
      if (stored) account(tenant, units(0, 0, stored.size - (replacing?.size ?? 0)));
      return stored;
    },
    async get(key) {
      account(tenantOfKey(key), units(0, 1, 0));
      return bucket.get(key);
    },
    async head(key) {
      account(tenantOfKey(key), units(0, 1, 0));
      return bucket.head(key);
    },
    async list(options) {
      account(tenantOfKey(options.prefix), units(1, 0, 0));
      return bucket.list(options);
    },
    async delete(objects) {
      if (objects.length === 0) return;
      const freed = new Map<string, number>();
      for (const object of objects) {
        const tenant = tenantOfKey(object.key);
        freed.set(tenant, (freed.get(tenant) ?? 0) + object.size);
      }
      // Every tenant is passed to the account before R2 is called (a key the account may not
      // touch is refused with nothing deleted); the bytes only once gone.
      for (const tenant of freed.keys()) account(tenant, NO_R2_UNITS);
      await bucket.delete(objects.map((object) => object.key));
      for (const [tenant, bytes] of freed) account(tenant, units(0, 0, -bytes));
    },
  };
}
