import { describe, expect, it } from "vitest";
import { runClaims } from "../../../src/auth/run-token";
import type { TenantContext } from "../../../src/domain/context";
import { A2A_DEPTH_MAX } from "../../../src/policy/flow-steps";
import { sessionsSend } from "../../../src/tools/sessions-send";

/** A tenant whose sessions both exist, recording what sessions_send admits and starts. */
function world() {
  const admitted: string[] = [];
  const started: Array<{ input: { a2aDepth?: number }; flow: { a2aDepth?: number } }> = [];
  const ctx = {
    tenantId: "t1",
    config: { tools: { sessions: { visibility: "all" } } },
    principal: { kind: "operator", scopes: ["operator.write"] },
    tenant: {
      session: async (key: string) => ({ key, sandboxed: false }),
      recordRunStart: async (runId: string, key: string) => {
        admitted.push(runId);
        return { owner: key };
      },
    },
    sessions: () => ({
      sendInterSession: async (_ref: unknown, request: any, flow: any) => {
        started.push({ input: request.input, flow });
        return { runId: request.runId, status: "started", queued: false };
      },
    }),
  } as unknown as TenantContext;
  return { ctx, admitted, started };
}

const requester = (a2aDepth?: number) => ({
  key: "agent:main:main",
  agentId: "main",
  sandboxed: false,
  spawnDepth: 0,
  isSubagent: false,
  ...(a2aDepth !== undefined ? { a2aDepth } : {}),
});

describe("sessions_send: the chain's depth from the run that began it (issue 44)", () => {
  it("carries one more hop into the target's run and its follow-up flow", async () => {
    const w = world();
    const args = { sessionKey: "agent:main:other", message: "hop", timeoutSeconds: 0 };
    expect((await sessionsSend(w.ctx, requester(), args)).details).toMatchObject({ status: "accepted" });
    expect((await sessionsSend(w.ctx, requester(2), args)).details).toMatchObject({ status: "accepted" });
    expect(w.started.map((s) => [s.input.a2aDepth, s.flow.a2aDepth])).toEqual([
      [1, 1],
      [3, 3],
    ]);
  });

  it(`refuses a send from a run ${A2A_DEPTH_MAX} hops down before admitting or starting anything`, async () => {
    const w = world();
    const result = await sessionsSend(w.ctx, requester(A2A_DEPTH_MAX), {
      sessionKey: "agent:main:other",
      message: "one more",
    });
    expect(result.details).toMatchObject({
      status: "error",
      error: `Agent-to-agent chain too deep: this run is ${A2A_DEPTH_MAX} sessions_send hops from the run that began it (the limit is ${A2A_DEPTH_MAX}).`,
    });
    expect(w.admitted).toEqual([]);
    expect(w.started).toEqual([]);
  });

  it("a run's claims (its token and its own tool calls) carry its hops", () => {
    const run = (a2aDepth?: number) => ({
      runId: "r1",
      sessionKey: "agent:main:other",
      input: { tenantId: "t1", agentId: "main", ...(a2aDepth ? { a2aDepth } : {}) } as any,
    });
    expect(runClaims(run(3), null, 1).a2aDepth).toBe(3);
    expect(runClaims(run(), null, 1)).not.toHaveProperty("a2aDepth");
  });
});
