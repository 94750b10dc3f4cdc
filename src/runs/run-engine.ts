import { mintRunToken } from "../auth/run-token";
import { logWarning } from "../observability/log";
import type { RunnerConfig } from "../protocol/config";
import { type SessionEntry, type TranscriptMessage, transcriptMessageSchema } from "../protocol/session";
import { oversized } from "../session/message-limits";
import type { LiveEvent } from "../session/publisher";
import type { SessionStore } from "../session/session-store";
import { DeltaThrottle, isSilentReply } from "./deltas";
import type { RunStore, Timer } from "./run-store";
import { type RunInput, type RunRecord, type RunSnapshot, type RunState, TERMINAL_STATES } from "./run-types";
import { echoRunner } from "./runners/echo";
import { openaiRunner } from "./runners/openai";
import { type ContextMessage, contentText, type Runner, RunnerError, type RunnerReply } from "./runners/runner";
import { webhookRunner } from "./runners/webhook";

/** How a run is configured when it starts (resolved from tenant config by the caller). */
export type StartRun = {
  runId: string;
  input: RunInput;
  runner: RunnerConfig;
  agentId: string;
  tenantId: string;
  /** Appended as the user message (with provenance) unless the run continues an existing turn. */
  userMessage?: TranscriptMessage;
};

export type StartResult =
  | { runId: string; status: "started"; userSeq?: number; queued: boolean }
  | { runId: string; status: "blocked" }
  | { runId: string; status: "too_large"; bytes: number }
  | { runId: string; status: "in_flight" }
  | { runId: string; status: "ok" | "error" | "timeout" | "aborted"; summary?: string; reply?: string };

/** What the engine needs from its session object. */
export type EngineHost = {
  store(): SessionStore;
  runs(): RunStore;
  env: { RUN_TOKEN_SECRET?: string; ATTACHMENTS?: R2Bucket } & Record<string, unknown>;
  waitUntil(promise: Promise<unknown>): void;
  emit(event: Omit<LiveEvent, "afterSeq">): void;
  /** Commits entry + transcript changes and returns appended seqs (the object's append path). */
  appendMessages(messages: TranscriptMessage[], update: (entry: SessionEntry) => SessionEntry): number[];
  updateEntry(update: (entry: SessionEntry) => SessionEntry): void;
  scheduleAlarm(): Promise<void>;
  runnerSecret(tenantId: string): Promise<string>;
  /** A run reached a terminal state (flows waiting on it continue). */
  onSettled(runId: string): void;
};

/** Messages of transcript handed to a runner as context. */
const CONTEXT_MESSAGES = 40;
/** A running run is checked this often; a run whose worker vanished is retried or failed. */
export const WATCHDOG_MS = 60_000;
/** Attempts before an interrupted run is given up as an error. */
const MAX_ATTEMPTS = 3;
/** Run tokens outlive the run's deadline by this much (late callbacks still authenticate). */
const RUN_TOKEN_GRACE_MS = 10 * 60_000;
/** Without a timeout, a deferred (webhook) run is failed after this long. */
const DEFAULT_DEFERRED_TIMEOUT_MS = 30 * 60_000;

/**
 * The durable run lifecycle of one session: queued → running → ok | error | timeout |
 * aborted, one active run, FIFO after it. Everything that must survive eviction is in
 * SQLite; in memory are only the live runner (abort controller) and waiters.
 */
export class RunEngine {
  private readonly controllers = new Map<string, AbortController>();
  private readonly waiters = new Map<string, Set<(snapshot: RunSnapshot) => void>>();
  private readonly throttles = new Map<string, DeltaThrottle>();
  private readonly seqs = new Map<string, { chat: number; agent: number }>();

  constructor(private readonly host: EngineHost) {}

  // ── Starting ────────────────────────────────────────────────────────────

  start(request: StartRun, now = Date.now()): StartResult {
    const existing = this.host.runs().get(request.runId);
    if (existing) return dedupeResult(existing);
    const tooLarge = request.userMessage ? oversized([request.userMessage], now) : null;
    if (tooLarge) return { runId: request.runId, status: "too_large", bytes: tooLarge.bytes };
    const runs = this.host.runs();
    let userSeq: number | undefined;
    this.host.store().transaction(() => {
      if (request.userMessage) {
        userSeq = this.host.appendMessages([request.userMessage], (entry) => ({ ...entry, systemSent: true }))[0];
      }
      runs.insert(
        request.runId,
        { ...request.input, runner: request.runner, agentId: request.agentId, tenantId: request.tenantId } as RunInput,
        now,
        userSeq,
      );
    });
    const queued = runs.active() !== undefined;
    this.pump();
    return { runId: request.runId, status: "started", ...(userSeq !== undefined ? { userSeq } : {}), queued };
  }

  /** Starts the next queued run when none is running. */
  pump(now = Date.now()): void {
    const runs = this.host.runs();
    if (runs.active()) return;
    const next = runs.nextQueued();
    if (!next) return;
    this.host.store().transaction(() => {
      runs.markRunning(next.runId, now);
      const timeoutMs = (next.input.timeoutSeconds ?? 0) * 1000;
      if (timeoutMs > 0) runs.setTimer("run-timeout", next.runId, now + timeoutMs);
      runs.setTimer("run-watchdog", next.runId, now + WATCHDOG_MS);
      this.host.updateEntry((entry) => ({
        ...entry,
        status: "running",
        startedAt: now,
        updatedAt: Math.max(now, entry.updatedAt),
      }));
    });
    void this.host.scheduleAlarm();
    this.lifecycle(next.runId, "start", now);
    this.host.emit({ event: "sessions.changed", payload: { phase: "start", runId: next.runId } });
    this.host.waitUntil(this.execute(runs.get(next.runId)!));
  }

  // ── Executing ───────────────────────────────────────────────────────────

  private async execute(run: RunRecord): Promise<void> {
    const controller = new AbortController();
    this.controllers.set(run.runId, controller);
    const throttle = new DeltaThrottle((text, delta) => this.delta(run.runId, text, delta));
    this.throttles.set(run.runId, throttle);
    try {
      const outcome = await this.runnerFor(run)({
        runId: run.runId,
        tenantId: runTenant(run),
        sessionKey: run.sessionKey,
        agentId: runAgent(run),
        input: run.input,
        config: runnerConfig(run),
        context: this.context(run),
        deadline: deadline(run),
        signal: controller.signal,
        onText: (text) => throttle.push(text),
        // Runners may read model keys only (MODEL_KEY_*), never the deployment's own secrets.
        secret: (name) =>
          name.startsWith("MODEL_KEY_") && typeof this.host.env[name] === "string"
            ? (this.host.env[name] as string)
            : undefined,
        readAttachment: async (key) => {
          const object = await this.host.env.ATTACHMENTS?.get(key);
          return object ? new Uint8Array(await object.arrayBuffer()) : null;
        },
        ...(await this.webhookExtras(run)),
      });
      if (controller.signal.aborted) return;
      if (outcome.kind === "deferred") {
        this.host.runs().markDeferred(run.runId); // the host completes it by callback
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

  private runnerFor(run: RunRecord): Runner {
    if (run.input.fixedReply !== undefined) {
      const text = run.input.fixedReply;
      return async (request) => {
        request.onText(text);
        return {
          kind: "reply",
          text,
          stopReason: "stop",
          provider: "openclaw",
          model: "gateway-injected",
          api: "openai-responses",
        };
      };
    }
    const config = runnerConfig(run);
    switch (config.type) {
      case "echo":
        return echoRunner;
      case "openai":
        return openaiRunner;
      case "webhook":
        return webhookRunner(() => this.host.runnerSecret(runTenant(run)));
    }
  }

  private async webhookExtras(run: RunRecord): Promise<{ runToken?: string; callbackBase?: string }> {
    if (runnerConfig(run).type !== "webhook") return {};
    const secret = this.host.env.RUN_TOKEN_SECRET;
    if (!secret) throw new RunnerError("RUN_TOKEN_SECRET is not configured; webhook runs need it to mint run tokens");
    const entry = this.host.store().loadEntry()?.entry;
    const runToken = await mintRunToken(secret, {
      tenantId: runTenant(run),
      agentId: runAgent(run),
      sessionKey: run.sessionKey,
      runId: run.runId,
      sandboxed: run.input.sandboxed === true || entry?.sandboxed === true,
      spawnDepth: entry?.spawnDepth ?? 0,
      // Sub-agents get no session tools unless they orchestrate (OpenClaw's default tool policy).
      sessionTools: (entry?.spawnDepth ?? 0) === 0 || entry?.subagentRole === "orchestrator",
      exp: deadline(run) + RUN_TOKEN_GRACE_MS,
    });
    return { runToken, ...(run.input.callbackBase ? { callbackBase: run.input.callbackBase } : {}) };
  }

  /** The transcript up to the run's user message, as chat messages. */
  private context(run: RunRecord): ContextMessage[] {
    const store = this.host.store();
    const entry = store.loadEntry()?.entry;
    if (!entry) return [];
    const page = store.tail({
      sessionId: entry.sessionId,
      ...(run.userSeq !== undefined ? { cursorSeq: run.userSeq + 1 } : {}),
      limit: (() => {
        const config = runnerConfig(run);
        return config.type === "openai" && config.maxContextMessages ? config.maxContextMessages : CONTEXT_MESSAGES;
      })(),
      includeTools: false,
      maxBytes: 2 * 1024 * 1024,
    });
    const context: ContextMessage[] = [];
    for (const record of page.messages) {
      const message = JSON.parse(record.json) as { role: string; content: unknown };
      if (message.role !== "user" && message.role !== "assistant" && message.role !== "system") continue;
      context.push({ role: message.role, content: contentText(message.content) });
    }
    if (run.userSeq === undefined) context.push({ role: "user", content: run.input.message });
    return context;
  }

  // ── Ending ──────────────────────────────────────────────────────────────

  /** Appends the reply and ends the run `ok`. False when the run had already ended. */
  complete(runId: string, reply: RunnerReply, now = Date.now()): boolean {
    const run = this.host.runs().get(runId);
    if (run?.state !== "running") return false;
    const silent = isSilentReply(reply.text);
    // Clients build the text from deltas: the whole reply goes out before the final event,
    // even when the runner never streamed (webhook completions).
    const throttle = this.throttles.get(runId) ?? new DeltaThrottle((text, delta) => this.delta(runId, text, delta));
    if (!silent && reply.text && throttle.latest !== reply.text) throttle.push(reply.text);
    throttle.flush();
    const toolMessages = (reply.toolMessages ?? []).flatMap((m) => {
      const parsed = transcriptMessageSchema.safeParse(m);
      return parsed.success ? [parsed.data] : [];
    });
    const assistant: TranscriptMessage = {
      role: "assistant",
      content: [{ type: "text", text: reply.text }],
      ...(reply.api ? { api: reply.api } : {}),
      ...(reply.provider ? { provider: reply.provider } : {}),
      ...(reply.model ? { model: reply.model } : {}),
      ...(reply.usage
        ? { usage: { input: reply.usage.input, output: reply.usage.output, totalTokens: reply.usage.totalTokens } }
        : {}),
      stopReason: reply.stopReason ?? "stop",
      timestamp: now,
    };
    this.host.store().transaction(() => {
      const seqs = this.host.appendMessages([...toolMessages, assistant], (entry) => endEntry(entry, run, "ok", now));
      this.host.runs().finish(runId, {
        state: "ok",
        at: now,
        stopReason: assistant.stopReason!,
        ...(reply.usage ? { usage: reply.usage } : {}),
        reply: reply.text,
        replySeq: seqs.at(-1)!,
      });
      this.host.runs().clearTimersFor(runId);
    });
    this.lifecycle(runId, "end", now);
    this.chatEvent(runId, {
      state: "final",
      ...(silent ? {} : { message: assistant }),
      stopReason: assistant.stopReason,
      ...(reply.usage ? { usage: reply.usage } : {}),
    });
    this.host.emit({ event: "sessions.changed", payload: { phase: "end", runId } });
    this.settle(runId);
    return true;
  }

  /**
   * Ends a run as error, timeout or aborted. For aborts and timeouts the text streamed so
   * far is kept as a partial (OpenClaw's openclawAbort marker); a failed runner's half
   * answer is never appended.
   */
  fail(runId: string, state: "error" | "timeout" | "aborted", message: string, now = Date.now()): boolean {
    const run = this.host.runs().get(runId);
    if (!run || (run.state !== "running" && run.state !== "queued")) return false;
    this.controllers.get(runId)?.abort();
    const partial = state === "error" ? "" : (this.throttles.get(runId)?.latest ?? "");
    this.throttles.get(runId)?.cancel();
    this.host.store().transaction(() => {
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
      this.host.runs().finish(runId, {
        state,
        at: now,
        stopReason: state === "error" ? "error" : "aborted",
        error: message,
        ...(replySeq !== undefined ? { replySeq } : {}),
      });
      this.host.runs().clearTimersFor(runId);
    });
    if (state !== "aborted") {
      logWarning("run.failed", {
        tenant: runTenant(run),
        session: run.sessionKey,
        run: runId,
        agent: runAgent(run),
        runner: runnerConfig(run)?.type,
        status: state,
        error: message,
      });
    }
    if (run.state === "running") {
      this.lifecycle(runId, "error", now, { error: message });
      this.chatEvent(
        runId,
        state === "aborted"
          ? {
              state: "aborted",
              ...(partial
                ? { message: { role: "assistant", content: [{ type: "text", text: partial }], timestamp: now } }
                : {}),
            }
          : { state: "error", errorMessage: message },
      );
      this.host.emit({ event: "sessions.changed", payload: { phase: "error", runId } });
    }
    this.settle(runId);
    return true;
  }

  /** Progress reported by a deferred (webhook) run: streamed text and extra messages. */
  progress(runId: string, update: { text?: string; messages?: TranscriptMessage[] }): void {
    const run = this.host.runs().get(runId);
    if (run?.state !== "running") return;
    if (update.messages && update.messages.length > 0) {
      const valid = update.messages.flatMap((m) => {
        const parsed = transcriptMessageSchema.safeParse(m);
        return parsed.success ? [parsed.data] : [];
      });
      this.host.store().transaction(() => this.host.appendMessages(valid, (entry) => entry));
    }
    if (update.text !== undefined) {
      let throttle = this.throttles.get(runId);
      if (!throttle) {
        throttle = new DeltaThrottle((text, delta) => this.delta(runId, text, delta));
        this.throttles.set(runId, throttle);
      }
      throttle.push(update.text);
    }
    this.host.runs().setTimer("run-watchdog", runId, Date.now() + WATCHDOG_MS);
  }

  /** Aborts the given run, or the active one. */
  abort(runId?: string): { abortedRunId: string | null; status: "aborted" | "no-active-run" } {
    const runs = this.host.runs();
    const target = runId ? runs.get(runId) : runs.active();
    if (!target || TERMINAL_STATES.includes(target.state)) return { abortedRunId: null, status: "no-active-run" };
    this.fail(target.runId, "aborted", "aborted");
    return { abortedRunId: target.runId, status: "aborted" };
  }

  /** Aborts every unfinished run (the /stop command). */
  abortAll(): string[] {
    return this.host
      .runs()
      .unfinished()
      .filter((run) => this.fail(run.runId, "aborted", "aborted"))
      .map((run) => run.runId);
  }

  // ── Waiting ─────────────────────────────────────────────────────────────

  snapshot(runId: string): RunSnapshot | null {
    const run = this.host.runs().get(runId);
    return run ? toSnapshot(run) : null;
  }

  /** Resolves when the run ends, or with status "timeout" after `timeoutMs` (the run goes on). */
  wait(runId: string, timeoutMs: number): Promise<RunSnapshot | null> {
    const current = this.snapshot(runId);
    if (current?.status !== "pending") return Promise.resolve(current);
    return new Promise((resolve) => {
      const waiters = this.waiters.get(runId) ?? new Set();
      const done = (snapshot: RunSnapshot) => {
        clearTimeout(timer);
        waiters.delete(done);
        resolve(snapshot);
      };
      const timer = setTimeout(() => {
        waiters.delete(done);
        // Still queued or running: the caller decides what a wait timeout means.
        resolve({ ...(this.snapshot(runId) ?? current), status: "pending" });
      }, timeoutMs);
      waiters.add(done);
      this.waiters.set(runId, waiters);
    });
  }

  // ── Timers ──────────────────────────────────────────────────────────────

  /** Handles one due timer of the run kinds; false when the kind is not the engine's. */
  onTimer(timer: Timer, now = Date.now()): boolean {
    if (timer.kind === "run-timeout") {
      const run = this.host.runs().get(timer.ref);
      const seconds = run?.input.timeoutSeconds ?? 0;
      this.fail(timer.ref, "timeout", `run timed out after ${seconds}s`, now);
      return true;
    }
    if (timer.kind === "run-watchdog") {
      this.watchdog(timer.ref, now);
      return true;
    }
    return false;
  }

  /** A live run is re-armed; an orphaned one (object evicted) is retried or failed. */
  private watchdog(runId: string, now: number): void {
    const run = this.host.runs().get(runId);
    if (run?.state !== "running") return;
    if (this.controllers.has(runId) || (run.deferred && now < deadline(run))) {
      this.host.runs().setTimer("run-watchdog", runId, now + WATCHDOG_MS);
      return;
    }
    if (run.deferred) {
      this.fail(runId, "timeout", "webhook run did not complete before its deadline", now);
      return;
    }
    if (run.attempts >= MAX_ATTEMPTS) {
      this.fail(runId, "error", `run interrupted ${run.attempts} times; giving up`, now);
      return;
    }
    this.host.store().transaction(() => {
      this.host.runs().markRunning(runId, now);
      this.host.runs().setTimer("run-watchdog", runId, now + WATCHDOG_MS);
    });
    this.host.waitUntil(this.execute(this.host.runs().get(runId)!));
  }

  /** After a restart: runs left running with no live runner get their watchdog due now. */
  recover(now = Date.now()): void {
    const active = this.host.runs().active();
    // A run whose runner call was cut off is retried; one a webhook host took (202) waits for its callbacks.
    if (active && !this.controllers.has(active.runId) && !active.deferred) {
      this.host.runs().setTimer("run-watchdog", active.runId, now);
    }
  }

  // ── Events ──────────────────────────────────────────────────────────────

  private delta(runId: string, text: string, delta: string): void {
    if (isSilentReply(text, { prefix: true })) return;
    this.agentEvent(runId, "assistant", { text, delta });
    this.chatEvent(runId, {
      state: "delta",
      message: { role: "assistant", content: [{ type: "text", text }], timestamp: Date.now() },
      deltaText: delta,
    });
  }

  private lifecycle(
    runId: string,
    phase: "start" | "end" | "error",
    now: number,
    extra: Record<string, unknown> = {},
  ): void {
    this.agentEvent(
      runId,
      "lifecycle",
      { phase, ...(phase === "start" ? { startedAt: now } : { endedAt: now }), ...extra },
      now,
    );
  }

  private agentEvent(runId: string, stream: string, data: Record<string, unknown>, now = Date.now()): void {
    const seq = this.nextSeq(runId, "agent");
    this.host.emit({ event: "agent", payload: { runId, seq, stream, ts: now, data } });
  }

  private chatEvent(runId: string, payload: Record<string, unknown>): void {
    const seq = this.nextSeq(runId, "chat");
    this.host.emit({ event: "chat", payload: { runId, seq, ...payload } });
  }

  private nextSeq(runId: string, kind: "chat" | "agent"): number {
    const seqs = this.seqs.get(runId) ?? { chat: 0, agent: 0 };
    seqs[kind] += 1;
    this.seqs.set(runId, seqs);
    return seqs[kind];
  }

  private settle(runId: string): void {
    this.throttles.get(runId)?.cancel();
    this.throttles.delete(runId);
    this.seqs.delete(runId);
    const snapshot = this.snapshot(runId);
    if (snapshot) for (const waiter of this.waiters.get(runId) ?? []) waiter(snapshot);
    this.waiters.delete(runId);
    void this.host.scheduleAlarm();
    this.host.onSettled(runId);
    this.pump();
  }
}

function dedupeResult(run: RunRecord): StartResult {
  if (run.state === "queued" || run.state === "running") return { runId: run.runId, status: "in_flight" };
  return {
    runId: run.runId,
    status: run.state as "ok" | "error" | "timeout" | "aborted",
    ...(run.error ? { summary: run.error } : {}),
    ...(run.reply !== undefined ? { reply: run.reply } : {}),
  };
}

export function toSnapshot(run: RunRecord): RunSnapshot {
  const status: RunSnapshot["status"] =
    run.state === "ok"
      ? "ok"
      : run.state === "queued" || run.state === "running"
        ? "pending"
        : run.state === "timeout"
          ? "timeout"
          : "error";
  return {
    runId: run.runId,
    status,
    state: run.state,
    ...(run.startedAt !== undefined ? { startedAt: run.startedAt } : {}),
    ...(run.endedAt !== undefined ? { endedAt: run.endedAt } : {}),
    ...(run.stopReason ? { stopReason: run.stopReason } : {}),
    ...(run.error ? { error: run.error } : {}),
    ...(run.reply !== undefined ? { reply: run.reply } : {}),
    ...(run.usage ? { usage: run.usage } : {}),
  };
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

// The runner config, agent and tenant are stored with the run input so recovery needs no config.
type StoredInput = RunInput & { runner: RunnerConfig; agentId: string; tenantId: string };
const runnerConfig = (run: RunRecord) => (run.input as StoredInput).runner;
const runAgent = (run: RunRecord) => (run.input as StoredInput).agentId;
const runTenant = (run: RunRecord) => (run.input as StoredInput).tenantId;
function deadline(run: RunRecord): number {
  const started = run.startedAt ?? run.createdAt;
  const timeoutMs = (run.input.timeoutSeconds ?? 0) * 1000;
  return started + (timeoutMs > 0 ? timeoutMs : DEFAULT_DEFERRED_TIMEOUT_MS);
}
