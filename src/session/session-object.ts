import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import type { SessionEntry, SessionPatch, SessionSeed, TranscriptMessage } from "../protocol/session";
import { deriveChatType } from "../keys/session-key";
import { type Page, type PageQuery, SessionStore } from "./session-store";
import { FOLLOW_DEFAULT_LIMIT, type FollowQuery, Followers } from "./followers";
import { Publisher } from "./publisher";
import { messagePreview, toSessionRow, type SessionRow } from "./session-row";

/** Retry delay when the tenant could not be reached for an update. */
const PUBLISH_RETRY_MS = 1_000;

/** Header carrying the follow query from the worker to the session object. */
export const FOLLOW_HEADER = "x-openclaw-follow";

/** Which session an RPC is about; the worker resolves it before calling. */
export type SessionRef = { tenantId: string; key: string; agentId: string };

export type AppendInput = { messages: TranscriptMessage[]; seed?: SessionSeed; idempotencyKey?: string };
export type AppendedMessage = { seq: number; messageId: string };
export type AppendResult = {
  sessionKey: string;
  sessionId: string;
  appended: AppendedMessage[];
  created: boolean;
  duplicate: boolean;
};

/** Stays under the platform's 2 MB row limit with room for the row's other columns. */
export const MAX_MESSAGE_BYTES = 1_800_000;

/** Append outcome for a message over MAX_MESSAGE_BYTES (a result, not a throw: RPC-friendly). */
export type AppendRejected = { rejected: "too_large"; bytes: number };

/**
 * One session (tenant + canonical key): its entry, its append-only transcript and,
 * in later layers, its runs, timers and subscribers. A thin shell: SQL lives in
 * SessionStore, decisions in pure modules.
 */
export class SessionObject extends DurableObject<Env> {
  private store: SessionStore;
  private readonly publisher: Publisher;
  private readonly followers: Followers;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new SessionStore(ctx.storage);
    this.publisher = new Publisher(
      () => this.store,
      (tenantId, update) => this.env.TENANTS.getByName(tenantId).publish(update),
    );
    this.followers = new Followers(
      (query) => this.followPage(query),
      async (tokenId) => {
        const identity = this.store.identity();
        return identity ? this.env.TENANTS.getByName(identity.tenantId).tokenExists(tokenId) : false;
      },
    );
    // Changes that never reached the tenant (eviction, crash) are published on wake.
    if (this.publisher.hasPending()) this.publishInBackground();
  }

  /**
   * Appends messages in order, atomically; the first append creates the session.
   * A repeated idempotency key returns the first outcome and appends nothing.
   */
  async append(ref: SessionRef, input: AppendInput): Promise<AppendResult | AppendRejected> {
    if (input.idempotencyKey) {
      const previous = this.store.findIdempotent(input.idempotencyKey);
      if (previous) return { ...(JSON.parse(previous) as AppendResult), created: false, duplicate: true };
    }
    const now = Date.now();
    const prepared: Array<{ message: TranscriptMessage; body: string }> = [];
    for (const raw of input.messages) {
      const message = raw.timestamp === undefined ? { ...raw, timestamp: now } : raw;
      const body = JSON.stringify(message);
      const bytes = utf8Length(body);
      if (bytes > MAX_MESSAGE_BYTES) return { rejected: "too_large", bytes };
      prepared.push({ message, body });
    }

    const result = this.store.transaction(() => {
      const existing = this.store.loadEntry()?.entry;
      let entry = existing ?? this.newEntry(ref, input.seed, now);
      if (!existing) {
        this.store.setIdentity(ref.tenantId, ref.key);
        this.store.startTranscript(entry.sessionId, now);
      }
      const appended: AppendedMessage[] = [];
      for (const { message, body } of prepared) {
        const seq = entry.messageCount + 1;
        const messageId = crypto.randomUUID();
        this.store.insertMessage(entry.sessionId, { seq, id: messageId, role: message.role, createdAt: now }, body);
        entry = applyAppend(entry, message, input.seed, seq, now);
        appended.push({ seq, messageId });
      }
      this.store.saveEntry(entry);
      const outcome: AppendResult = { sessionKey: entry.key, sessionId: entry.sessionId, appended, created: !existing, duplicate: false };
      if (input.idempotencyKey) this.store.rememberIdempotent(input.idempotencyKey, JSON.stringify(outcome), now);
      return outcome;
    });
    if (this.followers.size > 0) this.followers.appended(this.store.forward({
      sessionId: result.sessionId,
      cursorSeq: (result.appended[0]?.seq ?? 1) - 1,
      limit: result.appended.length,
      includeTools: true,
      maxBytes: Number.MAX_SAFE_INTEGER,
    }).messages);
    // A new session must be listable as soon as its creator hears back; later appends
    // reach the registry in the background so they add no round trip.
    if (result.created) await this.publisher.publish("create");
    else this.publishInBackground();
    return result;
  }

  /** The entry, or null when the session does not exist. */
  entry(): SessionEntry | null {
    return this.store.loadEntry()?.entry ?? null;
  }

  row(): SessionRow | null {
    const entry = this.entry();
    return entry && toSessionRow(entry);
  }

  /** SSE follow of this session (the worker forwards the authenticated request here). */
  override async fetch(request: Request): Promise<Response> {
    const query = JSON.parse(request.headers.get(FOLLOW_HEADER) ?? "null") as FollowQuery | null;
    if (!query) return new Response("not found", { status: 404 });
    const response = this.followers.open(query);
    if (response) return response;
    return Response.json(
      { ok: false, error: { type: "not_found", message: `Session not found: ${query.sessionKey}` } },
      { status: 404 },
    );
  }

  private followPage(query: FollowQuery): Page | null {
    const entry = this.entry();
    if (!entry) return null;
    return this.store.tail({
      sessionId: entry.sessionId,
      limit: query.limit ?? FOLLOW_DEFAULT_LIMIT,
      includeTools: query.includeTools,
      maxBytes: 8 * 1024 * 1024,
      ...(query.cursorSeq !== undefined ? { cursorSeq: query.cursorSeq } : {}),
    });
  }

  /** The row and its version, for rebuilding the registry. */
  indexSnapshot(): { row: SessionRow; version: number } | null {
    const state = this.store.loadEntry();
    return state ? { row: toSessionRow(state.entry), version: state.version } : null;
  }

  /** A page of the current transcript (or of an older one by sessionId). */
  read(query: Omit<PageQuery, "sessionId"> & { sessionId?: string; direction: "tail" | "forward" }):
    | (Page & { sessionId: string })
    | null {
    const entry = this.entry();
    if (!entry) return null;
    const sessionId = query.sessionId ?? entry.sessionId;
    if (sessionId !== entry.sessionId && this.store.transcriptStartedAt(sessionId) === undefined) return null;
    const page = query.direction === "tail" ? this.store.tail({ ...query, sessionId }) : this.store.forward({ ...query, sessionId });
    return { ...page, sessionId };
  }

  /** Transcripts this key has had (the current one last). */
  transcripts() {
    return this.store.sessionIds();
  }

  /** Starts a new transcript under the same key; the old one stays readable by its sessionId. */
  async reset(ref: SessionRef, reason: "new" | "reset" = "reset"): Promise<SessionEntry> {
    const now = Date.now();
    const entry = this.store.transaction(() => {
      const previous = this.store.loadEntry()?.entry;
      const next = previous ? resetEntry(previous, now) : this.newEntry(ref, undefined, now);
      if (previous) this.store.endTranscript(previous.sessionId, now);
      else this.store.setIdentity(ref.tenantId, ref.key);
      this.store.startTranscript(next.sessionId, now);
      this.store.saveEntry(next);
      return next;
    });
    await this.publisher.publish("patch");
    return entry;
  }

  /** Applies a `sessions.patch` (null clears a field); creates the session when absent, like OpenClaw. */
  async patch(ref: SessionRef, patch: SessionPatch): Promise<SessionEntry> {
    const now = Date.now();
    const entry = this.store.transaction(() => {
      const existing = this.store.loadEntry()?.entry;
      const base = existing ?? this.newEntry(ref, undefined, now);
      if (!existing) {
        this.store.setIdentity(ref.tenantId, ref.key);
        this.store.startTranscript(base.sessionId, now);
      }
      const next = applyPatch(base, patch, now);
      this.store.saveEntry(next);
      return next;
    });
    await this.publisher.publish("patch");
    return entry;
  }

  /** Records the session this one was created from (sessions.create parentSessionKey). */
  async setParent(parentSessionKey: string): Promise<SessionEntry> {
    const state = this.store.loadEntry();
    if (!state) throw new Error("setParent on a missing session");
    const entry = { ...state.entry, parentSessionKey };
    this.store.saveEntry(entry);
    await this.publisher.publish("patch");
    return entry;
  }

  /** Removes the session and its transcripts. Returns whether anything existed. */
  async delete(ref: SessionRef): Promise<boolean> {
    const existed = this.store.loadEntry() !== undefined;
    this.followers.closeAll();
    await this.ctx.storage.deleteAll();
    this.store = new SessionStore(this.ctx.storage);
    await this.tenant(ref.tenantId).removeSession(ref.key, Date.now());
    return existed;
  }

  private newEntry(ref: SessionRef, seed: SessionSeed | undefined, now: number): SessionEntry {
    const delivery = seed?.deliveryContext;
    const chatType = seed?.chatType ?? knownChatType(deriveChatType(ref.key));
    return dropUndefined({
      key: ref.key,
      agentId: ref.agentId,
      sessionId: crypto.randomUUID(),
      createdAt: now,
      updatedAt: now,
      label: seed?.label,
      displayName: seed?.displayName,
      channel: seed?.channel ?? seed?.origin?.provider ?? delivery?.channel,
      chatType,
      origin: seed?.origin,
      deliveryContext: delivery,
      lastChannel: delivery?.channel,
      lastTo: delivery?.to,
      lastAccountId: delivery?.accountId,
      lastThreadId: delivery?.threadId,
      systemSent: false,
      abortedLastRun: false,
      messageCount: 0,
    });
  }

  private tenant(tenantId: string) {
    return this.env.TENANTS.getByName(tenantId);
  }

  /** Publishes in the background (appends): the caller does not wait for the tenant. */
  private publishInBackground(): void {
    this.ctx.waitUntil(
      this.publisher.publish().catch(async (error) => {
        console.error("SessionObject: publish failed; retrying by alarm", error);
        await this.ctx.storage.setAlarm(Date.now() + PUBLISH_RETRY_MS);
      }),
    );
  }

  override async alarm(): Promise<void> {
    if (this.publisher.hasPending()) await this.publisher.publish();
  }
}

function applyAppend(
  entry: SessionEntry,
  message: TranscriptMessage,
  seed: SessionSeed | undefined,
  seq: number,
  now: number,
): SessionEntry {
  const next: SessionEntry = {
    ...entry,
    messageCount: seq,
    updatedAt: Math.max(now, entry.updatedAt),
    lastMessagePreview: messagePreview(message.content) ?? entry.lastMessagePreview,
  };
  const delivery = seed?.deliveryContext;
  if (delivery && message.role === "user") {
    next.deliveryContext = delivery;
    if (delivery.channel) next.lastChannel = delivery.channel;
    if (delivery.to) next.lastTo = delivery.to;
    if (delivery.accountId) next.lastAccountId = delivery.accountId;
    if (delivery.threadId !== undefined) next.lastThreadId = delivery.threadId;
  }
  return addUsage(next, message);
}

/** Assistant usage feeds the session's token counters. */
function addUsage(entry: SessionEntry, message: TranscriptMessage): SessionEntry {
  if (message.role !== "assistant" || !message.usage) return entry;
  const usage = message.usage;
  const input = finite(usage.input) ?? finite(usage.inputTokens) ?? 0;
  const output = finite(usage.output) ?? finite(usage.outputTokens) ?? 0;
  const total = finite(usage.totalTokens) ?? input + output;
  const cost = finite((usage.cost as { total?: unknown } | undefined)?.total);
  return {
    ...entry,
    inputTokens: (entry.inputTokens ?? 0) + input,
    outputTokens: (entry.outputTokens ?? 0) + output,
    totalTokens: (entry.totalTokens ?? 0) + total,
    ...(cost !== undefined ? { estimatedCostUsd: (entry.estimatedCostUsd ?? 0) + cost } : {}),
  };
}

function applyPatch(entry: SessionEntry, patch: SessionPatch, now: number): SessionEntry {
  const next: Record<string, unknown> = { ...entry, updatedAt: Math.max(now, entry.updatedAt) };
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete next[field];
    else next[field] = value;
  }
  // A model override without a provider must not keep a stale provider (OpenClaw's merge rule).
  if (patch.model !== undefined) delete next.modelProvider;
  return next as SessionEntry;
}

function resetEntry(previous: SessionEntry, now: number): SessionEntry {
  const {
    inputTokens: _i,
    outputTokens: _o,
    totalTokens: _t,
    estimatedCostUsd: _c,
    status: _s,
    startedAt: _sa,
    endedAt: _ea,
    runtimeMs: _r,
    lastMessagePreview: _p,
    ...kept
  } = previous;
  return { ...kept, sessionId: crypto.randomUUID(), updatedAt: Math.max(now, previous.updatedAt), messageCount: 0, systemSent: false, abortedLastRun: false };
}

/** UTF-8 byte length; skips encoding when the string cannot possibly be over the limit. */
function utf8Length(text: string): number {
  if (text.length * 3 <= MAX_MESSAGE_BYTES) return text.length;
  return new TextEncoder().encode(text).byteLength;
}

function finite(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function knownChatType(value: string): SessionEntry["chatType"] {
  return value === "direct" || value === "group" || value === "channel" ? value : undefined;
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
