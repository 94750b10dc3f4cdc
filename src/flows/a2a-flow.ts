import type { FlowRequest, SessionApi, SessionRef, StartAnswer, StartResult, StartRun } from "../contracts/session-api";
import type { TenantRunsApi } from "../contracts/tenant-api";
import { deliveryTargetOf } from "../delivery/delivery-target";
import { agentIdOf, DEFAULT_AGENT_ID } from "../keys/session-key";
import type { DeliveryTarget } from "../model/delivery";
import type { Flow, FlowSpec } from "../model/flow";
import type { RunSnapshot } from "../model/run-types";
import type { SessionEntry, TranscriptMessage } from "../protocol/session";
import type { EngineStart } from "../runs/run-lifecycle";
import type { TimerPort } from "../timers/timers";
import {
  type A2aSessions,
  ANNOUNCE_MESSAGE,
  announcePrompt,
  endsPingPong,
  isSilentAnnounce,
  replyStepPrompt,
} from "./a2a-prompts";
import type { FlowStore } from "./flow-store";

/** A run of a flow step, in the target (this object) or the requester (another object). */
type StepRun = {
  side: "requester" | "target";
  runId: string;
  message: string;
  extraSystemPrompt: string;
  userMessage?: TranscriptMessage;
};

/** A step's start: the session's answer, or why it did not start (config now, or a limit). */
type StepStart = StartAnswer | { ended: string };

/** The flow rows as the driver uses them (flow-store.ts keeps them in the session's SQLite). */
export type FlowRows = Pick<FlowStore, "insert" | "get" | "unfinished" | "update">;

/** What the driver needs from the target session object that hosts it. */
export type FlowPorts = {
  store: FlowRows;
  timers: TimerPort;
  /** This (target) session's runs. */
  runs: {
    start(request: EngineStart, now?: number): StartResult;
    wait(runId: string, timeoutMs: number): Promise<RunSnapshot | null>;
    snapshot(runId: string): RunSnapshot | null;
  };
  /** Another session of the tenant (the requester side). */
  session(tenantId: string, key: string): SessionApi;
  tenant(tenantId: string): TenantRunsApi;
  /** Posts the announce reply to this session's channel through the outbox. */
  announce(flow: Flow, reply: string): void;
  waitUntil(promise: Promise<unknown>): void;
};

/** How long one advance waits for a step run before yielding to the timer. */
const STEP_WAIT_MS = 20_000;
/** The safety timer: if nothing advanced the flow by then, the alarm does. */
export const FLOW_TIMER_MS = 30_000;
/** Retry delay after a step failed to reach the other session. */
const STEP_RETRY_MS = 1_000;

/** Step runs are `<flowId>:turn:<n>` and `<flowId>:announce`; the primary run's id is the flow id. */
export function flowIdOfRun(runId: string): string {
  return runId.split(":", 1)[0]!;
}

/**
 * OpenClaw's sessions_send follow-up (primary reply → ping-pong → announce) as a durable
 * state machine. Every step is idempotent (deterministic run ids, state saved after each
 * step), so a resumed flow continues exactly once from where it stopped.
 */
export class A2aFlowDriver {
  private readonly running = new Set<string>();

  constructor(private readonly ports: FlowPorts) {}

  /**
   * The target side of sessions_send: starts the primary run and creates its flow with its
   * safety timer, in the caller's transaction (neither exists without the other).
   */
  startPrimary(ref: SessionRef, request: StartRun, flow: FlowRequest, now = Date.now()): StartResult {
    const started = this.ports.runs.start({ ...request, tenantId: ref.tenantId, agentId: ref.agentId }, now);
    if (started.status !== "started") return started;
    const spec: FlowSpec = {
      ...flow,
      tenantId: ref.tenantId,
      primaryRunId: request.runId,
      targetKey: ref.key,
      targetAgentId: ref.agentId,
    };
    this.ports.store.insert(spec.primaryRunId, spec, now);
    this.ports.timers.set("flow", spec.primaryRunId, now + FLOW_TIMER_MS);
    return started;
  }

  /** A run of this session ended: the flow it belongs to (if any) continues now. */
  runSettled(runId: string): void {
    const flowId = flowIdOfRun(runId);
    const flow = this.ports.store.get(flowId);
    if (flow && flow.state !== "done") this.ports.waitUntil(this.advance(flowId));
  }

  /** After a restart: every unfinished flow without a timer gets one due now (each step is idempotent). */
  reconcile(now = Date.now()): void {
    const armed = this.ports.timers.refs("flow");
    for (const flow of this.ports.store.unfinished()) {
      if (!armed.has(flow.id)) this.ports.timers.set("flow", flow.id, now);
    }
  }

  /** Advances a flow as far as it can go now. Concurrent calls for one flow collapse. */
  async advance(flowId: string, now = () => Date.now()): Promise<void> {
    if (this.running.has(flowId)) return;
    this.running.add(flowId);
    try {
      for (;;) {
        const flow = this.ports.store.get(flowId);
        if (!flow || flow.state === "done") {
          this.ports.timers.clear("flow", flowId);
          return;
        }
        this.ports.timers.set("flow", flowId, now() + FLOW_TIMER_MS);
        let progressed: boolean;
        try {
          progressed = await this.step(flow, now());
        } catch (error) {
          // The other session was unreachable (restarting, evicted): retry soon by timer.
          console.error(`flow ${flowId}: step failed, retrying`, error);
          this.ports.timers.set("flow", flowId, now() + STEP_RETRY_MS);
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
    const flows = this.ports.store;
    const sessions: A2aSessions = {
      ...(spec.requesterKey ? { requesterKey: spec.requesterKey } : {}),
      ...(spec.requesterChannel ? { requesterChannel: spec.requesterChannel } : {}),
      targetKey: spec.targetDisplayKey,
      ...(spec.targetChannel ? { targetChannel: spec.targetChannel } : {}),
    };
    if (flow.state === "primary") {
      const primary = await this.awaitStep(flow, "target", spec.primaryRunId, 0);
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
      const step = await this.runStep(
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
        flow.turn,
      );
      if (step.pending) return false;
      if (step.ended !== undefined) return this.stop(flow, step.ended, now);
      const reply = step.reply;
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
    const step = await this.runStep(flow, {
      side: "target",
      runId,
      message: ANNOUNCE_MESSAGE,
      extraSystemPrompt: announcePrompt(sessions, spec.originalMessage, flow.round1Reply, flow.latestReply),
      userMessage: {
        role: "user",
        content: ANNOUNCE_MESSAGE,
        provenance: { kind: "internal_system", sourceTool: "sessions_send" },
      },
    });
    if (step.pending) return false;
    if (step.ended !== undefined) return this.stop(flow, step.ended, now);
    const reply = step.reply;
    if (!isSilentAnnounce(reply)) this.ports.announce(flow, reply!.trim());
    flows.update(flow.id, { state: "done", outcome: isSilentAnnounce(reply) ? "silent" : "announced" }, now);
    return true;
  }

  /** Ends a flow whose next step was stopped by the config or refused by a limit (never retried). */
  private stop(flow: Flow, reason: string, now: number): true {
    console.log(`flow ${flow.id}: stopped before its next step: ${reason}`);
    this.ports.store.update(flow.id, { state: "done", outcome: "stopped" }, now);
    return true;
  }

  /**
   * Runs a step and waits for it up to STEP_WAIT_MS: pending when it has not ended by then (the
   * flow continues when it settles), else its reply (none when it failed).
   */
  private async runStep(
    flow: Flow,
    step: StepRun,
    turn?: number,
  ): Promise<{ pending: true } | { pending: false; reply?: string; ended?: string }> {
    const started = await this.startStep(flow, step, turn);
    if ("ended" in started) return { pending: false, ended: started.ended };
    const inProgress = started.status === "started" || started.status === "in_flight";
    const outcome = !inProgress
      ? null
      : started.outcome !== undefined
        ? started.outcome
        : await this.awaitStep(flow, step.side, step.runId, STEP_WAIT_MS);
    if (outcome?.status === "pending") return { pending: true };
    const reply = outcome?.status === "ok" ? outcome.reply : started.status === "ok" ? started.reply : undefined;
    return reply === undefined ? { pending: false } : { pending: false, reply };
  }

  /**
   * Starts a step run in one side's session (deduped by runId, so a resumed step never runs
   * twice). Recording the run id and starting go in one round (step run ids are fresh); the
   * other side's session waits for the run in the same call.
   */
  private async startStep(flow: Flow, step: StepRun, turn: number | undefined): Promise<StepStart> {
    const spec = flow.spec;
    const key = step.side === "target" ? spec.targetKey : spec.requesterKey!;
    const agentId =
      step.side === "target" ? spec.targetAgentId : (spec.requesterAgentId ?? agentIdOf(key, DEFAULT_AGENT_ID));
    // Admitted under the tenant's run limits and its config as they are now (agent.wait finds
    // step runs by id like any other run); a step run id admitted before is not counted again.
    const admitted = await this.ports
      .tenant(spec.tenantId)
      .recordFlowStep(step.runId, key, { agentId, ...(turn !== undefined ? { turn } : {}) });
    if ("stopped" in admitted) return { ended: admitted.stopped };
    if ("refused" in admitted) return { ended: admitted.refused.message };
    const sandboxed = step.side === "target" ? spec.targetSandboxed === true : spec.requesterSandboxed === true;
    const request = {
      runId: step.runId,
      runner: admitted.runner,
      input: {
        message: step.message,
        origin: "tool" as const,
        extraSystemPrompt: step.extraSystemPrompt,
        sandboxed,
        ...(spec.a2aDepth ? { a2aDepth: spec.a2aDepth } : {}),
        ...(step.userMessage?.provenance ? { provenance: step.userMessage.provenance } : {}),
      },
      ...(step.userMessage ? { userMessage: step.userMessage } : {}),
    };
    if (step.side === "target") return this.ports.runs.start({ ...request, tenantId: spec.tenantId, agentId });
    const ref = { tenantId: spec.tenantId, key, agentId };
    return this.ports.session(spec.tenantId, key).startRun(ref, { ...request, waitMs: STEP_WAIT_MS });
  }

  /** The step run's outcome: waits up to `waitMs`, null when unknown. */
  private async awaitStep(
    flow: Flow,
    side: "requester" | "target",
    runId: string,
    waitMs: number,
  ): Promise<RunSnapshot | null> {
    if (side === "target") return waitMs > 0 ? this.ports.runs.wait(runId, waitMs) : this.ports.runs.snapshot(runId);
    return this.ports.session(flow.spec.tenantId, flow.spec.requesterKey!).waitRun(runId, waitMs);
  }
}

/** The announce reply of a sessions_send flow goes to the target session's channel, when it has a route. */
export function announceToChannel(
  outbox: {
    enqueue(input: { idempotencyKey: string; kind: string; target: DeliveryTarget; message: string }): unknown;
  },
  entry: SessionEntry | null,
  flow: Flow,
  reply: string,
): void {
  const target = entry ? deliveryTargetOf(entry) : null;
  if (!target) {
    console.log(`announce of flow ${flow.id} has no channel route; kept in the transcript only`);
    return;
  }
  outbox.enqueue({ idempotencyKey: `${flow.id}:announce`, kind: "a2a-announce", target, message: reply });
}
