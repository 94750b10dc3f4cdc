import { DurableObject } from "cloudflare:workers";
import type { Delivery } from "../delivery/delivery-store";
import { deliveryTargetOf } from "../delivery/delivery-target";
import { Outbox } from "../delivery/outbox";
import type { Env } from "../env";
import { A2aFlowDriver, type StepRun } from "../flows/a2a-flow";
import type { Flow, FlowSpec } from "../flows/flow-store";
import { entrySendPolicy } from "../policy/send-policy";
import type { RunnerConfig, SendPolicyConfig } from "../protocol/config";
import type { ImportBody, ImportResult } from "../protocol/import";
import type { SessionEntry, SessionPatch, SessionSeed, TranscriptMessage } from "../protocol/session";
import { type EngineHost, RunEngine, type StartResult, type StartRun } from "../runs/run-engine";
import type { RunSnapshot } from "../runs/run-types";
import { deleteAttachments } from "../spawn/attachments";
import { type AnnounceDelivery, SpawnDriver } from "../spawn/spawn-driver";
import type { SpawnSpec } from "../spawn/spawn-store";
import { dropUndefined } from "../util/encoding";
import { applyAppend, applyPatch, newEntry, resetEntry, withDelivery } from "./entry";
import { FOLLOW_DEFAULT_LIMIT, Followers, type FollowQuery } from "./followers";
import { type ImportConflict, planImport } from "./import-plan";
import { type AppendRejected, oversized } from "./message-limits";
import { type LiveEvent, Publisher } from "./publisher";
import { type SessionRow, toSessionRow } from "./session-row";
import { type Page, type PageQuery, SessionStore } from "./session-store";

/** Retry delay when the tenant could not be reached for an update. */
const PUBLISH_RETRY_MS = 1_000;
/** Retry delay of a timer whose handler failed, doubling up to TIMER_RETRY_MAX_MS. */
const TIMER_RETRY_MS = 5_000;
const TIMER_RETRY_MAX_MS = 5 * 60_000;

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

export { type AppendRejected, MAX_MESSAGE_BYTES } from "./message-limits";

/**
 * One session (tenant + canonical key): its entry, append-only transcript, runs, timers
 * and direct subscribers. A thin shell: SQL lives in SessionStore/RunStore, the run
 * lifecycle in RunEngine, delivery to the tenant in Publisher, decisions in pure modules.
 */
export class SessionObject extends DurableObject<Env> {
  private store: SessionStore;
  private readonly publisher: Publisher;
  private readonly followers: Followers;
  private readonly engine: RunEngine;
  private readonly outbox: Outbox;
  private readonly flows: A2aFlowDriver;
  private readonly spawnDriver: SpawnDriver;
  /** Consecutive failures per timer (in memory: a restart starts over at the short delay). */
  private readonly timerFailures = new Map<string, number>();
  /** When the alarm is known to be set (null = none or unknown: the next schedule writes it). */
  private alarmAt: number | null = null;

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
    this.engine = new RunEngine({
      store: () => this.store,
      runs: () => this.store.runs,
      env: this.env as unknown as EngineHost["env"],
      waitUntil: (promise) => this.ctx.waitUntil(promise),
      emit: (event) => this.emit(event),
      appendMessages: (messages, update) => this.appendRecords(messages, update, Date.now()).map((m) => m.seq),
      updateEntry: (update) => {
        const entry = this.store.loadEntry()?.entry;
        if (entry) this.store.saveEntry(update(entry));
      },
      scheduleAlarm: () => this.scheduleAlarm(),
      runnerSecret: (tenantId) => this.env.TENANTS.getByName(tenantId).runnerSecret(),
      onSettled: (runId) => this.onRunSettled(runId),
    });
    this.outbox = new Outbox({
      deliveries: () => this.store.deliveries,
      entry: () => this.entry(),
      tenantConfig: () => this.tenantOfSelf().config(),
      signingSecret: () => this.tenantOfSelf().runnerSecret(),
      setTimer: (ref, dueAt) => {
        this.store.runs.setTimer("delivery", ref, dueAt);
        void this.scheduleAlarm();
      },
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
      flows: () => this.store.flows,
      startStep: (flow, step, runner) => this.startFlowStep(flow, step, runner),
      awaitStep: (flow, side, runId, waitMs) => this.awaitFlowStep(flow, side, runId, waitMs),
      announce: (flow, reply) => this.announce(flow, reply),
      armTimer: (flowId, dueAt) => {
        this.store.runs.setTimer("flow", flowId, dueAt);
        void this.scheduleAlarm();
      },
      clearTimer: (flowId) => this.store.runs.clearTimer("flow", flowId),
    });
    // Work left behind by an eviction or crash: unpublished changes, orphaned runs.
    if (this.publisher.hasPending()) this.publishInBackground();
    if (this.store.runs.active()) {
      this.engine.recover();
      void this.scheduleAlarm();
    }
    this.spawnDriver = new SpawnDriver({
      spawns: () => this.store.spawns,
      entry: () => this.entry(),
      snapshot: (runId) => this.engine.snapshot(runId),
      recentMessages: (limit) => {
        const entry = this.entry();
        return entry
          ? this.store.tail({ sessionId: entry.sessionId, limit, includeTools: true, maxBytes: 2 * 1024 * 1024 })
              .messages
          : [];
      },
      sendAnnounce: (key, agentId, announce) => {
        const tenantId = this.store.identity()!.tenantId;
        return this.env.SESSIONS.getByName(`${tenantId}/${key}`).receiveAnnounce({ tenantId, key, agentId }, announce);
      },
      setTimer: (kind, runId, dueAt) => {
        this.store.runs.setTimer(kind, runId, dueAt);
        void this.scheduleAlarm();
      },
      dropAttachments: async () => {
        const identity = this.store.identity();
        if (identity) await deleteAttachments(this.env.ATTACHMENTS, `${identity.tenantId}/${identity.sessionKey}/`);
      },
      archiveSelf: async () => {
        const state = this.store.loadEntry();
        if (!state) return;
        this.store.saveEntry({ ...state.entry, archivedAt: Date.now() });
        await this.publisher.publish("archive");
      },
      deleteSelf: async () => {
        const identity = this.store.identity();
        if (identity)
          await this.delete({
            tenantId: identity.tenantId,
            key: identity.sessionKey,
            agentId: this.entry()?.agentId ?? "main",
          });
      },
    });
    for (const resumed of this.flows.resumeAll()) this.ctx.waitUntil(resumed);
  }

  // ── Transcript ──────────────────────────────────────────────────────────

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
    const tooLarge = oversized(input.messages, now);
    if (tooLarge) return tooLarge;
    const result = this.store.transaction(() => {
      const created = this.ensureEntry(ref, input.seed, now);
      const appended = this.appendRecords(
        input.messages,
        (entry) => withDelivery(entry, input.messages, input.seed),
        now,
      );
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
    // A new session must be listable as soon as its creator hears back; later appends
    // reach the registry in the background so they add no round trip.
    if (result.created) await this.publisher.publish("create");
    return result;
  }

  /**
   * The one append path (ingest, runs, injects): inserts, updates the entry, and after the
   * surrounding transaction notifies SSE followers and publishes to the tenant.
   */
  private appendRecords(
    messages: TranscriptMessage[],
    update: (entry: SessionEntry) => SessionEntry,
    now: number,
  ): AppendedMessage[] {
    let entry = this.store.loadEntry()!.entry;
    const appended: AppendedMessage[] = [];
    for (const raw of messages) {
      const message = raw.timestamp === undefined ? { ...raw, timestamp: now } : raw;
      const seq = entry.messageCount + 1;
      const messageId = crypto.randomUUID();
      this.store.insertMessage(
        entry.sessionId,
        { seq, id: messageId, role: message.role, createdAt: now },
        JSON.stringify(message),
      );
      entry = applyAppend(entry, message, seq, now);
      appended.push({ seq, messageId });
    }
    this.store.saveEntry(update(entry));
    const sessionId = entry.sessionId;
    const seqs = appended.map((m) => m.seq);
    queueMicrotask(() => this.afterAppend(sessionId, seqs));
    return appended;
  }

  private afterAppend(sessionId: string, seqs: number[]): void {
    if (seqs.length === 0) return;
    // Still the commit's turn: the retry alarm is written with the messages, so a crash
    // before the publish below cannot leave them undelivered.
    void this.scheduleAlarm();
    if (this.followers.size > 0) {
      const page = this.store.forward({
        sessionId,
        cursorSeq: seqs[0]! - 1,
        limit: seqs.length,
        includeTools: true,
        maxBytes: Number.MAX_SAFE_INTEGER,
      });
      this.followers.appended(page.messages);
    }
    this.publishInBackground();
  }

  /**
   * Writes one page of another gateway's transcript at its source positions (see
   * import-plan.ts); answers once the tenant's index has the result.
   */
  async importPage(ref: SessionRef, body: ImportBody): Promise<ImportResult | ImportConflict | AppendRejected> {
    const now = Date.now();
    const outcome = this.store.transaction(() => {
      const state = this.store.loadEntry();
      const current = state
        ? { entry: state.entry, importedThrough: this.store.importedThrough(state.entry.sessionId) }
        : null;
      const plan = planImport(current, ref, body, now, (seq) =>
        state ? this.store.messageId(state.entry.sessionId, seq) : undefined,
      );
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
      if (seqs.length > 0) queueMicrotask(() => this.afterAppend(sessionId, seqs));
      return { plan, seqs };
    });
    if ("rejected" in outcome) return outcome;
    const { plan } = outcome;
    if (plan.created) await this.publisher.publish("create");
    else if (plan.rows.length === 0) await this.publisher.publish("patch");
    else await this.publisher.flush();
    return {
      sessionKey: plan.entry.key,
      sessionId: plan.entry.sessionId,
      created: plan.created,
      imported: plan.rows.length,
      skipped: plan.skipped,
      lastSeq: plan.entry.messageCount,
    };
  }

  /** The entry, or null when the session does not exist. */
  entry(): SessionEntry | null {
    return this.store.loadEntry()?.entry ?? null;
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
  read(
    query: Omit<PageQuery, "sessionId"> & { sessionId?: string; direction: "tail" | "forward" },
  ): (Page & { sessionId: string }) | null {
    const entry = this.entry();
    if (!entry) return null;
    const sessionId = query.sessionId ?? entry.sessionId;
    if (sessionId !== entry.sessionId && this.store.transcriptStartedAt(sessionId) === undefined) return null;
    const page =
      query.direction === "tail"
        ? this.store.tail({ ...query, sessionId })
        : this.store.forward({ ...query, sessionId });
    return { ...page, sessionId };
  }

  /** Transcripts this key has had (the current one last). */
  transcripts() {
    return this.store.sessionIds();
  }

  // ── Session control ─────────────────────────────────────────────────────

  /** Starts a new transcript under the same key; the old one stays readable by its sessionId. */
  async reset(ref: SessionRef, reason: "new" | "reset" = "reset"): Promise<SessionEntry> {
    const now = Date.now();
    this.engine.abortAll();
    const entry = this.store.transaction(() => {
      const previous = this.store.loadEntry()?.entry;
      const next = previous ? resetEntry(previous, now) : newEntry(ref, undefined, now);
      if (previous) this.store.endTranscript(previous.sessionId, now);
      else this.store.setIdentity(ref.tenantId, ref.key);
      this.store.startTranscript(next.sessionId, now);
      this.store.saveEntry(next);
      return next;
    });
    await this.publisher.publish(reason);
    return entry;
  }

  /** Applies a `sessions.patch` (null clears a field); creates the session when absent, like OpenClaw. */
  async patch(ref: SessionRef, patch: SessionPatch): Promise<SessionEntry> {
    const now = Date.now();
    const { created, entry } = this.store.transaction(() => {
      const created = this.ensureEntry(ref, undefined, now);
      const next = applyPatch(this.store.loadEntry()!.entry, patch, now);
      this.store.saveEntry(next);
      return { created, entry: next };
    });
    await this.publisher.publish(created ? "create" : "patch");
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

  /** Removes the session and its transcripts (active runs are stopped first). */
  async delete(ref: SessionRef): Promise<boolean> {
    const existed = this.store.loadEntry() !== undefined;
    this.engine.abortAll();
    this.followers.closeAll();
    await this.ctx.storage.deleteAll();
    this.alarmAt = null;
    this.store = new SessionStore(this.ctx.storage);
    await this.tenant(ref.tenantId).removeSession(ref.key, Date.now());
    await deleteAttachments(this.env.ATTACHMENTS, `${ref.tenantId}/${ref.key}/`);
    return existed;
  }

  // ── Runs ────────────────────────────────────────────────────────────────

  /** Starts (or dedupes) a run; the session is created when absent. */
  async startRun(
    ref: SessionRef,
    request: Omit<StartRun, "tenantId" | "agentId">,
    seed?: SessionSeed,
    policy?: { config: SendPolicyConfig | null },
  ): Promise<StartResult & { sessionId: string; messageId?: string }> {
    if (this.sendBlocked(ref, policy))
      return { runId: request.runId, status: "blocked", sessionId: this.entry()?.sessionId ?? "" };
    const now = Date.now();
    const created = this.store.transaction(() => this.ensureEntry(ref, seed, now));
    // A new session reaches the registry before its run starts, so the run's events follow its creation.
    if (created) await this.publisher.publish("create");
    const result = this.engine.start({ ...request, tenantId: ref.tenantId, agentId: ref.agentId }, now);
    const sessionId = this.store.loadEntry()!.entry.sessionId;
    const messageId =
      result.status === "started" && result.userSeq !== undefined
        ? this.store.messageId(sessionId, result.userSeq)
        : undefined;
    return { ...result, sessionId, ...(messageId ? { messageId } : {}) };
  }

  /** The send policy, applied by this object to its own entry (no extra round trip for the caller). */
  private sendBlocked(ref: SessionRef, policy: { config: SendPolicyConfig | null } | undefined): boolean {
    if (!policy) return false;
    return (
      entrySendPolicy({
        sessionKey: ref.key,
        entry: this.entry(),
        ...(policy.config ? { config: policy.config } : {}),
      }) === "deny"
    );
  }

  runSnapshot(runId: string): RunSnapshot | null {
    return this.engine.snapshot(runId);
  }

  /**
   * agent.wait: the outcome, or status "timeout" after `timeoutMs` (the run goes on). An
   * ended run is answered only once its events reached the tenant, so clients see the
   * events before the answer (openclaw-node stops listening at the final response).
   */
  async waitRun(runId: string, timeoutMs: number): Promise<RunSnapshot | null> {
    const snapshot = await this.engine.wait(runId, timeoutMs);
    if (snapshot && snapshot.status !== "pending") await this.publisher.flush().catch(() => undefined);
    return snapshot;
  }

  abortRun(runId?: string) {
    return this.engine.abort(runId);
  }

  /** The /stop command: aborts every unfinished run. */
  stopRuns(): string[] {
    return this.engine.abortAll();
  }

  /** Webhook callbacks: streamed text, extra messages, completion (idempotent). */
  runCallback(runId: string, callback: RunCallback): { ok: boolean; state: string | null } {
    const run = this.store.runs.get(runId);
    if (!run) return { ok: false, state: null };
    if (callback.kind === "complete") {
      const ok = callback.error
        ? this.engine.fail(runId, "error", callback.error)
        : this.engine.complete(runId, {
            kind: "reply",
            text: callback.reply ?? "",
            ...(callback.usage ? { usage: callback.usage } : {}),
            ...(callback.toolMessages ? { toolMessages: callback.toolMessages } : {}),
            stopReason: "stop",
            provider: "webhook",
            api: "webhook",
          });
      return { ok, state: this.store.runs.get(runId)?.state ?? null };
    }
    if (run.state !== "running") return { ok: false, state: run.state };
    this.engine.progress(runId, callback);
    return { ok: true, state: run.state };
  }

  // ── Agent-to-agent (sessions_send) ──────────────────────────────────────

  /**
   * The target side of sessions_send: the primary run and its durable follow-up flow
   * (ping-pong, announce), created together so neither can exist without the other.
   */
  async sendInterSession(
    ref: SessionRef,
    request: Omit<StartRun, "tenantId" | "agentId">,
    flow: Omit<FlowSpec, "tenantId" | "primaryRunId" | "targetKey" | "targetAgentId" | "targetRunner">,
    policy: { config: SendPolicyConfig | null },
  ): Promise<StartResult> {
    if (this.sendBlocked(ref, policy)) return { runId: request.runId, status: "blocked" };
    const now = Date.now();
    const created = this.store.transaction(() => this.ensureEntry(ref, undefined, now));
    const result = this.store.transaction(() => {
      const started = this.engine.start({ ...request, tenantId: ref.tenantId, agentId: ref.agentId }, now);
      if (started.status === "started") {
        this.store.flows.insert(
          request.runId,
          {
            ...flow,
            tenantId: ref.tenantId,
            primaryRunId: request.runId,
            targetKey: ref.key,
            targetAgentId: ref.agentId,
            targetRunner: request.runner,
          },
          now,
        );
        this.store.runs.setTimer("flow", request.runId, now + 30_000);
      }
      return started;
    });
    void this.scheduleAlarm();
    if (created) await this.publisher.publish("create");
    return result;
  }

  /** The outbox of this session, newest first. */
  deliveries(limit = 100): Delivery[] {
    return this.store.deliveries.list(Math.min(500, Math.max(1, limit)));
  }

  flow(id: string): Flow | null {
    return this.store.flows.get(id) ?? null;
  }

  // ── Sub-agents (sessions_spawn) ─────────────────────────────────────────

  /**
   * Creates a sub-agent session with its lineage, starts its run and records whom to
   * announce to, all in one commit (a failed spawn leaves no half-made child).
   */
  async startSpawn(
    ref: SessionRef,
    lineage: Pick<
      SessionEntry,
      | "spawnedBy"
      | "spawnDepth"
      | "subagentRole"
      | "subagentControlScope"
      | "sandboxed"
      | "label"
      | "model"
      | "thinkingLevel"
    >,
    request: Omit<StartRun, "tenantId" | "agentId">,
    spec: SpawnSpec,
  ): Promise<StartResult> {
    const now = Date.now();
    const result = this.store.transaction(() => {
      this.ensureEntry(ref, undefined, now);
      this.store.saveEntry(dropUndefined({ ...this.store.loadEntry()!.entry, ...lineage }));
      this.store.spawns.insert(request.runId, spec, now);
      return this.engine.start({ ...request, tenantId: ref.tenantId, agentId: ref.agentId }, now);
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
    const entry = this.entry();
    if (!entry) return false;
    this.engine.start({
      runId: announce.runId,
      tenantId: ref.tenantId,
      agentId: ref.agentId,
      input: {
        message: announce.text,
        origin: "tool",
        provenance: announce.provenance,
        deliver: announce.deliver,
        sandboxed: announce.sandboxed,
      },
      runner: announce.runner,
      userMessage: { role: "user", content: announce.text, provenance: announce.provenance },
    });
    await this.env.TENANTS.getByName(ref.tenantId).recordRun(announce.runId, ref.key);
    const target = deliveryTargetOf(entry) ?? announce.fallbackTarget;
    if (announce.deliver && target) {
      this.outbox.enqueue({
        idempotencyKey: announce.runId,
        kind: "subagent-announce",
        target,
        message: announce.channelText,
      });
    }
    return true;
  }

  private onRunSettled(runId: string): void {
    if (this.spawnDriver.settled(runId)) return;
    const flowId = runId.split(":")[0]!;
    const flow = this.store.flows.get(flowId);
    if (flow && flow.state !== "done") this.ctx.waitUntil(this.flows.advance(flowId));
  }

  private async startFlowStep(flow: Flow, step: StepRun, runner: RunnerConfig): Promise<StartResult> {
    const spec = flow.spec;
    const tenant = this.env.TENANTS.getByName(spec.tenantId);
    const sandboxed = step.side === "target" ? spec.targetSandboxed === true : spec.requesterSandboxed === true;
    const input = {
      message: step.message,
      origin: "tool" as const,
      extraSystemPrompt: step.extraSystemPrompt,
      sandboxed,
      ...(step.userMessage?.provenance ? { provenance: step.userMessage.provenance } : {}),
    };
    const request = {
      runId: step.runId,
      input,
      runner,
      ...(step.userMessage ? { userMessage: step.userMessage } : {}),
    };
    if (step.side === "target") {
      await tenant.recordRun(step.runId, spec.targetKey);
      return this.engine.start({ ...request, tenantId: spec.tenantId, agentId: spec.targetAgentId });
    }
    const key = spec.requesterKey!;
    await tenant.recordRun(step.runId, key);
    return this.env.SESSIONS.getByName(`${spec.tenantId}/${key}`).startRun(
      { tenantId: spec.tenantId, key, agentId: spec.requesterAgentId ?? "main" },
      request,
    );
  }

  private async awaitFlowStep(
    flow: Flow,
    side: "requester" | "target",
    runId: string,
    waitMs: number,
  ): Promise<RunSnapshot | null> {
    if (side === "target") return waitMs > 0 ? this.engine.wait(runId, waitMs) : this.engine.snapshot(runId);
    return this.env.SESSIONS.getByName(`${flow.spec.tenantId}/${flow.spec.requesterKey}`).waitRun(runId, waitMs);
  }

  /** The announce reply goes to this (target) session's channel through the outbox. */
  private announce(flow: Flow, reply: string): void {
    const entry = this.entry();
    const target = entry ? deliveryTargetOf(entry) : null;
    if (!target) {
      console.log(`announce of flow ${flow.id} has no channel route; kept in the transcript only`);
      return;
    }
    this.outbox.enqueue({ idempotencyKey: `${flow.id}:announce`, kind: "a2a-announce", target, message: reply });
  }

  private tenantOfSelf() {
    return this.env.TENANTS.getByName(this.store.identity()?.tenantId ?? "");
  }

  // ── Timers ──────────────────────────────────────────────────────────────

  override async alarm(): Promise<void> {
    this.alarmAt = null;
    const now = Date.now();
    for (const timer of this.store.runs.dueTimers(now)) {
      this.store.runs.deleteTimer(timer.id);
      const name = `${timer.kind}/${timer.ref}`;
      try {
        if (!this.engine.onTimer(timer, now)) {
          if (timer.kind === "delivery") await this.outbox.attempt(timer.ref, now);
          else if (timer.kind === "flow") await this.flows.advance(timer.ref);
          else await this.spawnDriver.onTimer(timer.kind, timer.ref, now);
        }
        this.timerFailures.delete(name);
      } catch (error) {
        // The work is still owed (e.g. the tenant was unreachable): try again, backing off.
        const failures = (this.timerFailures.get(name) ?? 0) + 1;
        this.timerFailures.set(name, failures);
        console.error(`SessionObject: timer ${name} failed (${failures}); retrying`, error);
        const backoff = Math.min(TIMER_RETRY_MAX_MS, TIMER_RETRY_MS * 2 ** (failures - 1));
        if (this.store.loadEntry()) this.store.runs.setTimer(timer.kind, timer.ref, Date.now() + backoff);
        continue;
      }
      // A sub-agent deleted after its announce has nothing left to do.
      if (!this.store.loadEntry()) return;
    }
    if (this.publisher.hasPending()) await this.publisher.publish().catch(() => undefined);
    await this.scheduleAlarm();
  }

  /**
   * The one alarm is set to the earliest timer or publish retry. The due time is computed
   * synchronously, so calling this in a commit's turn writes it with the commit. An alarm
   * already set earlier is kept (it re-schedules when it fires), so a burst of appends
   * costs one alarm write, not one per append.
   */
  private scheduleAlarm(): Promise<void> {
    const due = [
      this.store.runs.nextTimerDue(),
      this.publisher.hasPending() ? Date.now() + PUBLISH_RETRY_MS : undefined,
    ].filter((t): t is number => t !== undefined);
    if (due.length === 0) return Promise.resolve();
    const desired = Math.min(...due);
    if (this.alarmAt !== null && this.alarmAt <= desired && this.alarmAt > Date.now()) return Promise.resolve();
    this.alarmAt = desired;
    return this.ctx.storage.setAlarm(desired).catch((error) => {
      this.alarmAt = null;
      console.error("SessionObject: alarm write failed", error);
    });
  }

  // ── Internals ───────────────────────────────────────────────────────────

  /** Creates the entry (and its first transcript) when absent; returns whether it did. */
  private ensureEntry(ref: SessionRef, seed: SessionSeed | undefined, now: number): boolean {
    if (this.store.loadEntry()) return false;
    const entry = newEntry(ref, seed, now);
    this.store.setIdentity(ref.tenantId, ref.key);
    this.store.startTranscript(entry.sessionId, now);
    this.store.saveEntry(entry);
    return true;
  }

  private emit(event: Omit<LiveEvent, "afterSeq">): void {
    const afterSeq = this.store.loadEntry()?.entry.messageCount ?? 0;
    this.ctx.waitUntil(this.publisher.emit({ ...event, afterSeq }).catch(() => this.scheduleAlarm()));
  }

  private tenant(tenantId: string) {
    return this.env.TENANTS.getByName(tenantId);
  }

  /**
   * Publishes in the background (appends): the caller does not wait for the tenant. The
   * retry alarm is armed first, so an eviction mid-publish still delivers the change.
   */
  private publishInBackground(): void {
    this.ctx.waitUntil(
      this.publisher.publish().catch((error) => {
        console.error("SessionObject: publish failed; the alarm retries it", error);
        return this.scheduleAlarm();
      }),
    );
  }
}

/** Webhook host callbacks for a deferred run. */
export type RunCallback =
  | { kind: "progress"; text?: string; messages?: TranscriptMessage[] }
  | {
      kind: "complete";
      reply?: string;
      error?: string;
      usage?: { input: number; output: number; totalTokens: number };
      toolMessages?: TranscriptMessage[];
    };
