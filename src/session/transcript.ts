import type {
  AppendedMessage,
  AppendInput,
  AppendResult,
  IndexSnapshot,
  Page,
  ReadQuery,
  SessionRef,
  SpawnLineage,
  TranscriptHit,
  TranscriptSearch,
} from "../contracts/session-api";
import { applyAppend, newEntry, patchedEntry, resetEntry, withDelivery } from "../model/entry";
import type { AppendRejected } from "../model/message-limits";
import { fitMessage, oversized, SESSION_MESSAGE_MAX_BYTES, SESSION_MESSAGE_WARN_SHARE } from "../model/message-limits";
import { toSessionRow } from "../model/session-row";
import { logWarning } from "../observability/log";
import type { ImportBody, ImportConflict, ImportResult } from "../protocol/import";
import type { SessionEntry, SessionPatch, SessionSeed, TranscriptMessage } from "../protocol/session";
import { contentText } from "../runs/runners/runner";
import { dropUndefined } from "../util/encoding";
import { planImport } from "./import-plan";
import type { SessionStore } from "./session-store";

/** Rows read per hit wanted (some raw matches are only in the JSON, not in the text). */
const SEARCH_OVERSCAN = 3;
/** Characters of context on each side of a match. */
const SNIPPET_CONTEXT_CHARS = 80;

/** The text around the first match of `needle` (any case), with `…` where it was cut; null when absent. */
export function snippetAround(text: string, needle: string): string | null {
  const at = text.toLowerCase().indexOf(needle.toLowerCase());
  if (at < 0) return null;
  const start = Math.max(0, at - SNIPPET_CONTEXT_CHARS);
  const end = Math.min(text.length, at + needle.length + SNIPPET_CONTEXT_CHARS);
  return `${start > 0 ? "…" : ""}${text.slice(start, end).replace(/\s+/g, " ")}${end < text.length ? "…" : ""}`;
}

/**
 * A session's entry and its append-only transcript: the one append path (ingest, runs,
 * injects, announces), idempotent ingest, creation, patches, resets and paged reads. All
 * synchronous over SQLite; the session object decides what to publish afterwards.
 */
export class Transcript {
  constructor(
    private readonly store: SessionStore,
    /** Messages were committed (called after the surrounding transaction, in the same turn). */
    private readonly appended: (sessionId: string, seqs: number[]) => void,
  ) {}

  /** The entry, or null when the session does not exist. */
  entry(): SessionEntry | null {
    return this.store.loadEntry()?.entry ?? null;
  }

  /** Creates the entry (and its first transcript) when absent; returns whether it did. */
  ensureEntry(ref: SessionRef, seed: SessionSeed | undefined, now: number): boolean {
    if (this.store.loadEntry()) return false;
    const entry = newEntry(ref, seed, now);
    this.store.setIdentity(ref.tenantId, ref.key);
    this.store.startTranscript(entry.sessionId, now);
    this.store.saveEntry(entry);
    return true;
  }

  /** Makes a pending session's entry (created by the tenant alone) this object's, unless it has one. */
  adopt(tenantId: string, key: string, entry: SessionEntry, version: number): void {
    this.store.transaction(() => {
      if (this.store.loadEntry()) return;
      this.store.setIdentity(tenantId, key);
      this.store.startTranscript(entry.sessionId, entry.createdAt);
      this.store.adoptEntry(entry, version);
    });
  }

  /**
   * Appends messages in order, atomically; the first append creates the session. A repeated
   * idempotency key returns the first outcome and appends nothing.
   */
  ingest(
    ref: SessionRef,
    input: AppendInput,
    maxSessionBytes = SESSION_MESSAGE_MAX_BYTES,
    now = Date.now(),
  ): AppendResult | AppendRejected {
    if (input.idempotencyKey) {
      const previous = this.store.findIdempotent(input.idempotencyKey);
      if (previous) return { ...(JSON.parse(previous) as AppendResult), created: false, duplicate: true };
    }
    const sessionBytes = this.store.messageBytes();
    const tooLarge = oversized(input.messages, now, sessionBytes, maxSessionBytes);
    if (tooLarge) return tooLarge;
    if (sessionBytes > maxSessionBytes * SESSION_MESSAGE_WARN_SHARE) {
      logWarning("session.nearly_full", { tenant: ref.tenantId, session: ref.key, bytes: sessionBytes });
    }
    return this.store.transaction(() => {
      const created = this.ensureEntry(ref, input.seed, now);
      const appended = this.append(input.messages, (entry) => withDelivery(entry, input.messages, input.seed), now);
      const entry = this.store.loadEntry()!.entry;
      const outcome: AppendResult = {
        sessionKey: entry.key,
        sessionId: entry.sessionId,
        appended,
        created,
        duplicate: false,
      };
      if (input.idempotencyKey) this.store.rememberIdempotent(input.idempotencyKey, JSON.stringify(outcome), now);
      return outcome;
    });
  }

  /**
   * The one append path: inserts, updates the entry (`update` sees the entry after the
   * appends), and once the surrounding transaction is done reports the new seqs.
   */
  append(
    messages: TranscriptMessage[],
    update: (entry: SessionEntry) => SessionEntry,
    now = Date.now(),
  ): AppendedMessage[] {
    let entry = this.store.loadEntry()!.entry;
    const appended: AppendedMessage[] = [];
    for (const raw of messages) {
      // Every write path meets the per-message limit here: a user's oversized message was
      // refused before (oversized), anything the service wrote itself is kept cut.
      const { message, json } = fitMessage(raw.timestamp === undefined ? { ...raw, timestamp: now } : raw);
      const seq = entry.messageCount + 1;
      const messageId = crypto.randomUUID();
      this.store.insertMessage(entry.sessionId, { seq, id: messageId, role: message.role, createdAt: now }, json);
      entry = applyAppend(entry, message, seq, now);
      appended.push({ seq, messageId });
    }
    this.store.saveEntry(update(entry));
    const sessionId = entry.sessionId;
    const seqs = appended.map((m) => m.seq);
    if (seqs.length > 0) queueMicrotask(() => this.appended(sessionId, seqs));
    return appended;
  }

  /**
   * Writes one page of another gateway's transcript at its source positions (rules in
   * import-plan.ts), atomically; the first page creates the session under the source's id.
   */
  importPage(
    ref: SessionRef,
    body: ImportBody,
    maxSessionBytes = SESSION_MESSAGE_MAX_BYTES,
    now = Date.now(),
  ): ImportResult | ImportConflict | AppendRejected {
    return this.store.transaction(() => {
      const state = this.store.loadEntry();
      const current = state
        ? { entry: state.entry, importedThrough: this.store.importedThrough(state.entry.sessionId) }
        : null;
      const heldId = (seq: number) => (state ? this.store.messageId(state.entry.sessionId, seq) : undefined);
      const plan = planImport(current, ref, body, now, heldId, {
        session: this.store.messageBytes(),
        max: maxSessionBytes,
      });
      if ("rejected" in plan) return plan;
      const sessionId = plan.entry.sessionId;
      if (plan.created) {
        this.store.setIdentity(ref.tenantId, ref.key);
        this.store.startTranscript(sessionId, plan.entry.createdAt);
      }
      for (const row of plan.rows) this.store.insertMessage(sessionId, row.record, row.body);
      this.store.setImportedThrough(sessionId, plan.entry.messageCount);
      this.store.saveEntry(plan.entry);
      const seqs = plan.rows.map((row) => row.record.seq);
      if (seqs.length > 0) queueMicrotask(() => this.appended(sessionId, seqs));
      return {
        sessionKey: plan.entry.key,
        sessionId,
        created: plan.created,
        imported: plan.rows.length,
        skipped: plan.skipped,
        lastSeq: plan.entry.messageCount,
      };
    });
  }

  /** Changes the entry without appending (run state, archive). */
  updateEntry(update: (entry: SessionEntry) => SessionEntry): void {
    const entry = this.entry();
    if (entry) this.store.saveEntry(update(entry));
  }

  /** Starts a new transcript under the same key; the old one stays readable by its sessionId. */
  reset(ref: SessionRef, now = Date.now()): SessionEntry {
    return this.store.transaction(() => {
      const previous = this.entry();
      const next = previous ? resetEntry(previous, now) : newEntry(ref, undefined, now);
      if (previous) this.store.endTranscript(previous.sessionId, now);
      else this.store.setIdentity(ref.tenantId, ref.key);
      this.store.startTranscript(next.sessionId, now);
      this.store.saveEntry(next);
      return next;
    });
  }

  /** Applies a `sessions.patch` (null clears a field); creates the session when absent, like OpenClaw. */
  patch(
    ref: SessionRef,
    patch: SessionPatch,
    parentSessionKey?: string,
    now = Date.now(),
  ): { created: boolean; entry: SessionEntry } {
    return this.store.transaction(() => {
      const created = this.ensureEntry(ref, undefined, now);
      const entry = patchedEntry(this.entry()!, patch, parentSessionKey, now);
      this.store.saveEntry(entry);
      return { created, entry };
    });
  }

  /** Records the lineage of a spawned sub-agent on its (new) entry. */
  recordLineage(ref: SessionRef, lineage: SpawnLineage, now = Date.now()): void {
    this.ensureEntry(ref, undefined, now);
    this.store.saveEntry(dropUndefined({ ...this.entry()!, ...lineage }));
  }

  /**
   * Messages of the current transcript whose text contains `text`, with a snippet around it:
   * newest first, looking at `maxBytes` of messages at most.
   */
  search(text: string, limit: number, maxBytes: number): TranscriptSearch {
    const entry = this.entry();
    const needle = text.trim();
    if (!entry || !needle) return { hits: [], bytes: 0, stopped: false };
    const found = this.store.searchMessages(entry.sessionId, needle, limit * SEARCH_OVERSCAN, maxBytes);
    // The body is JSON: a match can be in a key or a tool's arguments, so the text is checked too.
    const hits = found.rows
      .flatMap((row) => {
        const message = JSON.parse(row.body) as TranscriptMessage;
        const snippet = snippetAround(contentText(message.content), needle);
        if (snippet === null) return [];
        const role = row.role as TranscriptHit["role"];
        return [{ sessionId: entry.sessionId, messageId: row.id, seq: row.seq, role, timestamp: row.at, snippet }];
      })
      .slice(0, limit);
    return { hits, bytes: found.bytes, stopped: found.stopped };
  }

  /** A page of the current transcript (or of an older one by sessionId). */
  read(query: ReadQuery): (Page & { sessionId: string }) | null {
    const entry = this.entry();
    if (!entry) return null;
    const sessionId = query.sessionId ?? entry.sessionId;
    if (sessionId !== entry.sessionId && this.store.transcriptStartedAt(sessionId) === undefined) return null;
    const { direction: _direction, ...page } = query;
    const result =
      query.direction === "tail" ? this.store.tail({ ...page, sessionId }) : this.store.forward({ ...page, sessionId });
    return { ...result, sessionId };
  }

  /** Messages just appended (for SSE followers), read back as wire records. */
  appendedRecords(sessionId: string, seqs: number[]): Page["messages"] {
    return this.store.forward({
      sessionId,
      cursorSeq: seqs[0]! - 1,
      limit: seqs.length,
      includeTools: true,
      maxBytes: Number.MAX_SAFE_INTEGER,
    }).messages;
  }

  /** The row and its version, for rebuilding the session index. */
  indexSnapshot(): IndexSnapshot | null {
    const state = this.store.loadEntry();
    return state ? { row: toSessionRow(state.entry), version: state.version } : null;
  }
}
