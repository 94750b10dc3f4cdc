import { describe, expect, it } from "vitest";
import type { ClaimIntent } from "../../../src/contracts/tenant-api";
import { type ClaimedEntry, PendingClaim } from "../../../src/pending/pending-sessions";
import type { SessionEntry } from "../../../src/protocol/session";

// The session side of the pending-session protocol: when the claim the tenant object made for a
// call (chat.send's `claimPendingSession(key, "start")`) is adopted, and when it is asked again.

const ref = { tenantId: "t1", key: "agent:main:pending", agentId: "main" };
const claimOf = (sessionId: string): ClaimedEntry => ({
  entry: { sessionId, key: ref.key } as SessionEntry,
  version: 1,
});

/** A session object's side: what it asked the tenant, what it adopted. */
function objectWith(tenantAnswer: ClaimedEntry | null) {
  let entry: ClaimedEntry | null = null;
  const asked: ClaimIntent[] = [];
  const claims = new PendingClaim({
    hasEntry: () => entry !== null,
    objectName: () => `${ref.tenantId}/${ref.key}`,
    claim: async (_tenant, _key, intent) => {
      asked.push(intent);
      return tenantAnswer;
    },
    adopt: (_tenant, _key, claimed) => {
      entry = claimed;
    },
  });
  return { claims, asked, adopted: () => entry?.entry.sessionId ?? null, wipe: () => (entry = null) };
}

describe("PendingClaim with a claim the tenant object made for the call", () => {
  it("adopts the given claim without asking the tenant again", async () => {
    const object = objectWith(claimOf("from-tenant"));
    await object.claims.adopt("write", ref, claimOf("given"));
    expect(object.adopted()).toBe("given");
    expect(object.asked).toEqual([]);
  });

  it("a given null (a new key) adopts nothing and asks nothing", async () => {
    const object = objectWith(claimOf("from-tenant"));
    await object.claims.adopt("write", ref, null);
    expect(object.adopted()).toBeNull();
    expect(object.asked).toEqual([]);
  });

  it("after a deletion ran here, a given claim may name the deleted entry: the tenant is asked again", async () => {
    // The tenant object claimed the pending entry, then the session was deleted before the run
    // reached its object: the tenant no longer has the entry (it answers null).
    const object = objectWith(null);
    await object.claims.fence(async () => object.wipe());
    await object.claims.adopt("write", ref, claimOf("deleted"));
    expect(object.adopted()).toBeNull();
    expect(object.asked).toEqual(["write"]);
  });

  it("a call that waited for a deletion under way adopts nothing (it returns when the deletion ends)", async () => {
    const object = objectWith(null);
    let finish = () => {};
    const deletion = object.claims.fence(() => new Promise<void>((resolve) => (finish = resolve)));
    const run = object.claims.adopt("write", ref, claimOf("deleted"));
    finish();
    await Promise.all([deletion, run]);
    expect(object.adopted()).toBeNull();
  });
});

describe("PendingClaim refused over the tenant's sessions limit", () => {
  it("fails the write that would create the session, and the next write asks again", async () => {
    let refuse = true;
    const asked: ClaimIntent[] = [];
    const claims = new PendingClaim({
      hasEntry: () => false,
      objectName: () => `${ref.tenantId}/${ref.key}`,
      claim: async (_tenant, _key, intent) => {
        asked.push(intent);
        if (refuse) throw new Error("Too many sessions");
        return null;
      },
      adopt: () => undefined,
    });
    await expect(claims.adopt("write", ref)).rejects.toThrow("Too many sessions");
    refuse = false;
    await claims.adopt("write", ref);
    expect(asked).toEqual(["write", "write"]);
  });
});
