import type { ChangeReason, LiveEvent, SessionUpdate } from "../contracts/session-update";
import type { MessageRecord } from "../model/message-record";
import { toSessionRow } from "../model/session-row";
import { type Audience, eventCutsWindow, publishDelayMs } from "./publish-window";
import type { EntryState, SessionStore } from "./session-store";

/** Messages per update (bounded so a burst is delivered in several frames, never one huge one). */
const UPDATE_MAX_MESSAGES = 200;
const UPDATE_MAX_BYTES = 1024 * 1024;

/**
 * Delivers session updates to the tenant, in order, exactly once per acknowledged version.
 * The transcript itself is the outbox: what has not been acknowledged is re-read from
 * storage, so an evicted or crashed object resumes where it stopped.
 */
export class Publisher {
  private chain: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;
  private reasons: ChangeReason[] = [];
  private events: LiveEvent[] = [];
  /** Who the tenant said would receive this session's updates (null: unknown = hot). */
  private audience: Audience | null = null;
  /** Someone waits for the next update: skip the quiet-session delay. */
  private urgent = false;
  private wake: (() => void) | null = null;
  /** An update is on its way to the tenant. */
  private draining = false;
  /** The pause under way is a quiet session's batching delay. */
  private pausingQuiet = false;
  /** The entry version whose row a caller delivered (not acknowledged: see handOff). */
  private handedVersion = -1;

  constructor(
    private readonly store: SessionStore,
    /** Sends an update; answers who would receive the next one (src/session/publish-window.ts). */
    private readonly deliver: (tenantId: string, update: SessionUpdate) => Promise<PublishAnswer>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether storage holds changes the tenant has not acknowledged. */
  hasPending(): boolean {
    if (this.events.length > 0 || this.reasons.length > 0) return true;
    const state = this.store.loadEntry();
    if (!state) return false;
    const published = this.store.published();
    return (
      // A row a caller delivered (handOff) goes again with the next update, at the retry
      // alarm (forgetHandOff) or after a restart.
      (state.indexedVersion < state.version && this.handedVersion !== state.version) ||
      published.sessionId !== state.entry.sessionId ||
      published.seq < state.entry.messageCount
    );
  }

  /**
   * At the retry alarm, which every append arms: a row only a caller delivered (handOff)
   * becomes pending again, so it is sent once more and acknowledged this time. The tenant
   * object holds such rows in memory for a moment before writing them (tenant/held-index-rows.ts),
   * so one that restarted meanwhile gets the row back at this alarm.
   */
  forgetHandOff(): void {
    this.handedVersion = -1;
  }

  /**
   * Someone began following the session live (sessions.messages.subscribe): what the tenant
   * answered before no longer holds, and an update waiting out a quiet window goes now.
   */
  listenerJoined(): void {
    this.audience = null;
    if (this.pausingQuiet) this.wake?.();
  }

  /**
   * Resolves once everything pending reached the tenant, without the quiet-session delay
   * (a waiter must not pay for batching).
   */
  flush(): Promise<void> {
    this.urgent = true;
    this.wake?.();
    if (this.queued) return this.queued;
    if (!this.hasPending()) return this.chain;
    return this.publish();
  }

  /**
   * Queues a live event (ordered after the messages appended so far) and publishes. `urgent`:
   * a caller waits for it (no burst window).
   */
  emit(event: LiveEvent, urgent = false): Promise<void> {
    this.events.push(event);
    if (urgent) this.urgent = true;
    return this.publish();
  }

  /**
   * Publishes everything pending. Calls made while one is queued join it, so a burst of
   * appends becomes a few updates. The promise settles once the tenant acknowledged. With a
   * reason (create, patch, reset…) a caller waits: it goes without the burst window.
   */
  publish(reason?: ChangeReason): Promise<void> {
    if (reason) {
      this.reasons.push(reason);
      this.urgent = true;
    }
    // A waiting caller cuts any pause; a live event someone would receive cuts a quiet
    // session's window.
    const cuts = this.events.length > 0 && this.pausingQuiet && eventCutsWindow(this.audience, this.now());
    if (this.urgent || cuts) this.wake?.();
    if (this.queued) return this.queued;
    const run = this.chain.then(async () => {
      // Let the current burst (a run's start, deltas and end often come in one turn) join
      // this update; a session nobody listens to waits a window (COLD_WINDOW_MS).
      const pending = { urgent: this.urgent, reasons: this.reasons.length, events: this.events.length };
      await this.pause(publishDelayMs(pending, this.audience, this.now()));
      this.urgent = false;
      this.queued = null;
      return this.drain();
    });
    this.queued = run;
    this.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * Waits `ms` (0: one timer turn, so what the current burst appends joins), cut short when a
   * caller waits. A waiting caller pays no timer at all: a 0 ms timer costs about a millisecond
   * in workerd.
   */
  private pause(ms: number): Promise<void> {
    if (this.urgent) return Promise.resolve();
    this.pausingQuiet = ms > 0;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(), ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        this.pausingQuiet = false;
        resolve();
      };
    });
  }

  /**
   * The update of what was just appended, for a caller that delivers it to the tenant itself
   * (chat.inject answered in the tenant object: no call back to it). Only when nothing else is
   * on its way (it must not overtake an earlier update) and the one new message is all there is
   * to send; else null and the caller awaits the usual path. The message counts as published:
   * the caller delivers it, once. The row is not acknowledged, so the next update carries it
   * again (a caller that died before delivering leaves the index behind only until then).
   */
  handOff(event: LiveEvent): SessionUpdate | null {
    // A queued publish that has not started finds nothing left to send (the append queued it).
    if (this.draining || this.events.length > 0 || this.reasons.length > 0) return null;
    const state = this.store.loadEntry();
    if (!state) return null;
    const { page } = this.pageSincePublished(state);
    // Only the message just appended: nothing handed over can ever have been sent before.
    const [message] = page.messages;
    if (page.messages.length !== 1 || message!.seq !== event.afterSeq + 1) return null;
    this.store.markPublished(
      state.indexedVersion,
      state.entry.sessionId,
      Math.max(message!.seq, state.entry.messageCount),
    );
    this.handedVersion = state.version;
    return this.updateOf(state, page.messages, [], [event]);
  }

  /** The update of `state`: its row only when the tenant has not had it yet. */
  private updateOf(state: EntryState, messages: MessageRecord[], reasons: ChangeReason[], events: LiveEvent[]) {
    const { entry } = state;
    const row = state.indexedVersion < state.version ? { row: toSessionRow(entry) } : {};
    // With new messages, the session's size (for per-tenant quotas; a few rows read).
    const size = messages.length > 0 ? { messageBytes: this.store.messageBytes() } : {};
    return {
      key: entry.key,
      version: state.version,
      ...row,
      ...size,
      sessionId: entry.sessionId,
      messages,
      reasons,
      events,
    };
  }

  /** The tenant has the entry's row (acknowledged, or handed over by a caller). */
  private rowSent(state: EntryState): boolean {
    return state.indexedVersion >= state.version || this.handedVersion === state.version;
  }

  /** Nothing to send, known without reading the transcript (an inject's update was handed over). */
  private upToDate(state: EntryState): boolean {
    if (this.reasons.length > 0 || this.events.length > 0) return false;
    const published = this.store.published();
    const sent = published.sessionId === state.entry.sessionId ? published.seq : -1;
    return this.rowSent(state) && sent >= state.entry.messageCount;
  }

  private pageSincePublished(state: EntryState) {
    const published = this.store.published();
    const fromSeq = published.sessionId === state.entry.sessionId ? published.seq : 0;
    const page = this.store.forward({
      sessionId: state.entry.sessionId,
      cursorSeq: fromSeq,
      limit: UPDATE_MAX_MESSAGES,
      includeTools: true,
      maxBytes: UPDATE_MAX_BYTES,
    });
    return { fromSeq, page };
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      await this.drainAll();
    } finally {
      this.draining = false;
    }
  }

  private async drainAll(): Promise<void> {
    for (;;) {
      const store = this.store;
      const state = store.loadEntry();
      const identity = store.identity();
      if (!state || !identity) {
        this.reasons = [];
        this.events = [];
        return;
      }
      if (this.upToDate(state)) return;
      const { fromSeq, page } = this.pageSincePublished(state);
      const reasons = this.reasons;
      const lastSeq = page.messages.at(-1)?.seq ?? fromSeq;
      // Events wait for the messages they follow; the rest go with the next update.
      const ready = page.hasMore ? this.events.filter((e) => e.afterSeq <= lastSeq) : this.events;
      if (page.messages.length === 0 && reasons.length === 0 && ready.length === 0 && this.rowSent(state)) return;
      this.reasons = [];
      this.events = this.events.filter((e) => !ready.includes(e));
      let answer: PublishAnswer;
      try {
        answer = await this.deliver(identity.tenantId, this.updateOf(state, page.messages, reasons, ready));
      } catch (error) {
        // Nothing was acknowledged: what was taken goes back to the front of the queue, except
        // streaming deltas (the final event carries the whole text), so a long outage cannot
        // grow the retry without bound.
        this.reasons = reasons.concat(this.reasons);
        this.events = ready
          .filter((e) => !isDelta(e))
          .concat(this.events)
          .slice(-MAX_QUEUED_EVENTS);
        throw error;
      }
      // An older tenant answers only `hot`: then assume run events have listeners.
      this.audience = { hot: answer.hot, listening: answer.listening ?? true, at: this.now() };
      // With nothing after the page, everything through messageCount is out (imports may
      // leave seqs without a message: the source's hidden silent replies).
      const through = page.hasMore ? lastSeq : Math.max(lastSeq, state.entry.messageCount);
      this.store.markPublished(state.version, state.entry.sessionId, through);
      // Only the rest of a long burst goes at once. What arrived during the delivery queued
      // its own publish, which waits the window the answer asks for: looping here sent a
      // quiet session's next update milliseconds after this one whenever a delivery was slow.
      if (!page.hasMore) return;
    }
  }
}

/** The tenant's answer to an update (TenantApi.publish). */
export type PublishAnswer = { hot: boolean; listening?: boolean };

/** Events kept while the tenant is unreachable. */
const MAX_QUEUED_EVENTS = 500;

function isDelta(event: LiveEvent): boolean {
  return (
    (event.event === "chat" && event.payload.state === "delta") ||
    (event.event === "agent" && event.payload.stream === "assistant")
  );
}
