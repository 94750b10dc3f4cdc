import type {
  AbortOutcome,
  FlowRequest,
  SendPolicyCheck,
  SessionRef,
  StartAnswer,
  StartResult,
  StartRun,
} from "../contracts/session-api";
import type { RunSnapshot } from "../model/run-types";
import { runnerWithSessionModel } from "../policy/agent-models";
import { sendBlocked } from "../policy/send-policy";
import type { RunView } from "../protocol/runs";
import type { SessionEntry, SessionSeed } from "../protocol/session";
import { EarlyAborts } from "./early-aborts";
import type { RunLifecycle } from "./run-lifecycle";
import type { AbortReason } from "./run-payloads";
import type { RunStore } from "./run-store";
import { RUN_LIST_TEXT_CHARS, toRunView } from "./run-view";
import type { TranscriptPort } from "./transcript-port";

/** What admission needs from its session object (the pending claim is made before it is asked). */
export type AdmissionHost = {
  transcript: TranscriptPort & { messageId(sessionId: string, seq: number): string };
  runs: RunStore;
  lifecycle: RunLifecycle;
  entry(): SessionEntry | null;
  /** Creates the entry when there is none (inside the caller's transaction); true when it did. */
  ensureEntry(ref: SessionRef, seed: SessionSeed | undefined, now: number): boolean;
  /** `/new` or `/reset` before a run (the object's own reset). */
  reset(ref: SessionRef, reason: "new" | "reset"): Promise<unknown>;
  publish(reason: "create"): Promise<void>;
  /** Waits until what was emitted reached the tenant. */
  flush(): Promise<void>;
  /** Starts the primary run of a sessions_send flow with the flow itself (one commit). */
  startFlow(ref: SessionRef, run: Omit<StartRun, "waitMs">, flow: FlowRequest, now: number): StartResult;
};

/**
 * Run admission of one session: the send policy, dedupe of a run id whose start is on its
 * way, aborts that arrive before their run (EarlyAborts), a new session published before
 * its run starts, `waitMs` answers, and the run views the HTTP API pages through.
 */
export class RunAdmission {
  /** Aborts of runs whose start is still on its way. */
  private readonly earlyAborts = new EarlyAborts();

  constructor(private readonly host: AdmissionHost) {}

  /** Starts (or dedupes) a run; the session is created when absent. */
  async start(
    ref: SessionRef,
    request: StartRun,
    seed?: SessionSeed,
    policy?: SendPolicyCheck,
  ): Promise<StartAnswer & { sessionId: string; messageId?: string }> {
    const { host } = this;
    if (this.blocked(ref, policy)) {
      return { runId: request.runId, status: "blocked", sessionId: host.entry()?.sessionId ?? "" };
    }
    const now = Date.now();
    const { resetFirst: _resetFirst, waitMs, claimed: _claimed, follow: _follow, offeredModels, ...run } = request;
    const stored = this.isStoredRun(request.runId);
    const fresh = !stored && this.earlyAborts.begin(request.runId);
    if (!stored && !fresh) {
      // The same run id again while its start is on its way: in flight, as OpenClaw dedupes.
      const inFlight: StartResult = { runId: request.runId, status: "in_flight" };
      return { ...(await this.waitIfAsked(inFlight, waitMs)), sessionId: host.entry()?.sessionId ?? "" };
    }
    // Until the run is stored, an abort for it (or for the session's runs) is remembered.
    let abortedWith: AbortReason | null = null;
    try {
      if (request.resetFirst && fresh) await host.reset(ref, request.resetFirst);
      const created = host.transcript.transaction(() => host.ensureEntry(ref, seed, now));
      // A new session reaches the session index before its run starts, so the run's events follow its creation.
      if (created) await host.publish("create");
    } finally {
      if (fresh) abortedWith = this.earlyAborts.finish(request.runId);
    }
    const entry = host.entry()!;
    const runner = runnerWithSessionModel(run.runner, entry, offeredModels);
    const engineStart = { ...run, runner, tenantId: ref.tenantId, agentId: ref.agentId };
    const result = abortedWith
      ? host.lifecycle.startAborted(engineStart, abortedWith, Date.now())
      : host.lifecycle.start(engineStart, now);
    const sessionId = entry.sessionId;
    const messageId =
      result.status === "started" && result.userSeq !== undefined
        ? host.transcript.messageId(sessionId, result.userSeq)
        : undefined;
    return { ...(await this.waitIfAsked(result, waitMs)), sessionId, ...(messageId ? { messageId } : {}) };
  }

  /**
   * The target side of sessions_send: the primary run and its durable follow-up flow
   * (ping-pong, announce), created together so neither can exist without the other.
   */
  async startWithFlow(
    ref: SessionRef,
    request: StartRun,
    flow: FlowRequest,
    policy: SendPolicyCheck,
  ): Promise<StartAnswer> {
    const { host } = this;
    if (this.blocked(ref, policy)) return { runId: request.runId, status: "blocked" };
    const now = Date.now();
    const { waitMs, ...run } = request;
    const created = host.transcript.transaction(() => host.ensureEntry(ref, undefined, now));
    const result = host.transcript.transaction(() => host.startFlow(ref, run, flow, now));
    if (created) await host.publish("create");
    return this.waitIfAsked(result, waitMs);
  }

  /**
   * agent.wait: the outcome, or status "pending" after `timeoutMs` (the run goes on). An
   * ended run is answered only once its events reached the tenant, so clients see the
   * events before the answer (openclaw-node stops listening at the final response).
   */
  async wait(runId: string, timeoutMs: number): Promise<RunSnapshot | null> {
    // The tenant records a run before its start reaches this object: a wait may come first.
    const snapshot = await this.host.lifecycle.wait(runId, timeoutMs, { untilKnown: true });
    if (snapshot && snapshot.status !== "pending") await this.host.flush().catch(() => undefined);
    return snapshot;
  }

  /** A run as the HTTP API shows it; with `waitMs`, once it ended or after that long (the run goes on). */
  async view(runId: string, waitMs = 0): Promise<RunView | null> {
    if (waitMs > 0) await this.host.lifecycle.wait(runId, waitMs);
    const run = this.host.runs.get(runId);
    return run ? toRunView(run) : null;
  }

  /** Runs newest first, before `beforeSeq`; null when the session does not exist. */
  page(limit: number, beforeSeq?: number): { runs: RunView[]; nextSeq?: number } | null {
    if (!this.host.entry()) return null;
    const rows = this.host.runs.page(limit + 1, beforeSeq);
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
  abort(runId?: string, reason: AbortReason = "rpc", expected: string[] = []): AbortOutcome {
    if (runId && this.earlyAborts.abort(runId, reason)) return { abortedRunId: runId, status: "aborted" };
    const outcome = this.host.lifecycle.abort(runId, reason);
    if (outcome.abortedRunId) return outcome;
    const starting = runId ? [] : this.earlyAborts.abortAll(reason);
    const candidates = runId ? expected.filter((id) => id === runId) : expected;
    const unarrived = this.earlyAborts.abortUnarrived(candidates, reason, (id) => this.isStoredRun(id));
    const aborted = starting[0] ?? unarrived[0];
    return aborted ? { abortedRunId: aborted, status: "aborted" } : outcome;
  }

  /** The /stop command (and chat.abort without a run id): aborts every unfinished run. */
  stop(reason: AbortReason = "stop", expected: string[] = []): string[] {
    return [
      ...this.host.lifecycle.abortAll(reason),
      ...this.earlyAborts.abortAll(reason),
      ...this.earlyAborts.abortUnarrived(expected, reason, (id) => this.isStoredRun(id)),
    ];
  }

  /** `waitMs` of a start request: the run's outcome in the same answer. */
  private async waitIfAsked(started: StartResult, waitMs: number | undefined): Promise<StartAnswer> {
    if (!waitMs || (started.status !== "started" && started.status !== "in_flight")) return started;
    return { ...started, outcome: await this.wait(started.runId, waitMs) };
  }

  private isStoredRun(runId: string): boolean {
    return this.host.runs.get(runId) !== undefined;
  }

  /** The send policy, applied by this object to its own entry (no extra round trip for the caller). */
  private blocked(ref: SessionRef, policy: SendPolicyCheck | undefined): boolean {
    return (
      policy !== undefined && sendBlocked({ sessionKey: ref.key, entry: this.host.entry(), config: policy.config })
    );
  }
}
