import { describe, expect, it } from "vitest";
import type { SessionApi, StartRun } from "../../../src/contracts/session-api";
import type { TenantContext } from "../../../src/domain/context";
import { gatedRunStarts } from "../../../src/gateway/gated-runs";

// The gateway's chat.send session port: a turn is admitted held (the gateway starts it after its
// answer), a fixed reply is not, and everything else reaches the session as it is.

const REF = { tenantId: "t1", key: "agent:main:main", agentId: "main" };

function gated() {
  const started: StartRun[] = [];
  const session = {
    startRun: async (_ref: unknown, request: StartRun) => {
      started.push(request);
      return { status: "started", runId: request.runId, sessionId: "s1" };
    },
    entry: async () => null,
  } as unknown as SessionApi;
  const ctx = { tenantId: "t1", sessions: () => session } as unknown as TenantContext<never>;
  return { started, ctx: gatedRunStarts(ctx) };
}

describe("gatedRunStarts", () => {
  it("holds a chat.send turn", async () => {
    const { started, ctx } = gated();
    await ctx.sessions(REF.key).startRun(REF, { runId: "r1", input: { message: "hi" } } as unknown as StartRun);
    expect(started[0]?.hold).toBe(true);
  });

  it("starts a fixed reply at once, and passes other calls on", async () => {
    const { started, ctx } = gated();
    const fixed = { runId: "r2", input: { message: "/name x", fixedReply: "✅" } } as unknown as StartRun;
    await ctx.sessions(REF.key).startRun(REF, fixed);
    expect(started[0]).toBe(fixed);
    expect(await ctx.sessions(REF.key).entry()).toBeNull();
    expect(ctx.tenantId).toBe("t1");
  });
});
