import { DurableObject } from "cloudflare:workers";
import { FOLLOW_HEADER } from "../contracts/headers";
import type {
  AbortOutcome,
  AnnounceDelivery,
  AppendInput,
  AppendRejected,
  AppendResult,
  FlowRequest,
  IndexSnapshot,
  Page,
  PatchOptions,
  ReadQuery,
  RunCallback,
  SendPolicyCheck,
  SessionApi,
  SessionRef,
  SpawnLineage,
  StartAnswer,
  StartResult,
  StartRun,
  TranscriptInfo,
} from "../contracts/session-api";
import type { ClaimIntent, LiveEvent } from "../contracts/tenant-api";
import type { Delivery } from "../delivery/delivery-store";
import { deliveryTargetOf } from "../delivery/delivery-target";
import { Outbox } from "../delivery/outbox";
import { A2aFlowDriver } from "../flows/a2a-flow";
import type { Flow } from "../flows/flow-store";
import { runnerWithSessionModel } from "../policy/agent-models";
import { sendBlocked } from "../policy/send-policy";
import type { ImportBody, ImportConflict, ImportResult } from "../protocol/import";
import type { RunView } from "../protocol/runs";
import type { SessionEntry, SessionPatch, SessionSeed, TranscriptMessage } from "../protocol/session";
import { PendingAborts } from "../runs/pending-aborts";
import { RunEvents } from "../runs/run-events";
import { RunExecutor } from "../runs/run-executor";
import { RunLifecycle } from "../runs/run-lifecycle";
import { type AbortReason, injectedChatEvent, runContext } from "../runs/run-payloads";
import type { RunSnapshot } from "../runs/run-types";
import { RUN_LIST_TEXT_CHARS, toRunView } from "../runs/run-view";
import { acceptAnnounce } from "../spawn/announce-inbox";
import { deleteAttachments } from "../spawn/attachments";
import { SpawnDriver } from "../spawn/spawn-driver";
import type { SpawnSpec } from "../spawn/spawn-store";
import { parseSessionObjectName, sessionApi, tenantApi } from "../stubs";
import { type TimerHandlers, Timers } from "../timers/timers";
import { FOLLOW_DEFAULT_LIMIT, Followers, type FollowQuery } from "./followers";
import { Publisher } from "./publisher";
import { SeqWaiters } from "./seq-waiters";
import { SessionStore } from "./session-store";
import { Transcript } from "./transcript";

/** Retry delay when the tenant could not be reached for an update. */
const PUBLISH_RETRY_MS = 1_000;
/** JSON bytes of the first page an SSE follower receives. */
const FOLLOW_PAGE_MAX_BYTES = 8 * 1024 * 1024;
/** Messages read to find a sub-agent's latest tool result. */
const SPAWN_RESULT_READ_MAX_BYTES = 2 * 1024 * 1024;
/** Deliveries listed at most per request. */
const MAX_DELIVERIES_LISTED = 500;

/**
 * One session (tenant + canonical key): wiring of its modules and the RPC surface, each
 * method delegating in a few lines. The entry and transcript rules live in Transcript, runs
 * in RunLifecycle, the timer table behind the one alarm in Timers, delivery to the tenant in
 * Publisher, SSE in Followers, sessions_send follow-ups in A2aFlowDriver, sub-agent
 * announces in SpawnDriver, channel deliveries in Outbox.
 */
export class SessionObject extends DurableObject<Env> implements SessionApi {
  private readonly store: SessionStore;
  private readonly timers: Timers;
  private readonly transcript: Transcript;
  private readonly publisher: Publisher;
  private readonly followers: Followers;
  private readonly runs: RunLifecycle;
  /** sessions_wait callers waiting for a message past a seq. */
  private readonly seqWaiters = new SeqWaiters();
  /** Aborts of runs whose start is still on its way. */
  private readonly pendingAborts = new PendingAborts();
  private readonly outbox: Outbox;
  private readonly flows: A2aFlowDriver;
  private readonly spawns: SpawnDriver;
  private readonly timerHandlers: TimerHandlers;
  /** The claim of a pending entry under way, or a deletion (see adoptPending). */
  private adopting: { intent: ClaimIntent; done: Promise<void> } | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const store = new SessionStore(ctx.storage);
    this.store = store;
    this.publisher = new Publisher(store, async (tenantId, update) => tenantApi(env, tenantId).publish(update));
    this.timers = new Timers(ctx.storage, () =>
      this.publisher.hasPending() ? Date.now() + PUBLISH_RETRY_MS : undefined,
    );
    this.transcript = new Transcript(store, (sessionId, seqs) => this.afterAppend(sessionId, seqs));
    this.followers = new Followers(
      (query) => this.followPage(query),
      async (tokenId, sessionKey) => {
        const identity = store.identity();
        return identity ? tenantApi(env, identity.tenantId).followWith(tokenId, sessionKey) : false;
      },
    );
    this.runs = new RunLifecycle({
      store,
      runs: store.runs,
      timers: this.timers,
      events: new RunEvents(
        (event) => this.emit(event),
        (runId) => {
          const run = store.runs.get(runId);
          return run ? runContext(run, this.transcript.entry()?.sessionId) : undefined;
        },
      ),
      executor: new RunExecutor({
        env,
        store,
        runnerSecret: async (tenantId) => tenantApi(env, tenantId).runnerSecret(),
        storeSecret: async (tenantId, id) => tenantApi(env, tenantId).resolveSecret(id),
      }),
      appendMessages: (messages, update) => this.transcript.append(messages, update).map((m) => m.seq),
      updateEntry: (update) => this.transcript.updateEntry(update),
      sessionId: () => this.transcript.entry()?.sessionId,
      waitUntil: (promise) => ctx.waitUntil(promise),
      onSettled: (runId) => {
        if (!this.spawns.settled(runId)) this.flows.runSettled(runId);
      },
    });
    this.outbox = new Outbox({
      store: store.deliveries,
      timers: this.timers,
      logContext: () => ({ tenant: store.identity()?.tenantId, session: store.identity()?.sessionKey }),
      entry: () => this.transcript.entry(),
      tenantConfig: async () => this.tenant().config(),
      signingSecret: async () => this.tenant().runnerSecret(),
      changed: (delivery) =>
        this.emit({
          event: "sessions.changed",
          payload: {
            reason: "delivery",
            deliveryId: delivery.id,
            deliveryStatus: delivery.status,
            deliveryKind: delivery.kind,
          },
        }),
    });
    this.flows = new A2aFlowDriver({
      store: store.flows,
      timers: this.timers,
      runs: this.runs,
      session: (tenantId, key) => sessionApi(env, tenantId, key),
      tenant: (tenantId) => tenantApi(env, tenantId),
      announce: (flow, reply) => this.announceToChannel(flow, reply),
      waitUntil: (promise) => ctx.waitUntil(promise),
    });
    this.spawns = new SpawnDriver({
      store: store.spawns,
      timers: this.timers,
      entry: () => this.transcript.entry(),
      snapshot: (runId) => this.runs.snapshot(runId),
      recentMessages: (limit) => {
        const entry = this.transcript.entry();
        if (!entry) return [];
        const query = { sessionId: entry.sessionId, limit, includeTools: true, maxBytes: SPAWN_RESULT_READ_MAX_BYTES };
        return store.tail(query).messages;
      },
      sendAnnounce: async (key, agentId, announce) => {
        const tenantId = store.identity()!.tenantId;
        return sessionApi(env, tenantId, key).receiveAnnounce({ tenantId, key, agentId }, announce);
      },
      dropAttachments: async () => {
        const identity = store.identity();
        if (identity) await deleteAttachments(env.ATTACHMENTS, `${identity.tenantId}/${identity.sessionKey}/`);
      },
      archiveSelf: async () => {
        this.transcript.updateEntry((entry) => ({ ...entry, archivedAt: Date.now() }));
        await this.publisher.publish("archive");
      },
      deleteSelf: async () => {
        const identity = store.identity();
        const agentId = this.transcript.entry()?.agentId ?? "main";
        if (identity) await this.delete({ tenantId: identity.tenantId, key: identity.sessionKey, agentId });
      },
    });
    this.timerHandlers = {
      "run-release": (runId) => this.runs.release(runId),
      "run-timeout": (runId, now) => this.runs.onTimeout(runId, now),
      "run-watchdog": (runId, now) => this.runs.watchdog(runId, now),
      delivery: (deliveryId, now) => this.outbox.attempt(deliveryId, now),
      flow: (flowId) => this.flows.advance(flowId),
      "spawn-announce": (runId, now) => this.spawns.announce(runId, now),
      "spawn-archive": (runId, now) => this.spawns.archive(runId, now),
    };
    this.recover();
  }

  /**
   * Work a crash or eviction left behind is re-armed on every start: jobs a dead instance was
   * running, deliveries/flows/spawn steps without a timer, unpublished changes, orphaned runs.
   */
  private recover(): void {
    if (!this.store.identity()) return;
    this.timers.recoverLeases();
    this.runs.recover();
    this.outbox.reconcile();
    this.flows.reconcile();
    this.spawns.reconcile();
    if (this.publisher.hasPending()) this.publishInBackground();
  }

  // ── Transcript ──────────────────────────────────────────────────────────

  async append(ref: SessionRef, input: AppendInput): Promise<AppendResult | AppendRejected> {
    await this.adoptPending("write", ref);
    const result = this.transcript.ingest(ref, input);
    // A new session must be listable as soon as its creator hears back; later appends
    // reach the registry in the background so they add no round trip.
    if ("created" in result && result.created) await this.publisher.publish("create");
    return result;
  }

  async inject(ref: SessionRef, message: TranscriptMessage): Promise<AppendResult | AppendRejected> {
    const result = await this.append(ref, { messages: [message] });
    if ("rejected" in result || result.duplicate) return result;
    const appended = result.appended[0]!;
    // Ordered before the message itself, as OpenClaw sends it; the caller answers after both.
    await this.publisher.emit({
      ...injectedChatEvent(ref.agentId, appended.messageId, message),
      afterSeq: appended.seq - 1,
    });
    return result;
  }

  /** One page of another gateway's transcript at its source positions; answers once the tenant's index has it. */
  async importPage(ref: SessionRef, body: ImportBody): Promise<ImportResult | ImportConflict | AppendRejected> {
    await this.adoptPending("write", ref);
    const result = this.transcript.importPage(ref, body);
    if ("rejected" in result) return result;
    if (result.created) await this.publisher.publish("create");
    else if (result.imported === 0) await this.publisher.publish("patch");
    else await this.publisher.flush();
    return result;
  }

  async entry(): Promise<SessionEntry | null> {
    await this.adoptPending("read");
    return this.transcript.entry();
  }

  async read(query: ReadQuery): Promise<(Page & { sessionId: string }) | null> {
    await this.adoptPending("read");
    return this.transcript.read(query);
  }

  /**
   * sessions_wait: returns once the current transcript has a message past `afterSeq` or after
   * `timeoutMs`, with the transcript's last seq (0 while the session does not exist yet).
   */
  async waitForMessages(afterSeq: number, timeoutMs: number): Promise<{ sessionId: string | null; lastSeq: number }> {
    await this.adoptPending("read");
    const before = this.transcript.entry();
    if ((before?.messageCount ?? 0) <= afterSeq) {
      await this.seqWaiters.wait(before?.sessionId ?? "", afterSeq, timeoutMs);
    }
    const after = this.transcript.entry();
    return { sessionId: after?.sessionId ?? null, lastSeq: after?.messageCount ?? 0 };
  }

  async transcripts(): Promise<TranscriptInfo[]> {
    await this.adoptPending("read");
    return this.store.sessionIds();
  }

  async indexSnapshot(): Promise<IndexSnapshot | null> {
    await this.adoptPending("read");
    return this.transcript.indexSnapshot();
  }

  /** SSE follow of this session (the worker forwards the authenticated request here). */
  override async fetch(request: Request): Promise<Response> {
    const query = JSON.parse(request.headers.get(FOLLOW_HEADER) ?? "null") as FollowQuery | null;
    if (!query) return new Response("not found", { status: 404 });
    await this.adoptPending("read");
    const opened = await this.followers.open(query);
    if (opened instanceof Response) return opened;
    if (opened === "revoked")
      return Response.json({ ok: false, error: { type: "unauthorized", message: "Unauthorized" } }, { status: 401 });
    return Response.json(
      { ok: false, error: { type: "not_found", message: `Session not found: ${query.sessionKey}` } },
      { status: 404 },
    );
  }

  endFollows(tokenId: string): number {
    return this.followers.endToken(tokenId);
  }

  // ── Session control ─────────────────────────────────────────────────────

  async reset(ref: SessionRef, reason: "new" | "reset" = "reset"): Promise<SessionEntry> {
    await this.adoptPending("write", ref);
    this.runs.abortAll();
    const entry = this.transcript.reset(ref);
    await this.publisher.publish(reason);
    return entry;
  }

  async patch(ref: SessionRef, patch: SessionPatch, options: PatchOptions = {}): Promise<SessionEntry> {
    await this.adoptPending("write", ref);
    const { created, entry } = this.transcript.patch(ref, patch, options.parentSessionKey);
    await this.publisher.publish(options.reason ?? (created ? "create" : "patch"));
    return entry;
  }

  /** Removes the session and its transcripts (active runs are stopped first). */
  async delete(ref: SessionRef): Promise<boolean> {
    // Not adopted first: a pending session is removed where it lives (removeSession), and
    // no claim may slip in while this object is wiped.
    const deletion = this.deleteEverything(ref);
    this.adopting = { intent: "write", done: deletion.then(ignore, ignore) };
    try {
      return await deletion;
    } finally {
      this.adopting = null;
    }
  }

  private async deleteEverything(ref: SessionRef): Promise<boolean> {
    const existed = this.transcript.entry() !== null;
    this.runs.abortAll();
    this.followers.closeAll();
    this.timers.forget();
    await this.store.wipe();
    const indexed = await this.tenant(ref.tenantId).removeSession(ref.key, Date.now());
    await deleteAttachments(this.env.ATTACHMENTS, `${ref.tenantId}/${ref.key}/`);
    return existed || indexed;
  }

  // ── Runs ────────────────────────────────────────────────────────────────

  /** Starts (or dedupes) a run; the session is created when absent. */
  async startRun(
    ref: SessionRef,
    request: StartRun,
    seed?: SessionSeed,
    policy?: SendPolicyCheck,
  ): Promise<StartAnswer & { sessionId: string; messageId?: string }> {
    // Before anything reads the entry (its send policy); an abort arriving meanwhile is
    // caught as an unarrived run (abortRun's `expected`).
    await this.adoptPending("write", ref);
    if (this.sendBlocked(ref, policy)) {
      return { runId: request.runId, status: "blocked", sessionId: this.transcript.entry()?.sessionId ?? "" };
    }
    const now = Date.now();
    const { resetFirst: _resetFirst, waitMs, ...run } = request;
    const stored = this.store.runs.get(request.runId) !== undefined;
    const fresh = !stored && this.pendingAborts.begin(request.runId);
    if (!stored && !fresh) {
      // The same run id again while its start is on its way: in flight, as OpenClaw dedupes.
      const inFlight: StartResult = { runId: request.runId, status: "in_flight" };
      return { ...(await this.waitIfAsked(inFlight, waitMs)), sessionId: this.transcript.entry()?.sessionId ?? "" };
    }
    // Until the run is stored, an abort for it (or for the session's runs) is remembered.
    let abortedWith: AbortReason | null = null;
    try {
      if (request.resetFirst && fresh) await this.reset(ref, request.resetFirst);
      const created = this.store.transaction(() => this.transcript.ensureEntry(ref, seed, now));
      // A new session reaches the registry before its run starts, so the run's events follow its creation.
      if (created) await this.publisher.publish("create");
    } finally {
      if (fresh) abortedWith = this.pendingAborts.finish(request.runId);
    }
    const entry = this.transcript.entry()!;
    const runner = runnerWithSessionModel(run.runner, entry);
    const engineStart = { ...run, runner, tenantId: ref.tenantId, agentId: ref.agentId };
    const result = abortedWith
      ? this.runs.startAborted(engineStart, abortedWith, Date.now())
      : this.runs.start(engineStart, now);
    const sessionId = entry.sessionId;
    const messageId =
      result.status === "started" && result.userSeq !== undefined
        ? this.store.messageId(sessionId, result.userSeq)
        : undefined;
    return { ...(await this.waitIfAsked(result, waitMs)), sessionId, ...(messageId ? { messageId } : {}) };
  }

  /** `waitMs` of a start request: the run's outcome in the same answer. */
  private async waitIfAsked(started: StartResult, waitMs: number | undefined): Promise<StartAnswer> {
    if (!waitMs || (started.status !== "started" && started.status !== "in_flight")) return started;
    return { ...started, outcome: await this.waitRun(started.runId, waitMs) };
  }

  releaseRun(runId: string): void {
    this.runs.release(runId);
  }

  runSnapshot(runId: string): RunSnapshot | null {
    return this.runs.snapshot(runId);
  }

  /**
   * agent.wait: the outcome, or status "pending" after `timeoutMs` (the run goes on). An
   * ended run is answered only once its events reached the tenant, so clients see the
   * events before the answer (openclaw-node stops listening at the final response).
   */
  async waitRun(runId: string, timeoutMs: number): Promise<RunSnapshot | null> {
    // The tenant records a run before its start reaches this object: a wait may come first.
    const snapshot = await this.runs.wait(runId, timeoutMs, { untilKnown: true });
    if (snapshot && snapshot.status !== "pending") await this.publisher.flush().catch(() => undefined);
    return snapshot;
  }

  /** A run as the HTTP API shows it; with `waitMs`, once it ended or after that long (the run goes on). */
  async runView(runId: string, waitMs = 0): Promise<RunView | null> {
    if (waitMs > 0) await this.runs.wait(runId, waitMs);
    const run = this.store.runs.get(runId);
    return run ? toRunView(run) : null;
  }

  /** Runs newest first, before `beforeSeq`; null when the session does not exist. */
  async runPage(limit: number, beforeSeq?: number): Promise<{ runs: RunView[]; nextSeq?: number } | null> {
    await this.adoptPending("read");
    if (!this.transcript.entry()) return null;
    const rows = this.store.runs.page(limit + 1, beforeSeq);
    const page = rows.slice(0, limit);
    return {
      runs: page.map((row) => toRunView(row.run, { maxTextChars: RUN_LIST_TEXT_CHARS })),
      ...(rows.length > limit ? { nextSeq: page.at(-1)!.seq } : {}),
    };
  }

  /**
   * Aborts a run by id, or the active one. `expected`: run ids the tenant recorded for this
   * session a moment ago, so an abort that arrives before a run's start still aborts it.
   */
  abortRun(runId?: string, reason: AbortReason = "rpc", expected: string[] = []): AbortOutcome {
    if (runId && this.pendingAborts.abort(runId, reason)) return { abortedRunId: runId, status: "aborted" };
    const outcome = this.runs.abort(runId, reason);
    if (outcome.abortedRunId) return outcome;
    const pending = runId ? [] : this.pendingAborts.abortAll(reason);
    const candidates = runId ? expected.filter((id) => id === runId) : expected;
    const unarrived = this.pendingAborts.abortUnarrived(candidates, reason, (id) => this.isStoredRun(id));
    const aborted = pending[0] ?? unarrived[0];
    return aborted ? { abortedRunId: aborted, status: "aborted" } : outcome;
  }

  /** The /stop command (and chat.abort without a run id): aborts every unfinished run. */
  stopRuns(reason: AbortReason = "stop", expected: string[] = []): string[] {
    return [
      ...this.runs.abortAll(reason),
      ...this.pendingAborts.abortAll(reason),
      ...this.pendingAborts.abortUnarrived(expected, reason, (id) => this.isStoredRun(id)),
    ];
  }

  private isStoredRun(runId: string): boolean {
    return this.store.runs.get(runId) !== undefined;
  }

  /** Webhook callbacks: streamed text, extra messages, completion (idempotent). */
  runCallback(runId: string, callback: RunCallback): { ok: boolean; state: string | null } {
    return this.runs.callback(runId, callback);
  }

  // ── Agent-to-agent (sessions_send) and deliveries ───────────────────────

  /**
   * The target side of sessions_send: the primary run and its durable follow-up flow
   * (ping-pong, announce), created together so neither can exist without the other.
   */
  async sendInterSession(
    ref: SessionRef,
    request: StartRun,
    flow: FlowRequest,
    policy: SendPolicyCheck,
  ): Promise<StartAnswer> {
    await this.adoptPending("write", ref);
    if (this.sendBlocked(ref, policy)) return { runId: request.runId, status: "blocked" };
    const now = Date.now();
    const { waitMs, ...run } = request;
    const created = this.store.transaction(() => this.transcript.ensureEntry(ref, undefined, now));
    const result = this.store.transaction(() => this.flows.startPrimary(ref, run, flow, now));
    if (created) await this.publisher.publish("create");
    return this.waitIfAsked(result, waitMs);
  }

  /** The outbox of this session, newest first. */
  deliveries(limit = 100): Delivery[] {
    return this.store.deliveries.list(Math.min(MAX_DELIVERIES_LISTED, Math.max(1, limit)));
  }

  flow(id: string): Flow | null {
    return this.store.flows.get(id) ?? null;
  }

  // ── Sub-agents (sessions_spawn) ─────────────────────────────────────────

  /**
   * Creates a sub-agent session with its lineage, starts its run and records whom to
   * announce to, all in one commit (a failed spawn leaves no half-made child).
   */
  async startSpawn(ref: SessionRef, lineage: SpawnLineage, request: StartRun, spec: SpawnSpec): Promise<StartResult> {
    await this.adoptPending("write", ref);
    const now = Date.now();
    const result = this.store.transaction(() => {
      this.transcript.recordLineage(ref, lineage, now);
      this.store.spawns.insert(request.runId, spec, now);
      return this.runs.start({ ...request, tenantId: ref.tenantId, agentId: ref.agentId }, now);
    });
    await this.publisher.publish("create");
    return result;
  }

  /**
   * A sub-agent's announce arriving at its requester: appended as a message with provenance
   * and run (queued behind a busy run), and delivered to this session's channel. Idempotent
   * by run id. False when this session does not exist (the child then tries the next one up).
   */
  async receiveAnnounce(ref: SessionRef, announce: AnnounceDelivery): Promise<boolean> {
    await this.adoptPending("read", ref);
    const entry = this.transcript.entry();
    if (!entry) return false;
    this.store.transaction(() => acceptAnnounce({ runs: this.runs, outbox: this.outbox }, ref, entry, announce));
    await this.tenant(ref.tenantId).recordRun(announce.runId, ref.key);
    return true;
  }

  /**
   * An object without an entry may stand for a session the tenant created alone
   * (pending-sessions.ts): it asks the tenant once per use and adopts that entry, so the
   * session keeps the sessionId its creator was told. Concurrent callers share one claim.
   */
  private async adoptPending(intent: ClaimIntent, ref?: SessionRef): Promise<void> {
    for (;;) {
      if (this.transcript.entry()) return;
      const current = this.adopting;
      if (current) {
        await current.done;
        // A write may create the session, so it needs a write claim of its own (which holds
        // off a create racing it); a read's claim does not.
        if (current.intent === "write" || intent === "read") return;
        continue;
      }
      const owner = ref ?? parseSessionObjectName(this.ctx.id.name);
      if (!owner) return;
      const claim = async () => {
        const pending = await this.tenant(owner.tenantId).claimPendingSession(owner.key, intent);
        if (pending) this.transcript.adopt(owner.tenantId, owner.key, pending.entry, pending.version);
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

  // ── Timers ──────────────────────────────────────────────────────────────

  override async alarm(): Promise<void> {
    await this.timers.fire(this.timerHandlers);
    if (this.publisher.hasPending()) await this.publisher.publish().catch(() => undefined);
    await this.timers.arm();
  }

  // ── Internals ───────────────────────────────────────────────────────────

  /** The send policy, applied by this object to its own entry (no extra round trip for the caller). */
  private sendBlocked(ref: SessionRef, policy: SendPolicyCheck | undefined): boolean {
    return (
      policy !== undefined &&
      sendBlocked({ sessionKey: ref.key, entry: this.transcript.entry(), config: policy.config })
    );
  }

  /** The announce reply of a sessions_send flow goes to this (target) session's channel. */
  private announceToChannel(flow: Flow, reply: string): void {
    const entry = this.transcript.entry();
    const target = entry ? deliveryTargetOf(entry) : null;
    if (!target) {
      console.log(`announce of flow ${flow.id} has no channel route; kept in the transcript only`);
      return;
    }
    this.outbox.enqueue({ idempotencyKey: `${flow.id}:announce`, kind: "a2a-announce", target, message: reply });
  }

  /** Messages were committed: SSE followers get them now, the tenant in the background. */
  private afterAppend(sessionId: string, seqs: number[]): void {
    // Still the commit's turn: the retry alarm is written with the messages, so a crash
    // before the publish below cannot leave them undelivered.
    void this.timers.arm();
    this.seqWaiters.appended(sessionId, seqs.at(-1)!);
    if (this.followers.size > 0) this.followers.appended(this.transcript.appendedRecords(sessionId, seqs));
    this.publishInBackground();
  }

  private followPage(query: FollowQuery): Page | null {
    return this.transcript.read({
      direction: "tail",
      limit: query.limit ?? FOLLOW_DEFAULT_LIMIT,
      includeTools: query.includeTools,
      maxBytes: FOLLOW_PAGE_MAX_BYTES,
      ...(query.cursorSeq !== undefined ? { cursorSeq: query.cursorSeq } : {}),
    });
  }

  private emit(event: Omit<LiveEvent, "afterSeq">): void {
    const afterSeq = this.transcript.entry()?.messageCount ?? 0;
    this.ctx.waitUntil(this.publisher.emit({ ...event, afterSeq }).catch(() => this.timers.arm()));
  }

  private tenant(tenantId = this.store.identity()?.tenantId ?? "") {
    return tenantApi(this.env, tenantId);
  }

  /**
   * Publishes in the background (appends): the caller does not wait for the tenant. The
   * retry alarm is armed first, so an eviction mid-publish still delivers the change.
   */
  private publishInBackground(): void {
    this.ctx.waitUntil(
      this.publisher.publish().catch((error) => {
        console.error("SessionObject: publish failed; the alarm retries it", error);
        return this.timers.arm();
      }),
    );
  }
}

function ignore(): void {}
