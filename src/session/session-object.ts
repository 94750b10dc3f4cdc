import { DurableObject } from "cloudflare:workers";
import type {
  AbortOutcome,
  AnnounceDelivery,
  AppendInput,
  AppendResult,
  FlowRequest,
  IndexSnapshot,
  InjectResult,
  Page,
  PatchOptions,
  ReadQuery,
  RunCallback,
  RunTap,
  SendPolicyCheck,
  SessionApi,
  SessionRef,
  SpawnLineage,
  StartAnswer,
  StartResult,
  StartRun,
  TranscriptInfo,
  TranscriptSearch,
} from "../contracts/session-api";
import type { ClaimIntent } from "../contracts/tenant-api";
import type { Delivery } from "../model/delivery";
import type { Flow } from "../model/flow";
import type { AppendRejected } from "../model/message-limits";
import type { RunSnapshot } from "../model/run-types";
import type { SpawnSpec } from "../model/spawn";
import type { ImportBody, ImportConflict, ImportResult } from "../protocol/import";
import type { RunView } from "../protocol/runs";
import type { SessionEntry, SessionPatch, SessionSeed, TranscriptMessage } from "../protocol/session";
import { RunGate } from "../runs/run-gate";
import { type AbortReason, injectedChatEvent } from "../runs/run-payloads";
import { acceptAnnounce } from "../spawn/announce-inbox";
import { tenantApi } from "../stubs";
import type { ReplyRoutes } from "./reply-routes";
import { deleteSession } from "./session-deletion";
import { recoverSession, runAlarm, type SessionParts, wireSession } from "./session-parts";
import { startSpawnChild } from "./spawn-start";

/**
 * One session (tenant + canonical key): the RPC surface, each method delegating in a few
 * lines to the modules session-parts.ts wires. The entry and transcript rules live in
 * Transcript, run admission in RunAdmission and runs in RunLifecycle, the pending-session
 * claim and the delete fence in PendingClaim, the timer table behind the one alarm in Timers,
 * delivery to the tenant in Publisher, SSE in Followers, sessions_send follow-ups in
 * A2aFlowDriver, sub-agent announces in SpawnDriver, channel deliveries in Outbox.
 */
export class SessionObject extends DurableObject<Env> implements SessionApi {
  /** Its modules, wired to each other (session-parts.ts). */
  private readonly parts: SessionParts;

  constructor(ctx: DurableObjectState, env: Env, routes: ReplyRoutes) {
    super(ctx, env);
    this.parts = wireSession(ctx, env, this, routes);
    recoverSession(ctx, this.parts);
  }

  // ── Transcript ──────────────────────────────────────────────────────────

  async append(ref: SessionRef, input: AppendInput): Promise<AppendResult | AppendRejected> {
    await this.adoptPending("write", ref);
    const maxSessionBytes = await this.parts.transcriptQuota.admitAppend(ref.tenantId);
    const result = this.parts.transcript.ingest(ref, input, maxSessionBytes);
    // A new session is listable once its creator hears back; later appends reach the index in the background.
    if ("created" in result && result.created) await this.parts.publisher.publish("create");
    return result;
  }

  async inject(ref: SessionRef, message: TranscriptMessage, handOff = false): Promise<InjectResult> {
    const result = await this.append(ref, { messages: [message] });
    if ("rejected" in result || result.duplicate) return result;
    const appended = result.appended[0]!;
    // Ordered before the message, as OpenClaw sends it; the caller answers after both. No hand-off
    // while a run may publish (its update could reach the tenant before this answer).
    const event = { ...injectedChatEvent(ref.agentId, appended.messageId, message), afterSeq: appended.seq - 1 };
    const update = handOff && !this.parts.stores.runs.active() ? this.parts.publisher.handOff(event) : null;
    if (update) return { ...result, update };
    return this.parts.publisher.emit(event, true).then(() => result);
  }

  /** One page of another gateway's transcript at its source positions; answers once the tenant's index has it. */
  async importPage(ref: SessionRef, body: ImportBody): Promise<ImportResult | ImportConflict | AppendRejected> {
    await this.adoptPending("write", ref);
    const maxSessionBytes = await this.parts.transcriptQuota.admitAppend(ref.tenantId);
    const result = this.parts.transcript.importPage(ref, body, maxSessionBytes);
    if ("rejected" in result) return result;
    if (result.created) await this.parts.publisher.publish("create");
    else if (result.imported === 0) await this.parts.publisher.publish("patch");
    else await this.parts.publisher.flush();
    return result;
  }

  async entry(): Promise<SessionEntry | null> {
    await this.adoptPending("read");
    return this.parts.transcript.entry();
  }

  async read(query: ReadQuery): Promise<(Page & { sessionId: string }) | null> {
    await this.adoptPending("read");
    return this.parts.transcript.read(query);
  }

  /** sessions_wait: once a message is past `afterSeq` or after `timeoutMs`, the last seq (0: no session). */
  async waitForMessages(afterSeq: number, timeoutMs: number): Promise<{ sessionId: string | null; lastSeq: number }> {
    await this.adoptPending("read");
    const before = this.parts.transcript.entry();
    if ((before?.messageCount ?? 0) <= afterSeq) {
      await this.parts.seqWaiters.wait({ sessionId: before?.sessionId ?? "", afterSeq }, timeoutMs, () => false);
    }
    const after = this.parts.transcript.entry();
    return { sessionId: after?.sessionId ?? null, lastSeq: after?.messageCount ?? 0 };
  }

  async transcripts(): Promise<TranscriptInfo[]> {
    await this.adoptPending("read");
    return this.parts.store.sessionIds();
  }

  async search(text: string, limit: number, maxBytes: number): Promise<TranscriptSearch> {
    await this.adoptPending("read");
    return this.parts.transcript.search(text, limit, maxBytes);
  }

  async indexSnapshot(): Promise<IndexSnapshot | null> {
    await this.adoptPending("read");
    return this.parts.transcript.indexSnapshot();
  }

  listenerJoined(): void {
    this.parts.publisher.listenerJoined();
  }

  /** SSE follow of this session (the worker forwards the authenticated request here). */
  override async fetch(request: Request): Promise<Response> {
    return this.parts.followers.serve(request, () => this.adoptPending("read"));
  }

  endFollows(tokenId: string): number {
    return this.parts.followers.endToken(tokenId);
  }

  // ── Session control ─────────────────────────────────────────────────────

  async reset(ref: SessionRef, reason: "new" | "reset" = "reset"): Promise<SessionEntry> {
    await this.adoptPending("write", ref);
    this.parts.runs.abortAll();
    const entry = this.parts.transcript.reset(ref);
    await this.parts.publisher.publish(reason);
    return entry;
  }

  async patch(ref: SessionRef, patch: SessionPatch, options: PatchOptions = {}): Promise<SessionEntry> {
    await this.adoptPending("write", ref);
    const { created, entry } = this.parts.transcript.patch(ref, patch, options.parentSessionKey);
    await this.parts.publisher.publish(options.reason ?? (created ? "create" : "patch"));
    return entry;
  }

  /** Removes the session, its transcripts, its index row and its files (session-deletion.ts). */
  delete(ref: SessionRef, options: { tenantDeleting?: boolean } = {}): Promise<boolean> {
    return deleteSession(this.parts, this.env, ref, options);
  }

  // ── Runs ────────────────────────────────────────────────────────────────

  /** Starts (or dedupes) a run; the session is created when absent. `follow`: its live text comes as `tap`. */
  async startRun(
    ref: SessionRef,
    request: StartRun,
    seed?: SessionSeed,
    policy?: SendPolicyCheck,
  ): Promise<StartAnswer & { sessionId: string; messageId?: string; gate?: RunGate; tap?: RunTap }> {
    // The tap opens before the run, so not even its first delta is missed.
    const answer = await this.parts.runTaps.around(request.runId, request.follow, async () => {
      // Before anything reads the entry (its send policy); an abort meanwhile is an unarrived run (abortRun's `expected`).
      await this.parts.claims.adopt("write", ref, request.claimed);
      const maxSessionBytes = await this.parts.transcriptQuota.admitAppend(ref.tenantId);
      return this.parts.admission.start(ref, { ...request, maxSessionBytes }, seed, policy);
    });
    if (!request.hold || answer.status !== "started") return answer;
    return { ...answer, gate: new RunGate(() => this.parts.runs.release(answer.runId)) };
  }

  runSnapshot(runId: string): RunSnapshot | null {
    return this.parts.runs.snapshot(runId);
  }

  /** agent.wait: the outcome, or status "pending" after `timeoutMs` (the run goes on). */
  waitRun(runId: string, timeoutMs: number): Promise<RunSnapshot | null> {
    return this.parts.admission.wait(runId, timeoutMs);
  }

  /** A run as the HTTP API shows it; with `waitMs`, once it ended or after that long (the run goes on). */
  runView(runId: string, waitMs = 0): Promise<RunView | null> {
    return this.parts.admission.view(runId, waitMs);
  }

  /** Runs newest first, before `beforeSeq`; null when the session does not exist. */
  async runPage(limit: number, beforeSeq?: number): Promise<{ runs: RunView[]; nextSeq?: number } | null> {
    await this.adoptPending("read");
    return this.parts.admission.page(limit, beforeSeq);
  }

  /** Aborts a run by id, or the active one; `expected` run ids may not have arrived yet. */
  abortRun(runId?: string, reason: AbortReason = "rpc", expected: string[] = []): AbortOutcome {
    return this.parts.admission.abort(runId, reason, expected);
  }

  /** The /stop command (and chat.abort without a run id): aborts every unfinished run. */
  stopRuns(reason: AbortReason = "stop", expected: string[] = []): string[] {
    return this.parts.admission.stop(reason, expected);
  }

  /** Webhook callbacks: streamed text, extra messages, completion (idempotent). */
  runCallback(runId: string, callback: RunCallback): { ok: boolean; state: string | null } {
    return this.parts.runs.callback(runId, callback);
  }

  // ── Agent-to-agent (sessions_send) and deliveries ───────────────────────

  /** The target side of sessions_send: the primary run and its follow-up flow, created together. */
  async sendInterSession(
    ref: SessionRef,
    request: StartRun,
    flow: FlowRequest,
    policy: SendPolicyCheck,
  ): Promise<StartAnswer> {
    await this.adoptPending("write", ref);
    const maxSessionBytes = await this.parts.transcriptQuota.admitAppend(ref.tenantId);
    return this.parts.admission.startWithFlow(ref, { ...request, maxSessionBytes }, flow, policy);
  }

  /** The outbox of this session, newest first. */
  deliveries(limit = 100): Delivery[] {
    return this.parts.stores.deliveries.list(limit);
  }

  flow(id: string): Flow | null {
    return this.parts.stores.flows.get(id) ?? null;
  }

  // ── Sub-agents (sessions_spawn) ─────────────────────────────────────────

  /** Creates a sub-agent with its lineage and run, and whom to announce to, in one commit (never half-made). */
  async startSpawn(ref: SessionRef, lineage: SpawnLineage, request: StartRun, spec: SpawnSpec): Promise<StartResult> {
    await this.adoptPending("write", ref);
    const maxSessionBytes = await this.parts.transcriptQuota.admitAppend(ref.tenantId);
    const result = startSpawnChild(this.parts, ref, lineage, { ...request, maxSessionBytes }, spec);
    if (result.status === "too_large") return result;
    await this.parts.publisher.publish("create");
    return result;
  }

  /**
   * A sub-agent's announce arriving at its requester: appended as a message with provenance
   * and run (queued behind a busy run), and delivered to this session's channel. Idempotent
   * by run id. False when this session does not exist (the child then tries the next one up).
   */
  async receiveAnnounce(ref: SessionRef, announce: AnnounceDelivery): Promise<boolean> {
    await this.adoptPending("read", ref);
    const entry = this.parts.transcript.entry();
    if (!entry) return false;
    this.parts.store.transaction(() =>
      acceptAnnounce({ runs: this.parts.runs, outbox: this.parts.outbox }, ref, entry, announce),
    );
    await this.tenant(ref.tenantId).recordAnnounceRun(announce.runId, ref.key);
    return true;
  }

  // ── Timers ──────────────────────────────────────────────────────────────

  override async alarm(): Promise<void> {
    await runAlarm(this.parts);
  }

  // ── Internals ───────────────────────────────────────────────────────────

  /** A session the tenant created alone is adopted before first use (pending/pending-sessions.ts). */
  private adoptPending(intent: ClaimIntent, ref?: SessionRef): Promise<void> {
    return this.parts.claims.adopt(intent, ref);
  }

  private tenant(tenantId = this.parts.store.identity()?.tenantId ?? "") {
    return tenantApi(this.env, tenantId);
  }
}
