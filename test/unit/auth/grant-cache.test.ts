import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resetIsolateAccess } from "../../../src/auth/access-cache";
import { authenticate, retireAccess } from "../../../src/auth/authenticate";
import { retireSharedAccess, shareAccess, sharedAccess } from "../../../src/auth/grant-cache";
import type { Access } from "../../../src/auth/principal";

// The data center's cache as grant-cache.ts uses it (caches.default), stood in for by a map:
// what a revoke writes and what an isolate then reads, without the Workers runtime.

const env = { AUTH_GRANT_SECRET: "unit-grant-cache-secret" };
const tokenHash = "ab".repeat(32);
const access = {
  principal: { kind: "operator", scopes: ["operator.admin"], tokenId: "0123456789abcdef" },
  config: {},
} as Access;

const globals = globalThis as { caches?: unknown };

/** A cache by URL; reads of a URL ending in `failing` throw (a cache that fails for one entry). */
function installCache(failing?: string): Map<string, string> {
  const stored = new Map<string, string>();
  globals.caches = {
    default: {
      match: async (url: string) => {
        if (failing && url.endsWith(failing)) throw new Error("cache read failed");
        return stored.has(url) ? new Response(stored.get(url)) : undefined;
      },
      put: async (url: string, response: Response) => void stored.set(url, await response.text()),
    },
  };
  return stored;
}

const at = (ms: number) => vi.spyOn(Date, "now").mockReturnValue(ms);

describe("grant cache", () => {
  beforeEach(() => resetIsolateAccess());
  afterEach(() => {
    vi.restoreAllMocks();
    delete globals.caches;
  });

  it("without a Cache API (or one that throws), a revoke and a grant still complete and nothing is served", async () => {
    delete globals.caches;
    await expect(retireSharedAccess(env, "acme")).resolves.toBeUndefined();
    await expect(shareAccess(env, "acme", tokenHash, access, Date.now())).resolves.toBeUndefined();
    expect(await sharedAccess(env, "acme", tokenHash)).toBeUndefined();
    const throwing = () => {
      throw new Error("cache unavailable");
    };
    globals.caches = { default: { match: throwing, put: throwing } };
    await expect(retireSharedAccess(env, "acme")).resolves.toBeUndefined();
    await expect(shareAccess(env, "acme", tokenHash, access, Date.now())).resolves.toBeUndefined();
    expect(await sharedAccess(env, "acme", tokenHash)).toBeUndefined();
  });

  it("an older epoch is never written over a newer one (a writer whose clock is behind)", async () => {
    installCache();
    // Asked (and answered) just before the revoke, on clocks in step.
    at(99_000);
    await shareAccess(env, "acme", tokenHash, access, 99_000);
    at(99_500);
    expect((await sharedAccess(env, "acme", tokenHash))?.access).toEqual(access);
    at(100_000);
    await retireSharedAccess(env, "acme");
    at(100_100);
    expect(await sharedAccess(env, "acme", tokenHash)).toBeUndefined();
    // A second change written by a machine 3 s behind: the grant stays retired.
    at(97_200);
    await retireSharedAccess(env, "acme");
    at(100_300);
    expect(await sharedAccess(env, "acme", tokenHash)).toBeUndefined();
  });

  it("a grant is not trusted beside an epoch that could not be read or verified", async () => {
    installCache("/epoch");
    await shareAccess(env, "acme", tokenHash, access, Date.now());
    expect(await sharedAccess(env, "acme", tokenHash)).toBeUndefined();
    const stored = installCache();
    await shareAccess(env, "acme", tokenHash, access, Date.now());
    expect((await sharedAccess(env, "acme", tokenHash))?.access).toEqual(access);
    // An epoch not signed with the deployment secret (garbage, an old secret) retires it too.
    stored.set("https://access-grants.invalid/acme/epoch", "not-a-signed-epoch");
    expect(await sharedAccess(env, "acme", tokenHash)).toBeUndefined();
  });

  it("the epoch retires a grant asked on a machine up to 1 s ahead of the revoking one", async () => {
    installCache();
    // The grant's machine reads 100_900 when the revoking machine reads 100_000 (asked first).
    await shareAccess(env, "acme", tokenHash, access, 100_900);
    at(100_000);
    await retireSharedAccess(env, "acme");
    at(101_000);
    expect(await sharedAccess(env, "acme", tokenHash)).toBeUndefined();
  });
});

describe("authenticate", () => {
  beforeEach(() => resetIsolateAccess());
  afterEach(() => {
    vi.restoreAllMocks();
    delete globals.caches;
  });

  it("keeps no answer that crossed a revoke this isolate made while it was asked", async () => {
    installCache();
    const token = `ocs_0123456789abcdef.${"A".repeat(43)}`;
    let asked = 0;
    const tenant = {
      authenticate: async () => {
        asked += 1;
        // The tenant answered; the revoke lands in this isolate before the answer does.
        if (asked === 1) await retireAccess(env, "acme", "0123456789abcdef");
        return { scopes: ["operator.admin"], config: {} };
      },
    };
    const withTenant = { ...env, TENANTS: { getByName: () => tenant } } as unknown as Env;
    await authenticate(withTenant, "acme", token);
    await authenticate(withTenant, "acme", token);
    expect(asked).toBe(2);
  });
});
