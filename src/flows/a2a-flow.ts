import type { StartResult } from "../contracts/session-api";
import type { RunnerConfig } from "../protocol/config";
import type { TranscriptMessage } from "../protocol/session";
import type { RunSnapshot } from "../runs/run-types";
import {
  type A2aSessions,
  ANNOUNCE_MESSAGE,
  announcePrompt,
  endsPingPong,
  isSilentAnnounce,
  replyStepPrompt,
} from "./a2a-prompts";
import type { Flow, FlowStore } from "./flow-store";

/** A run of a flow step, in the target (this object) or the requester (another object). */
export type StepRun = {
  side: "requester" | "target";
  runId: string;
  message: string;
  extraSystemPrompt: string;
  userMessage?: TranscriptMessage;
};

export type FlowHost = {
  flows(): FlowStore;
  /** Starts a run in one side's session (deduped by runId, so a resumed step never runs twice). */
  startStep(flow: Flow, step: StepRun, runner: RunnerConfig): Promise<StartResult>;
  /** The step run's outcome: waits up to `waitMs`, null when unknown. */
  awaitStep(flow: Flow, side: "requester" | "target", runId: string, waitMs: number): Promise<RunSnapshot | null>;
  /** Posts the announce reply to the target's channel through the outbox. */
  announce(flow: Flow, reply: string): void;
  /** Re-arms the flow's safety timer so an eviction mid-step resumes it. */
  armTimer(flowId: string, dueAt: number): void;
  clearTimer(flowId: string): void;
};

/** How long one advance waits for a step run before yielding to the timer. */
const STEP_WAIT_MS = 20_000;
/** The safety timer: if nothing advanced the flow by then, the alarm does. */
const FLOW_TIMER_MS = 30_000;
/** Retry delay after a step failed to reach the other session. */
const STEP_RETRY_MS = 1_000;

/**
 * OpenClaw's sessions_send follow-up (primary reply → ping-pong → announce) as a durable
 * state machine. Every step is idempotent (deterministic run ids, state saved after each
 * step), so a resumed flow continues exactly once from where it stopped.
 */
export class A2aFlowDriver {
  private readonly running = new Set<string>();

  constructor(private readonly host: FlowHost) {}

  /** After a wake-up: continue every unfinished flow (each step is idempotent). */
  resumeAll(): Promise<void>[] {
    return this.host
      .flows()
      .unfinished()
      .map((flow) => this.advance(flow.id));
  }

  /** Advances a flow as far as it can go now. Concurrent calls for one flow collapse. */
  async advance(flowId: string, now = () => Date.now()): Promise<void> {
    if (this.running.has(flowId)) return;
    this.running.add(flowId);
    try {
      for (;;) {
        const flow = this.host.flows().get(flowId);
        if (!flow || flow.state === "done") {
          this.host.clearTimer(flowId);
          return;
        }
        this.host.armTimer(flowId, now() + FLOW_TIMER_MS);
        let progressed: boolean;
        try {
          progressed = await this.step(flow, now());
        } catch (error) {
          // The other session was unreachable (restarting, evicted): retry soon by timer.
          console.error(`flow ${flowId}: step failed, retrying`, error);
          this.host.armTimer(flowId, now() + STEP_RETRY_MS);
          return;
        }
        if (!progressed) return;
      }
    } finally {
      this.running.delete(flowId);
    }
  }

  /** One step; false when it has to wait for a run. */
  private async step(flow: Flow, now: number): Promise<boolean> {
    const spec = flow.spec;
    const flows = this.host.flows();
    const sessions: A2aSessions = {
      ...(spec.requesterKey ? { requesterKey: spec.requesterKey } : {}),
      ...(spec.requesterChannel ? { requesterChannel: spec.requesterChannel } : {}),
      targetKey: spec.targetDisplayKey,
      ...(spec.targetChannel ? { targetChannel: spec.targetChannel } : {}),
    };
    if (flow.state === "primary") {
      const primary = await this.host.awaitStep(flow, "target", spec.primaryRunId, 0);
      if (!primary || primary.status === "pending") return false;
      if (primary.status !== "ok" || !primary.reply?.trim()) {
        flows.update(flow.id, { state: "done", outcome: "no-reply" }, now);
        return true;
      }
      const pingPong = spec.maxTurns > 0 && spec.requesterKey !== undefined && spec.requesterKey !== spec.targetKey;
      flows.update(
        flow.id,
        {
          state: pingPong ? "pingpong" : "announce",
          turn: pingPong ? 1 : 0,
          round1Reply: primary.reply,
          latestReply: primary.reply,
        },
        now,
      );
      return true;
    }
    if (flow.state === "pingpong") {
      const side = flow.turn % 2 === 1 ? "requester" : "target";
      const runId = `${flow.id}:turn:${flow.turn}`;
      const otherKey = side === "requester" ? spec.targetKey : spec.requesterKey!;
      const otherChannel = side === "requester" ? spec.targetChannel : spec.requesterChannel;
      const runner = side === "requester" ? (spec.requesterRunner ?? spec.targetRunner) : spec.targetRunner;
      const started = await this.host.startStep(
        flow,
        {
          side,
          runId,
          message: flow.latestReply ?? "",
          extraSystemPrompt: replyStepPrompt(sessions, side, flow.turn, spec.maxTurns),
          userMessage: {
            role: "user",
            content: flow.latestReply ?? "",
            provenance: {
              kind: "inter_session",
              sourceSessionKey: otherKey,
              ...(otherChannel ? { sourceChannel: otherChannel } : {}),
              sourceTool: "sessions_send",
            },
          },
        },
        runner,
      );
      const outcome =
        started.status === "started" || started.status === "in_flight"
          ? await this.host.awaitStep(flow, side, runId, STEP_WAIT_MS)
          : null;
      if (outcome?.status === "pending") return false;
      const reply = outcome?.status === "ok" ? outcome.reply : started.status === "ok" ? started.reply : undefined;
      if (endsPingPong(reply) || flow.turn >= spec.maxTurns) {
        flows.update(
          flow.id,
          { state: "announce", ...(reply && !endsPingPong(reply) ? { latestReply: reply } : {}) },
          now,
        );
      } else {
        flows.update(flow.id, { state: "pingpong", turn: flow.turn + 1, latestReply: reply! }, now);
      }
      return true;
    }
    // announce
    const runId = `${flow.id}:announce`;
    const started = await this.host.startStep(
      flow,
      {
        side: "target",
        runId,
        message: ANNOUNCE_MESSAGE,
        extraSystemPrompt: announcePrompt(sessions, spec.originalMessage, flow.round1Reply, flow.latestReply),
        userMessage: {
          role: "user",
          content: ANNOUNCE_MESSAGE,
          provenance: { kind: "internal_system", sourceTool: "sessions_send" },
        },
      },
      spec.targetRunner,
    );
    const outcome =
      started.status === "started" || started.status === "in_flight"
        ? await this.host.awaitStep(flow, "target", runId, STEP_WAIT_MS)
        : null;
    if (outcome?.status === "pending") return false;
    const reply = outcome?.status === "ok" ? outcome.reply : started.status === "ok" ? started.reply : undefined;
    if (!isSilentAnnounce(reply)) this.host.announce(flow, reply!.trim());
    flows.update(flow.id, { state: "done", outcome: isSilentAnnounce(reply) ? "silent" : "announced" }, now);
    return true;
  }
}
