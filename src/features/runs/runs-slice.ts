import type { TenantContext } from "../../domain/context";
import { agentRun, agentWait, chatAbort, chatSend, sessionsAbort, waitPayload } from "../../domain/runs";
import { gatedRunStarts } from "../../gateway/gated-runs";
import { methodParamSchemas } from "../../protocol/gateway";
import { AnswerThen, defineMethod, TwoPhase } from "../../registry/method";
import type { Slice } from "../../registry/slice";
import { RUN_OPERATIONS } from "./run-operations";
import { runRoutes } from "./run-routes";
import { runStatusRoutes } from "./run-status-routes";

/**
 * Runs: starting (`chat.send`, `agent`), waiting for and aborting them over the gateway; the
 * run routes and the webhook runners' callbacks over HTTP.
 */
export const runsSlice: Slice = {
  name: "runs",
  methods: {
    "chat.send": defineMethod({
      scope: "operator.write",
      roles: ["index", "runs"],
      params: methodParamSchemas["chat.send"],
      mutatesSession: "sessionKey",
      startsRun: {
        runIdOf: (params) => params.idempotencyKey,
        chatRunOf: (params) => ({ runId: params.idempotencyKey, sessionKey: params.sessionKey }),
      },
      handle: async ({ ctx, params }) => {
        const { payload, gate } = await chatSend(gatedRunStarts(ctx), params);
        if (!gate) return payload;
        // The run starts once this answer is on the wire and the frames that came with the send
        // were read: an abort sent right after it finds the run waiting.
        return new AnswerThen(payload, () => afterReceivedFrames(() => gate[Symbol.dispose]()));
      },
    }),
    agent: defineMethod({
      scope: "operator.write",
      roles: ["index", "runs"],
      params: methodParamSchemas.agent,
      startsRun: { runIdOf: (params) => params.idempotencyKey },
      handle: async ({ ctx, params }) => {
        const started = await agentRun(ctx, params);
        if (started.status === "in_flight") return { runId: started.runId, status: "in_flight" };
        if (started.status !== "started") {
          return {
            runId: started.runId,
            status: started.status,
            ...(started.summary ? { summary: started.summary } : {}),
          };
        }
        const accepted = {
          runId: started.runId,
          sessionKey: started.sessionKey,
          agentId: started.agentId,
          status: "accepted",
          acceptedAt: Date.now(),
        };
        return new TwoPhase(accepted, agentFinal(ctx, started.runId));
      },
    }),
    "agent.wait": defineMethod({
      scope: "operator.write",
      roles: ["runs"],
      params: methodParamSchemas["agent.wait"],
      handle: async ({ ctx, params }) => waitPayload(await agentWait(ctx, params.runId, params.timeoutMs ?? 30_000)),
    }),
    "chat.abort": defineMethod({
      scope: "operator.write",
      roles: ["runs"],
      mutatesSession: "sessionKey",
      params: methodParamSchemas["chat.abort"],
      handle: ({ ctx, params }) => chatAbort(ctx, params),
    }),
    "sessions.abort": defineMethod({
      scope: "operator.write",
      roles: ["runs"],
      mutatesSession: "key",
      params: methodParamSchemas["sessions.abort"],
      handle: ({ ctx, params }) => sessionsAbort(ctx, params),
    }),
  },
  routes: { tenant: [runRoutes, runStatusRoutes] },
  openApi: RUN_OPERATIONS,
};

/** Runs `then` after the frames already received on the socket had their turn (one macrotask). */
function afterReceivedFrames(then: () => void): Promise<void> {
  return new Promise((resolve) =>
    setTimeout(() => {
      try {
        then();
      } finally {
        resolve();
      }
    }, 0),
  );
}

/** The longest one `agent` request waits for its final answer (the run goes on after). */
const AGENT_FINAL_MAX_WAIT_MS = 15 * 60_000;

async function agentFinal(
  ctx: TenantContext<"runs">,
  runId: string,
): Promise<{ ok: true; payload: unknown } | { ok: false; payload: unknown; message: string }> {
  const snapshot = await agentWait(ctx, runId, AGENT_FINAL_MAX_WAIT_MS);
  const durationMs = (snapshot.endedAt ?? Date.now()) - (snapshot.startedAt ?? Date.now());
  if (snapshot.status === "ok") {
    return {
      ok: true,
      payload: {
        runId,
        status: "ok",
        summary: "completed",
        result: { payloads: [{ text: snapshot.reply ?? "", mediaUrl: null }], meta: { durationMs } },
      },
    };
  }
  const summary = snapshot.error ?? (snapshot.status === "pending" ? "still running" : snapshot.status);
  return { ok: false, payload: { runId, status: "error", summary }, message: summary };
}
