import type { LiveEvent } from "../contracts/tenant-api";
import type { RunState, RunUsage } from "../model/run-types";
import type { TranscriptMessage } from "../protocol/session";
import { DeltaThrottle, deltaPayloads, isSilentReply } from "./deltas";
import { type AbortReason, type RunContext, terminalReply } from "./run-payloads";
import { toolLoopEvents } from "./tool-loop/tool-events";
import type { ToolLoopEvents } from "./tool-loop/tool-loop";

export type RunEventSink = (event: Omit<LiveEvent, "afterSeq">) => void;

/**
 * OpenClaw's live events of a run: `agent` (lifecycle, run_status, assistant text) and `chat`
 * (status, delta, final, aborted, error) payloads. One payload `seq` per run is shared by both:
 * a `chat` event carries the seq of the `agent` event it derives from, as the real gateway
 * does. Deltas are throttled to one per DELTA_INTERVAL_MS; the `sessions.changed` run phases
 * go out with them. Nothing here is stored.
 */
export class RunEvents {
  private readonly seqs = new Map<string, number>();
  private readonly contexts = new Map<string, RunContext>();
  private readonly throttles = new Map<string, DeltaThrottle>();

  constructor(
    private readonly emit: RunEventSink,
    /** A run's context from storage, for runs this instance did not start (resumed, completed by callback). */
    private readonly lookup: (runId: string) => RunContext | undefined = () => undefined,
  ) {}

  /**
   * The run left the queue: lifecycle start, then, when a runner is called (not for a reply
   * fixed in advance), the runner starting and the model it runs.
   */
  started(runId: string, now: number, context: RunContext): void {
    this.contexts.set(runId, { ...context, startedAt: now });
    this.agent(runId, "lifecycle", { phase: "start", startedAt: now }, now);
    const runner = context.provider !== undefined;
    if (runner) this.status(runId, "starting_model", now);
    this.emit({ event: "sessions.changed", payload: { reason: "agent.run.started" } });
    this.emit({ event: "sessions.changed", payload: { phase: "start", runId, ts: now } });
    if (runner) {
      this.agent(runId, "lifecycle", { phase: "model", provider: context.provider, model: context.model }, now);
    }
  }

  /** A tool loop's item, tool and usage events for this run (pending text goes out first). */
  toolEvents(runId: string): ToolLoopEvents {
    return toolLoopEvents((stream, data) => {
      this.throttles.get(runId)?.flush();
      this.agent(runId, stream, data);
    });
  }

  /** The runner's cumulative text so far (becomes throttled deltas). */
  text(runId: string, text: string): void {
    this.throttle(runId).push(text);
  }

  /** The text streamed so far (kept as an aborted partial). */
  latestText(runId: string): string {
    return this.throttles.get(runId)?.latest ?? "";
  }

  /**
   * The run ended `ok`. Clients build the text from deltas, so the whole reply goes out
   * before the final event, even when the runner never streamed (webhook completions).
   */
  completed(
    runId: string,
    assistant: TranscriptMessage,
    reply: { text: string; usage?: RunUsage; streamedText?: string },
    now: number,
  ): void {
    const silent = isSilentReply(reply.text);
    const throttle = this.throttle(runId);
    // A tool loop streamed one text over all its rounds; the final event carries all of it.
    const shown = reply.streamedText ?? reply.text;
    if (!silent && shown && throttle.latest !== shown) throttle.push(shown);
    throttle.flush();
    const startedAt = this.contextOf(runId)?.startedAt;
    const seq = this.agent(
      runId,
      "lifecycle",
      {
        phase: "end",
        ...(startedAt !== undefined ? { startedAt } : {}),
        endedAt: now,
        stopReason: assistant.stopReason ?? "stop",
        aborted: false,
        terminalReply: terminalReply(reply.text),
      },
      now,
    );
    const message = shown === reply.text ? assistant : { ...assistant, content: [{ type: "text", text: shown }] };
    this.chat(runId, seq, {
      state: "final",
      ...(silent ? {} : { message }),
      stopReason: assistant.stopReason,
      ...(reply.usage ? { usage: reply.usage } : {}),
    });
    this.ended(runId, "end", now);
  }

  /**
   * A run ended error, timeout or aborted (with the text streamed so far, if any). A queued
   * run that never started gets the same events (`context` names it, as it has none yet).
   */
  failed(
    runId: string,
    state: Exclude<RunState, "queued" | "running" | "ok">,
    message: string,
    partial: string,
    now: number,
    /** `started`: the run had begun (its input reached the session, so the input settles). */
    options: { stopReason?: AbortReason; context?: RunContext; started?: boolean } = {},
  ): void {
    if (!this.contexts.has(runId) && options.context) this.contexts.set(runId, options.context);
    if (state === "aborted") {
      const stopReason = options.stopReason ?? "rpc";
      const seq = this.agent(
        runId,
        "lifecycle",
        { phase: "end", status: "cancelled", aborted: true, stopReason, endedAt: now },
        now,
      );
      this.chat(runId, seq, {
        state: "aborted",
        stopReason,
        ...(partial
          ? { message: { role: "assistant", content: [{ type: "text", text: partial }], timestamp: now } }
          : {}),
      });
      // An aborted run ends (the real gateway's lifecycle end with aborted:true); one aborted
      // before it started settles no input (nothing of it reached the session).
      this.ended(runId, "end", now, options.started === true);
      return;
    }
    const seq = this.agent(runId, "lifecycle", { phase: "error", endedAt: now, error: message }, now);
    this.chat(runId, seq, { state: "error", errorMessage: message });
    this.ended(runId, "error", now);
  }

  /** A new attempt of the run streams from scratch (a retried runner starts over). */
  restartText(runId: string): void {
    this.throttles.get(runId)?.cancel();
    this.throttles.delete(runId);
  }

  /** Drops pending deltas without sending them (a failed run's half answer). */
  cancel(runId: string): void {
    this.throttles.get(runId)?.cancel();
  }

  /** The run settled: its counters and throttle go. */
  forget(runId: string): void {
    this.throttles.get(runId)?.cancel();
    this.throttles.delete(runId);
    this.seqs.delete(runId);
    this.contexts.delete(runId);
  }

  /** The run's `sessions.changed` phase, then the input settled (the real gateway's order). */
  private ended(runId: string, phase: "end" | "error", now: number, settled = true): void {
    this.emit({ event: "sessions.changed", payload: { phase, runId, ts: now } });
    if (settled) this.emit({ event: "sessions.changed", payload: { reason: "agent.input.settled" } });
  }

  private throttle(runId: string): DeltaThrottle {
    let throttle = this.throttles.get(runId);
    if (!throttle) {
      throttle = new DeltaThrottle((text, delta) => this.delta(runId, text, delta));
      this.throttles.set(runId, throttle);
    }
    return throttle;
  }

  private delta(runId: string, text: string, delta: string): void {
    if (isSilentReply(text, { prefix: true })) return;
    const payloads = deltaPayloads(text, delta, Date.now());
    const seq = this.agent(runId, "assistant", payloads.agent);
    this.chat(runId, seq, payloads.chat);
  }

  /** A status both streams report (OpenClaw's `chat` status frame and `agent` run_status). */
  private status(runId: string, phase: string, now: number): void {
    const seq = this.nextSeq(runId);
    this.chat(runId, seq, { state: "status", phase });
    this.emitAgent(runId, seq, "run_status", { phase }, now);
  }

  private agent(runId: string, stream: string, data: Record<string, unknown>, now = Date.now()): number {
    const seq = this.nextSeq(runId);
    this.emitAgent(runId, seq, stream, data, now);
    return seq;
  }

  private emitAgent(runId: string, seq: number, stream: string, data: Record<string, unknown>, now: number): void {
    const context = this.contextOf(runId);
    this.emit({
      event: "agent",
      payload: {
        runId,
        ...(stream === "lifecycle" && context?.sessionId ? { sessionId: context.sessionId } : {}),
        ...(context ? { agentId: context.agentId } : {}),
        stream,
        data,
        seq,
        ts: now,
        isHeartbeat: false,
      },
    });
  }

  private chat(runId: string, seq: number, payload: Record<string, unknown>): void {
    const context = this.contextOf(runId);
    this.emit({ event: "chat", payload: { runId, ...(context ? { agentId: context.agentId } : {}), seq, ...payload } });
  }

  private contextOf(runId: string): RunContext | undefined {
    return this.contexts.get(runId) ?? this.lookup(runId);
  }

  private nextSeq(runId: string): number {
    const seq = (this.seqs.get(runId) ?? 0) + 1;
    this.seqs.set(runId, seq);
    return seq;
  }
}
