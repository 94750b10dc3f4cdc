import type { AbortOutcome, RunCallback, StartResult, StartRun } from "../contracts/session-api";
import { withRoute } from "../model/entry";
import { fitMessage, oversized } from "../model/message-limits";
import {
  type HeldUserMessage,
  type RunInput,
  type RunRecord,
  type RunSnapshot,
  type RunState,
  TERMINAL_STATES,
} from "../model/run-types";
import { logWarning } from "../observability/log";
import { type SessionEntry, type TranscriptMessage, transcriptMessageSchema } from "../protocol/session";
import type { TimerPort } from "../timers/timers";
import { Waiters } from "../util/waiters";
import type { RunEvents } from "./run-events";
import { type RunExecutor, runDeadline } from "./run-executor";
import { type AbortReason, type RunContext, runContext } from "./run-payloads";
import { existingRunResult, toSnapshot } from "./run-snapshot";
import type { RunStore } from "./run-store";
import { contentText, RunnerError, type RunnerReply } from "./runners/runner";
import type { TranscriptPort } from "./transcript-port";

/** A run as the lifecycle starts it: the session object adds whose session it is. */
export type EngineStart = StartRun & { agentId: string; tenantId: string };

/** What the lifecycle needs from its session object. */
export type LifecycleHost = {
  transcript: TranscriptPort;
  runs: RunStore;
  timers: TimerPort & { clearRef(ref: string): void };
  events: RunEvents;
  /** Runs one attempt (the object hands in its RunExecutor; Node tests a scripted model). */
  executor: Pick<RunExecutor, "execute">;
  /** Commits entry + transcript changes and returns appended seqs (the object's one append path). */
  appendMessages(messages: TranscriptMessage[], update: (entry: SessionEntry) => SessionEntry): number[];
  updateEntry(update: (entry: SessionEntry) => SessionEntry): void;
  /** The session's current transcript id (named in lifecycle events). */
  sessionId(): string | undefined;
  waitUntil(promise: Promise<unknown>): void;
  /** The watchdog's period: WATCHDOG_MS, or the RUN_WATCHDOG_MS var (the e2e tests shorten it to see a crashed run resumed sooner). */
  watchdogMs?: number;
  /**
   * A run's reply was committed (inside that transaction): what must commit with it is queued
   * here (a chat turn's reply to its chat, a hook run's delivery).
   */
  onReply?(run: RunRecord, text: string): void;
  /** A run reached a terminal state (flows and spawns waiting on it continue). */
  onSettled(runId: string): void;
};

/** A held run starts by itself after this long if its release never comes (the caller died). */
export const RUN_RELEASE_FALLBACK_MS = 3_000;
/** A running run is checked this often; a run whose worker vanished is retried or failed. */
export const WATCHDOG_MS = 60_000;
/** Attempts before an interrupted run is given up as an error. */
const MAX_RUN_ATTEMPTS = 3;

/**
 * The durable run lifecycle of one session: queued → running → ok | error | timeout |
 * aborted, one active run, FIFO after it. Everything that must survive eviction is in
 * SQLite; in memory are only the live runner (abort controller) and waiters.
 */
export class RunLifecycle {
  private readonly controllers = new Map<string, AbortController>();
  private readonly waiters = new Waiters<string, RunSnapshot | null>();
  /**
   * Held runs released in the transaction under way whose timer is kept for the start that
   * follows (markNextRunning turns it into the watchdog: one row updated, not one cleared and one set).
   */
  private readonly releasing = new Set<string>();

  constructor(private readonly host: LifecycleHost) {}

  private get watchdogMs(): number {
    return this.host.watchdogMs ?? WATCHDOG_MS;
  }

  // ── Starting ────────────────────────────────────────────────────────────

  start(request: EngineStart, now = Date.now()): StartResult {
    const { runs } = this.host;
    const existing = runs.get(request.runId);
    if (existing) return existingRunResult(toSnapshot(existing));
    const tooLarge = request.userMessage
      ? oversized([request.userMessage], now, this.host.transcript.messageBytes(), request.maxSessionBytes)
      : null;
    if (tooLarge) {
      const { rejected: _rejected, ...sizes } = tooLarge;
      return { runId: request.runId, status: "too_large", ...sizes };
    }
    const input = { ...request.input, runner: request.runner, agentId: request.agentId, tenantId: request.tenantId };
    if (request.hold) {
      // Admitted only: the user message waits with the run until it is released (its text is
      // the run's input message, so it is not stored twice).
      const held = request.userMessage && heldForm(request.userMessage, input.message);
      this.host.transcript.transaction(() => {
        runs.insert(request.runId, { ...input, ...(held ? { heldUserMessage: held } : {}) }, now, undefined);
        // The hold's fallback is the run's watchdog timer, due sooner: a queued run with a
        // watchdog is a held one, and its start re-arms the same row (issue 48: a row fewer).
        this.host.timers.set("run-watchdog", request.runId, now + RUN_RELEASE_FALLBACK_MS);
      });
      return { runId: request.runId, status: "started", queued: true };
    }
    let userSeq: number | undefined;
    let queued = false;
    const next = this.host.transcript.transaction(() => {
      // Runs held before this one go first: the transcript keeps the order of admission.
      for (const heldRunId of this.heldRunIds()) this.releaseNow(heldRunId);
      if (request.userMessage) userSeq = this.appendUserMessage(request.userMessage, request.input);
      runs.insert(request.runId, input, now, userSeq);
      queued = runs.active() !== undefined;
      return this.markNextRunning(now);
    });
    if (next) this.launch(next, now);
    return { runId: request.runId, status: "started", ...(userSeq !== undefined ? { userSeq } : {}), queued };
  }

  /**
   * Lets a held run go: its user message is appended now and it runs in its turn. Nothing
   * when it was already released, or ended (an abort came first: nothing was appended).
   */
  release(runId: string, now = Date.now()): void {
    const next = this.host.transcript.transaction(() => {
      this.releaseNow(runId);
      return this.markNextRunning(now);
    });
    if (next) this.launch(next, now);
  }

  /** Appends a held run's user message and lifts the hold (inside the caller's transaction). */
  private releaseNow(runId: string): void {
    const { runs, timers } = this.host;
    const run = runs.get(runId);
    if (run?.state !== "queued" || !this.isHeld(runId)) return;
    // A hold made before the watchdog carried it (an object updated meanwhile) has its own row.
    if (timers.has("run-release", runId)) timers.clear("run-release", runId);
    // Started right after (nothing runs, it is next): markNextRunning re-arms the row; else it goes.
    if (runs.active() === undefined && runs.nextQueued()?.runId === runId) this.releasing.add(runId);
    else timers.clear("run-watchdog", runId);
    const held = run.input.heldUserMessage;
    if (held) {
      const message = held.content === undefined ? { ...held, content: run.input.message } : held;
      runs.setUserSeq(runId, this.appendUserMessage(message as TranscriptMessage, run.input));
    }
  }

  private firstHeld(): RunRecord | undefined {
    const [first] = this.heldRunIds();
    return first ? this.host.runs.get(first) : undefined;
  }

  /** Runs admitted with a hold and not released yet, oldest first. */
  private heldRunIds(): string[] {
    const { runs, timers } = this.host;
    const held = new Set([...timers.refs("run-watchdog"), ...timers.refs("run-release")]);
    return held.size === 0
      ? []
      : runs
          .unfinished()
          .filter((run) => run.state === "queued" && held.has(run.runId) && !this.releasing.has(run.runId))
          .map((run) => run.runId);
  }

  /** A queued run with a timer is held (its watchdog, or the release timer of an older hold). */
  private isHeld(runId: string): boolean {
    const { timers } = this.host;
    return !this.releasing.has(runId) && (timers.has("run-watchdog", runId) || timers.has("run-release", runId));
  }

  private appendUserMessage(message: TranscriptMessage, input: Pick<RunInput, "replyTarget" | "routeFields">): number {
    const { replyTarget, routeFields } = input;
    return this.host.appendMessages([message], (entry) =>
      withRoute({ ...entry, systemSent: true }, replyTarget, routeFields),
    )[0]!;
  }

  /** Starts the next queued run when none is running. */
  pump(now = Date.now()): void {
    const next = this.host.transcript.transaction(() => this.markNextRunning(now));
    if (next) this.launch(next, now);
  }

  /**
   * Marks the next queued run running (inside the caller's transaction, so the entry written by
   * an append just before and its `running` status are one write); the run to launch, if any.
   */
  private markNextRunning(now: number): RunRecord | undefined {
    const { runs, timers } = this.host;
    const released = new Set(this.releasing);
    this.releasing.clear();
    if (runs.active()) return undefined;
    const next = runs.nextQueued();
    // A held run keeps its place: the runs behind it wait for its release (FIFO).
    if (!next || (!released.has(next.runId) && this.isHeld(next.runId))) return undefined;
    runs.markRunning(next.runId, now);
    const timeoutMs = (next.input.timeoutSeconds ?? 0) * 1000;
    if (timeoutMs > 0) timers.set("run-timeout", next.runId, now + timeoutMs);
    timers.set("run-watchdog", next.runId, now + this.watchdogMs);
    this.host.updateEntry((entry) => ({
      ...entry,
      status: "running",
      startedAt: now,
      updatedAt: Math.max(now, entry.updatedAt),
    }));
    return next;
  }

  /** Runs a run marked running (after its transaction committed). */
  private launch(next: RunRecord, now: number): void {
    this.host.events.started(next.runId, now, this.context(next));
    this.host.waitUntil(this.execute(this.host.runs.get(next.runId)!));
  }

  private async execute(run: RunRecord): Promise<void> {
    const controller = new AbortController();
    this.controllers.set(run.runId, controller);
    this.host.events.restartText(run.runId);
    try {
      const outcome = await this.host.executor.execute(run, {
        signal: controller.signal,
        onText: (text) => this.host.events.text(run.runId, text),
        // Nothing of an aborted run is written (the abort's events already went out).
        append: (messages) => (controller.signal.aborted ? [] : this.host.appendMessages(messages, (entry) => entry)),
        transaction: (fn) => this.host.transcript.transaction(fn),
        toolEvents: this.host.events.toolEvents(run.runId),
      });
      if (controller.signal.aborted) return;
      if (outcome.kind === "deferred") {
        this.host.runs.markDeferred(run.runId); // the host completes it by callback
        return;
      }
      this.complete(run.runId, outcome);
    } catch (error) {
      if (controller.signal.aborted) return;
      const message =
        error instanceof RunnerError ? error.message : `runner failed: ${(error as Error)?.message ?? String(error)}`;
      this.fail(run.runId, "error", message);
    } finally {
      this.controllers.delete(run.runId);
    }
  }

  // ── Ending ──────────────────────────────────────────────────────────────

  /** Appends the reply and ends the run `ok`. False when the run had already ended. */
  complete(runId: string, reply: RunnerReply, now = Date.now()): boolean {
    const run = this.host.runs.get(runId);
    if (run?.state !== "running") return false;
    const toolMessages = validMessages(reply.toolMessages ?? []);
    // A tool loop's reply message carries its last model call's usage; the run sums them all.
    const usage = reply.messageUsage ?? reply.usage;
    // A reply over the per-message limit is kept cut, with a marker (fitMessage): the run
    // happened, and its row must fit the platform's row limit (its text is the run's reply too).
    const { message: assistant, cutBytes } = fitMessage({
      role: "assistant",
      content: [{ type: "text", text: reply.text }],
      ...(reply.api ? { api: reply.api } : {}),
      ...(reply.provider ? { provider: reply.provider } : {}),
      ...(reply.model ? { model: reply.model } : {}),
      ...(usage ? { usage: { input: usage.input, output: usage.output, totalTokens: usage.totalTokens } } : {}),
      stopReason: reply.stopReason ?? "stop",
      ...(reply.responseId ? { responseId: reply.responseId } : {}),
      timestamp: now,
    });
    if (cutBytes > 0) {
      logWarning("message.cut", { tenant: run.input.tenantId, session: run.sessionKey, run: runId, bytes: cutBytes });
    }
    const replyText = cutBytes > 0 ? contentText(assistant.content) : reply.text;
    const clientStop = reply.clientStop;
    this.host.transcript.transaction(() => {
      // A stop at client tool calls has its step in the transcript already: no reply message.
      let replySeq: number;
      if (clientStop) {
        this.host.updateEntry((entry) => endEntry(entry, run, "ok", now));
        replySeq = clientStop.stepSeq;
      } else {
        replySeq = this.host
          .appendMessages([...toolMessages, assistant], (entry) => endEntry(entry, run, "ok", now))
          .at(-1)!;
      }
      this.host.runs.finish(runId, {
        state: "ok",
        at: now,
        stopReason: assistant.stopReason!,
        ...(reply.usage ? { usage: reply.usage } : {}),
        reply: replyText,
        replySeq,
        ...(clientStop ? { clientToolCalls: clientStop.calls } : {}),
      });
      this.host.timers.clearRef(runId);
      if (!clientStop) this.host.onReply?.(run, reply.text);
    });
    this.host.events.completed(runId, assistant, reply, now);
    this.settle(runId);
    return true;
  }

  /**
   * Ends a run as error, timeout or aborted. For aborts and timeouts the text streamed so
   * far is kept as a partial (OpenClaw's openclawAbort marker); a failed runner's half
   * answer is never appended.
   */
  fail(
    runId: string,
    state: "error" | "timeout" | "aborted",
    message: string,
    now = Date.now(),
    abortReason: AbortReason = "rpc",
  ): boolean {
    const run = this.host.runs.get(runId);
    if (!run || (run.state !== "running" && run.state !== "queued")) return false;
    this.controllers.get(runId)?.abort();
    const partial = state === "error" ? "" : this.host.events.latestText(runId);
    this.host.events.cancel(runId);
    this.host.transcript.transaction(() => {
      let replySeq: number | undefined;
      if (partial && run.state === "running") {
        const aborted: TranscriptMessage = {
          role: "assistant",
          content: [{ type: "text", text: partial }],
          provider: "openclaw",
          model: "gateway-injected",
          api: "openai-responses",
          stopReason: "aborted",
          openclawAbort: { aborted: true, origin: state, runId },
          timestamp: now,
        };
        replySeq = this.host.appendMessages([aborted], (entry) => endEntry(entry, run, state, now))[0];
      } else if (run.state === "running") {
        this.host.updateEntry((entry) => endEntry(entry, run, state, now));
      }
      this.host.runs.finish(runId, {
        state,
        at: now,
        stopReason: state === "error" ? "error" : state === "aborted" ? abortReason : "aborted",
        error: message,
        ...(replySeq !== undefined ? { replySeq } : {}),
      });
      this.host.timers.clearRef(runId);
    });
    if (state !== "aborted") {
      logWarning("run.failed", {
        tenant: run.input.tenantId,
        session: run.sessionKey,
        run: runId,
        agent: run.input.agentId,
        runner: run.input.runner?.type,
        status: state,
        error: message,
      });
    }
    // A queued run that never started ends with the same events (OpenClaw: aborted, lifecycle end).
    this.host.events.failed(runId, state, message, partial, now, {
      stopReason: abortReason,
      context: this.context(run),
      started: run.state === "running",
    });
    this.settle(runId);
    return true;
  }

  /** Progress reported by a deferred (webhook) run: streamed text and extra messages. */
  progress(runId: string, update: { text?: string; messages?: TranscriptMessage[] }): void {
    const run = this.host.runs.get(runId);
    if (run?.state !== "running") return;
    if (update.messages && update.messages.length > 0) {
      const valid = validMessages(update.messages);
      this.host.transcript.transaction(() => this.host.appendMessages(valid, (entry) => entry));
    }
    if (update.text !== undefined) this.host.events.text(runId, update.text);
    this.host.timers.set("run-watchdog", runId, Date.now() + this.watchdogMs);
  }

  /** A webhook host's callback: streamed text and messages, or the completion (idempotent). */
  callback(runId: string, callback: RunCallback): { ok: boolean; state: string | null } {
    const run = this.host.runs.get(runId);
    if (!run) return { ok: false, state: null };
    if (callback.kind === "complete") {
      const ok = callback.error
        ? this.fail(runId, "error", callback.error)
        : this.complete(runId, {
            kind: "reply",
            text: callback.reply ?? "",
            ...(callback.usage ? { usage: callback.usage } : {}),
            ...(callback.toolMessages ? { toolMessages: callback.toolMessages } : {}),
            stopReason: "stop",
            provider: "webhook",
            api: "webhook",
          });
      return { ok, state: this.host.runs.get(runId)?.state ?? null };
    }
    if (run.state !== "running") return { ok: false, state: run.state };
    this.progress(runId, callback);
    return { ok: true, state: run.state };
  }

  /** Aborts the given run, or the active one. */
  abort(runId?: string, reason: AbortReason = "rpc"): AbortOutcome {
    const { runs } = this.host;
    // Without a run id: the running run, else one just sent and still held.
    const target = runId ? runs.get(runId) : (runs.active() ?? this.firstHeld());
    if (!target || TERMINAL_STATES.includes(target.state)) return { abortedRunId: null, status: "no-active-run" };
    this.fail(target.runId, "aborted", "aborted", Date.now(), reason);
    return { abortedRunId: target.runId, status: "aborted" };
  }

  /** Aborts every unfinished run (the /stop command: `stop`; chat.abort without a run id: `rpc`). */
  abortAll(reason: AbortReason = "stop"): string[] {
    return this.host.runs
      .unfinished()
      .filter((run) => this.fail(run.runId, "aborted", "aborted", Date.now(), reason))
      .map((run) => run.runId);
  }

  /**
   * A run aborted before it reached this session (chat.abort right after chat.send): it is
   * recorded as aborted without appending anything, and clients see it end.
   */
  startAborted(request: EngineStart, reason: AbortReason, now = Date.now()): StartResult {
    const { runs } = this.host;
    const existing = runs.get(request.runId);
    if (existing) return existingRunResult(toSnapshot(existing));
    const input = { ...request.input, runner: request.runner, agentId: request.agentId, tenantId: request.tenantId };
    this.host.transcript.transaction(() => {
      runs.insert(request.runId, input, now, undefined);
      runs.finish(request.runId, { state: "aborted", at: now, stopReason: reason, error: "aborted" });
    });
    this.host.events.failed(request.runId, "aborted", "aborted", "", now, {
      stopReason: reason,
      context: { agentId: request.agentId, sessionId: this.host.sessionId() },
    });
    this.settle(request.runId);
    return { runId: request.runId, status: "aborted", summary: "aborted", stopReason: reason, endedAt: now };
  }

  // ── Waiting ─────────────────────────────────────────────────────────────

  snapshot(runId: string): RunSnapshot | null {
    const run = this.host.runs.get(runId);
    return run ? toSnapshot(run) : null;
  }

  /**
   * Resolves when the run ends, or with status "pending" after `timeoutMs` (the run goes on).
   * `untilKnown`: a run not here yet may still come (its start is on its way); null only
   * after `timeoutMs`.
   */
  wait(runId: string, timeoutMs: number, options: { untilKnown?: boolean } = {}): Promise<RunSnapshot | null> {
    const current = this.snapshot(runId);
    if (current ? current.status !== "pending" : !options.untilKnown) return Promise.resolve(current);
    return this.waiters.wait(runId, timeoutMs, () => {
      const latest = this.snapshot(runId) ?? current;
      return latest ? { ...latest, status: "pending" } : null;
    });
  }

  // ── Timers ──────────────────────────────────────────────────────────────

  /** The run's `timeout` timer fired. */
  onTimeout(runId: string, now = Date.now()): void {
    const seconds = this.host.runs.get(runId)?.input.timeoutSeconds ?? 0;
    this.fail(runId, "timeout", `run timed out after ${seconds}s`, now);
  }

  /** A live run is re-armed; an orphaned one (object evicted) is retried or failed. */
  watchdog(runId: string, now = Date.now()): void {
    const { runs, timers } = this.host;
    const run = runs.get(runId);
    // A held run whose release never came (its caller died): it starts by itself.
    if (run?.state === "queued") {
      this.release(runId, now);
      return;
    }
    if (run?.state !== "running") return;
    if (this.controllers.has(runId) || (run.deferred && now < runDeadline(run))) {
      timers.set("run-watchdog", runId, now + this.watchdogMs);
      return;
    }
    if (run.deferred) {
      this.fail(runId, "timeout", "webhook run did not complete before its deadline", now);
      return;
    }
    if (run.attempts >= MAX_RUN_ATTEMPTS) {
      this.fail(runId, "error", `run interrupted ${run.attempts} times; giving up`, now);
      return;
    }
    this.host.transcript.transaction(() => {
      runs.markRunning(runId, now);
      timers.set("run-watchdog", runId, now + this.watchdogMs);
    });
    this.host.waitUntil(this.execute(runs.get(runId)!));
  }

  /**
   * After a restart: a run left running with no live runner gets its watchdog due now (a
   * runner call that was cut off is retried; one a webhook host took waits for its callbacks),
   * and queued runs start if nothing runs.
   */
  recover(now = Date.now()): void {
    const active = this.host.runs.active();
    if (active && !this.controllers.has(active.runId) && !active.deferred) {
      this.host.timers.set("run-watchdog", active.runId, now);
    }
    if (!active) this.pump(now);
  }

  private context(run: RunRecord): RunContext {
    return runContext(run, this.host.sessionId());
  }

  private settle(runId: string): void {
    this.host.events.forget(runId);
    const snapshot = this.snapshot(runId);
    if (snapshot) this.waiters.wake(runId, snapshot);
    this.host.onSettled(runId);
    this.pump();
  }
}

function validMessages(messages: TranscriptMessage[]): TranscriptMessage[] {
  return messages.flatMap((m) => {
    const parsed = transcriptMessageSchema.safeParse(m);
    return parsed.success ? [parsed.data] : [];
  });
}

function endEntry(entry: SessionEntry, run: RunRecord, state: RunState, now: number): SessionEntry {
  const status = state === "ok" ? "done" : state === "timeout" ? "timeout" : state === "aborted" ? "killed" : "failed";
  const startedAt = run.startedAt ?? now;
  return {
    ...entry,
    status,
    endedAt: now,
    runtimeMs: now - startedAt,
    abortedLastRun: state === "aborted",
    updatedAt: Math.max(now, entry.updatedAt),
  };
}

/** A held user message as stored: without its text when that is the run's input message. */
function heldForm(message: TranscriptMessage, inputMessage: string | undefined): HeldUserMessage {
  if (message.content !== inputMessage) return message;
  const { content: _content, ...rest } = message;
  return rest;
}
