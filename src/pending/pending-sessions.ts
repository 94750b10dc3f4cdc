import type { IndexSnapshot, PatchOptions, SessionRef } from "../contracts/session-api";
import type { ClaimIntent, SessionRefused, SessionUpdate } from "../contracts/tenant-api";
import { objectKnowsItsName, parseSessionObjectName } from "../keys/object-names";
import { newEntry, patchedEntry } from "../model/entry";
import { toSessionRow } from "../model/session-row";
import { logWarning } from "../observability/log";
import type { SessionEntry, SessionPatch } from "../protocol/session";
import type { PendingSession, PendingSessionStore } from "./pending-store";

/**
 * The pending-session protocol, both sides of it. `sessions.patch` / `sessions.create` of a
 * new key write the entry in the tenant object alone (PendingSessions); the session object
 * adopts it the first time anything reaches it (PendingClaim), and the tenant's row goes once
 * that object publishes the session itself. A deletion holds every claim off while it wipes.
 */

/** A pending entry as a session object adopts it. */
export type ClaimedEntry = { entry: SessionEntry; version: number };

/** What the tenant side needs of the session index. */
export type PendingIndex = {
  /** Its `sessions` table. */
  sessions: { hasSession(key: string): boolean; dropSessions(keys: string[]): void };
  /** Its `session_ids` table. */
  sessionIds: { isDeleted(sessionId: string): boolean; retireSessionId(sessionId: string): void };
};

/** The tenant side: pending entries, their claims, and their retirement once adopted. */
export class PendingSessions {
  constructor(
    private readonly store: PendingSessionStore,
    private readonly index: PendingIndex,
    private readonly tenantId: () => string | undefined,
    /** Whether the tenant may have one more session (its `sessions` limit): null when it may. */
    private readonly admitNew: () => SessionRefused["refused"] | null = () => null,
  ) {}

  /**
   * A create or patch of a key nothing has used yet: the pending entry and the index update
   * the session object's own patch would make (Transcript.patch). Null when the key belongs
   * to its session object (claimed, indexed, or a name too long for the object to learn).
   */
  create(
    ref: SessionRef,
    patch: SessionPatch,
    options: PatchOptions,
    now: number,
  ): { entry: SessionEntry; update: SessionUpdate } | SessionRefused | null {
    // Keys whose object cannot learn its own name stay with the object (see objectKnowsItsName).
    if (!objectKnowsItsName(ref.tenantId, ref.key)) return null;
    const pending = this.store.get(ref.key);
    if (pending ? pending.claimed : this.index.sessions.hasSession(ref.key)) return null;
    const refused = pending ? null : this.admitNew();
    if (refused) return { refused };
    const entry = patchedEntry(pending?.entry ?? newEntry(ref, undefined, now), patch, options.parentSessionKey, now);
    const version = (pending?.version ?? 0) + 1;
    this.store.put(ref.key, entry, version);
    const reason = options.reason ?? (pending ? "patch" : "create");
    const update: SessionUpdate = {
      key: ref.key,
      version,
      row: toSessionRow(entry),
      sessionId: entry.sessionId,
      messages: [],
      reasons: [reason],
      events: [],
    };
    return { entry, update };
  }

  /**
   * The claim a session object would make, made for it by the tenant object before it starts a
   * run there (one call less for a new key); undefined when the key's session is published.
   */
  claimBeforeStart(key: string): ClaimedEntry | SessionRefused | null | undefined {
    if (!this.store.get(key) && this.index.sessions.hasSession(key)) return undefined;
    return this.claim(key, "write");
  }

  /**
   * A write claim of a key that is neither pending nor indexed comes from an object about to
   * create the session (every door's first write passes here): refused over `sessions`.
   */
  claim(key: string, intent: ClaimIntent): ClaimedEntry | SessionRefused | null {
    if (intent === "write" && !this.store.get(key) && !this.index.sessions.hasSession(key)) {
      const refused = this.admitNew();
      if (refused) return { refused };
    }
    const claimed = this.store.claim(key, intent);
    return claimed?.entry ? { entry: claimed.entry, version: claimed.version } : null;
  }

  /** The session object now publishes the session itself: its pending entry goes. */
  adopted(key: string, sessionId: string): void {
    // One primary-key read on the publish path; the table is empty but for unused sessions.
    const pending = this.store.get(key);
    // A late update of a deleted transcript must not retire a newer pending entry of the key.
    if (!pending || this.index.sessionIds.isDeleted(sessionId)) return;
    this.store.remove(key);
    // An object that never claimed the entry made its own (a create racing the first message
    // through another transport): the object's wins. A claimed one may since have been reset.
    if (pending.entry && !pending.claimed && pending.entry.sessionId !== sessionId) {
      logWarning("session.create_conflict", { tenant: this.tenantId(), session: key });
      this.index.sessions.dropSessions([key]);
      this.index.sessionIds.retireSessionId(pending.entry.sessionId);
    }
  }

  remove(key: string): void {
    this.store.remove(key);
  }

  /** The row of a session nothing claimed yet: it has no object to ask, its entry here is the session. */
  unclaimedSnapshot(key: string): IndexSnapshot | null {
    const pending: PendingSession | undefined = this.store.get(key);
    return pending?.entry && !pending.claimed ? { row: toSessionRow(pending.entry), version: pending.version } : null;
  }
}

/** What the session side needs of its object. */
export type ClaimHost = {
  hasEntry(): boolean;
  /** The object's name (`ctx.id.name`): whose session it is when a caller did not say. */
  objectName(): string | undefined;
  claim(tenantId: string, key: string, intent: ClaimIntent): Promise<ClaimedEntry | null>;
  adopt(tenantId: string, key: string, claimed: ClaimedEntry): void;
};

/**
 * The session side. An object without an entry may stand for a session the tenant created
 * alone: it asks the tenant once per use and adopts that entry, so the session keeps the
 * sessionId its creator was told. Concurrent callers share one claim; a deletion is a claim
 * of its own that no other may slip past while the object is wiped.
 */
export class PendingClaim {
  /** The claim of a pending entry under way, or a deletion. */
  private adopting: { intent: ClaimIntent; done: Promise<void> } | null = null;
  /**
   * Deletions this instance ran. A claim the tenant object made before a deletion that ended
   * here may name the deleted entry, so after one a given claim is asked for again.
   */
  private deletions = 0;

  constructor(private readonly host: ClaimHost) {}

  /** `given`: the claim the tenant object already made for this call (undefined: ask it). */
  async adopt(intent: ClaimIntent, ref?: SessionRef, given?: ClaimedEntry | null): Promise<void> {
    for (;;) {
      if (this.host.hasEntry()) return;
      const current = this.adopting;
      if (current) {
        await current.done;
        // A write may create the session, so it needs a write claim of its own (which holds
        // off a create racing it); a read's claim does not.
        if (current.intent === "write" || intent === "read") return;
        continue;
      }
      const owner = ref ?? parseSessionObjectName(this.host.objectName());
      if (!owner) return;
      const claim = async () => {
        const trusted = given !== undefined && this.deletions === 0;
        const pending = trusted ? given : await this.host.claim(owner.tenantId, owner.key, intent);
        if (pending) this.host.adopt(owner.tenantId, owner.key, pending);
      };
      // Registered before the claim starts, so every caller from now on joins it.
      const done: Promise<void> = Promise.resolve()
        .then(claim)
        .finally(() => {
          if (this.adopting?.done === done) this.adopting = null;
        });
      this.adopting = { intent, done };
      return done;
    }
  }

  /**
   * Runs a deletion with every claim held off until it ends. Not adopted first: a pending
   * session is removed where it lives (the tenant's removeSession).
   */
  async fence<T>(start: () => Promise<T>): Promise<T> {
    const deletion = start();
    this.adopting = { intent: "write", done: deletion.then(ignore, ignore) };
    try {
      return await deletion;
    } finally {
      this.adopting = null;
      this.deletions++;
    }
  }
}

function ignore(): void {}
