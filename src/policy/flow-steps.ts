import type { RunnerConfig, TenantConfig } from "../protocol/config";
import { runnerOf } from "./agent-config";

/** A step of a sessions_send follow-up flow: a ping-pong turn (1…5) or the announce (no turn). */
export type FlowStep = { agentId: string; turn?: number };

/**
 * The most sessions_send hops a chain of runs may take from the run that began it (a run a door
 * started is hop 0): a model that answers every turn with a sessions_send fans out at most this
 * deep, whatever the run limits allow per minute.
 */
export const A2A_DEPTH_MAX = 5;

/** The refusal of a sessions_send from a run already `depth` hops down a chain, or null. */
export function a2aDepthRefusal(depth: number): string | null {
  return depth >= A2A_DEPTH_MAX
    ? `Agent-to-agent chain too deep: this run is ${depth} sessions_send hops from the run that began it (the limit is ${A2A_DEPTH_MAX}).`
    : null;
}

/** OpenClaw's ping-pong turns: 5 unless configured, 0…5. */
export function clampPingPongTurns(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value)) return 5;
  return Math.max(0, Math.min(5, Math.floor(value)));
}

/**
 * A flow step as the tenant's config is when the step is due, not when the flow was queued: a
 * turn past the ping-pong turns configured now is stopped, and a step that runs uses its agent's
 * runner now (so a config reset or a runner switched away ends a chain at its next step).
 */
export function flowStepDecision(config: TenantConfig, step: FlowStep): { runner: RunnerConfig } | { stopped: string } {
  const turns = clampPingPongTurns(config.session?.agentToAgent?.maxPingPongTurns);
  if (step.turn !== undefined && step.turn > turns)
    return { stopped: `ping-pong turn ${step.turn} is past session.agentToAgent.maxPingPongTurns (${turns})` };
  return { runner: runnerOf(config, step.agentId) };
}
