import { describe, expect, it } from "vitest";
import { clampPingPongTurns, flowStepDecision } from "../../../src/policy/flow-steps";

describe("flow steps as the config is now", () => {
  const webhook = { type: "webhook", url: "https://agents.example/run" } as const;

  it("a turn past the ping-pong turns configured now is stopped; the announce is not", () => {
    const config = { session: { agentToAgent: { maxPingPongTurns: 1 } } };
    expect(flowStepDecision(config, { agentId: "main", turn: 1 })).toEqual({ runner: { type: "echo" } });
    expect(flowStepDecision(config, { agentId: "main", turn: 2 })).toEqual({
      stopped: "ping-pong turn 2 is past session.agentToAgent.maxPingPongTurns (1)",
    });
    expect(flowStepDecision(config, { agentId: "main" })).toEqual({ runner: { type: "echo" } });
  });

  it("a step runs on its agent's runner now: a config reset ends a chain the old runner drove", () => {
    const before = { agents: { list: [{ id: "main", default: true, runner: webhook }] } };
    expect(flowStepDecision(before, { agentId: "main", turn: 3 })).toEqual({ runner: webhook });
    expect(flowStepDecision({}, { agentId: "main", turn: 3 })).toEqual({ runner: { type: "echo" } });
  });

  it("clamps maxPingPongTurns to 0…5 with OpenClaw's default 5", () => {
    expect(clampPingPongTurns(undefined)).toBe(5);
    expect(clampPingPongTurns(9)).toBe(5);
    expect(clampPingPongTurns(-1)).toBe(0);
  });
});
