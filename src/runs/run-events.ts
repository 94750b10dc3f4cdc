import type { LiveEvent } from "../contracts/tenant-api";
import type { TranscriptMessage } from "../protocol/session";
import { DeltaThrottle, isSilentReply } from "./deltas";
import type { RunState, RunUsage } from "./run-types";

export type RunEventSink = (event: Omit<LiveEvent, "afterSeq">) => void;

/**
 * OpenClaw's live events of a run: `agent` (lifecycle, assistant text) and `chat` (delta,
 * final, aborted, error) payloads with their per-run `seq`, deltas throttled to one per
 * DELTA_INTERVAL_MS, and the `sessions.changed` run phases. Nothing here is stored.
 */
export class RunEvents {
  private readonly seqs = new Map<string, { chat: number; agent: number }>();
  private readonly throttles = new Map<string, DeltaThrottle>();

  constructor(private readonly emit: RunEventSink) {}

  started(runId: string, now: number): void {
    this.agent(runId, "lifecycle", { phase: "start", startedAt: now }, now);
    this.emit({ event: "sessions.changed", payload: { reason: "agent.run.started" } });
    this.emit({ event: "sessions.changed", payload: { phase: "start", runId, ts: now } });
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
  completed(runId: string, assistant: TranscriptMessage, reply: { text: string; usage?: RunUsage }, now: number): void {
    const silent = isSilentReply(reply.text);
    const throttle = this.throttle(runId);
    if (!silent && reply.text && throttle.latest !== reply.text) throttle.push(reply.text);
    throttle.flush();
    this.agent(runId, "lifecycle", { phase: "end", endedAt: now }, now);
    this.chat(runId, {
      state: "final",
      ...(silent ? {} : { message: assistant }),
      stopReason: assistant.stopReason,
      ...(reply.usage ? { usage: reply.usage } : {}),
    });
    this.emit({ event: "sessions.changed", payload: { phase: "end", runId, ts: now } });
    this.emit({ event: "sessions.changed", payload: { reason: "agent.input.settled" } });
  }

  /** A running run ended error, timeout or aborted (with the text streamed so far, if any). */
  failed(
    runId: string,
    state: Exclude<RunState, "queued" | "running" | "ok">,
    message: string,
    partial: string,
    now: number,
  ): void {
    this.agent(runId, "lifecycle", { phase: "error", endedAt: now, error: message }, now);
    this.chat(
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
    // An aborted run ends (the real gateway's lifecycle end with aborted:true); others fail.
    this.emit({ event: "sessions.changed", payload: { phase: state === "aborted" ? "end" : "error", runId, ts: now } });
    this.emit({ event: "sessions.changed", payload: { reason: "agent.input.settled" } });
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
    this.agent(runId, "assistant", { text, delta });
    this.chat(runId, {
      state: "delta",
      message: { role: "assistant", content: [{ type: "text", text }], timestamp: Date.now() },
      deltaText: delta,
    });
  }

  private agent(runId: string, stream: string, data: Record<string, unknown>, now = Date.now()): void {
    const seq = this.nextSeq(runId, "agent");
    this.emit({ event: "agent", payload: { runId, seq, stream, ts: now, data } });
  }

  private chat(runId: string, payload: Record<string, unknown>): void {
    const seq = this.nextSeq(runId, "chat");
    this.emit({ event: "chat", payload: { runId, seq, ...payload } });
  }

  private nextSeq(runId: string, kind: "chat" | "agent"): number {
    const seqs = this.seqs.get(runId) ?? { chat: 0, agent: 0 };
    seqs[kind] += 1;
    this.seqs.set(runId, seqs);
    return seqs[kind];
  }
}
