import type { z } from "zod";
import { listAgents } from "../domain/agents";
import { chatHistory, chatInject, sessionMessages, sessionsCreate, sessionsPreview } from "../domain/chat";
import type { TenantContext } from "../domain/context";
import { DomainError } from "../domain/errors";
import { agentIdParam, canonicalKey } from "../domain/keys";
import { describeSession, listSessions } from "../domain/registry";
import { agentRun, agentWait, chatAbort, chatSend, sessionsAbort, waitPayload } from "../domain/runs";
import { patchWithMarks } from "../domain/session-marks";
import { resolveSessionReference } from "../domain/session-reference";
import { deleteSession, resetSession } from "../domain/sessions";
import { methodParamSchemas } from "../protocol/gateway";
import type { OperatorScope } from "../protocol/http";
import { sessionsListParamsSchema, sessionsResolveParamsSchema } from "../protocol/methods";
import { ABSENT_FEATURE_METHODS } from "./absent-features";
import { AUTOMATION_METHODS } from "./automation-methods";
import { CHANNEL_METHODS } from "./channel-methods";
import { CONFIG_METHODS } from "./config-methods";
import { type ConnectionState, MAX_MESSAGE_SUBSCRIPTIONS } from "./connection";
import { CONTROL_UI_METHODS } from "./control-ui-methods";
import { gatedRunStarts } from "./gated-runs";

/** The gateway methods this service implements: scope, closed params schema and handler. */

export type MethodCall<P> = {
  ctx: TenantContext;
  params: P;
  /** The params as sent (before properties with no feature here were left out). */
  rawParams: unknown;
  connection: {
    state: ConnectionState;
    setSessionsSubscription(on: boolean): void;
    setMessageSubscription(key: string, on: boolean): void;
  };
};

type MethodDefinition<S extends z.ZodType> = {
  /** Scope the caller needs; null = any authenticated connection. */
  scope: OperatorScope | null;
  params: S;
  handle(call: MethodCall<z.infer<S>>): Promise<unknown> | unknown;
  /** The caller hears the answer before the `sessions.changed` its request caused (as the real gateway). */
  answerFirst?: true;
  /** The run whose events must wait until this request is answered (`chat.send`'s ack, `agent`'s accepted). */
  runIdOf?(params: z.infer<S>): string;
};

const define = <S extends z.ZodType>(method: MethodDefinition<S>) => method as MethodDefinition<z.ZodType>;

const READ: OperatorScope = "operator.read";
const WRITE: OperatorScope = "operator.write";
const ADMIN: OperatorScope = "operator.admin";

export const METHODS: Record<string, MethodDefinition<z.ZodType>> = {
  health: define({
    scope: null,
    params: methodParamSchemas.health,
    handle: () => ({ ok: true, status: "live", ts: Date.now() }),
  }),
  "sessions.list": define({
    scope: READ,
    params: sessionsListParamsSchema.optional(),
    handle: ({ ctx, params }) => listSessions(ctx, params ?? {}),
  }),
  "sessions.subscribe": define({
    scope: READ,
    // The real gateway validates sessions.subscribe with the sessions.list schema.
    params: sessionsListParamsSchema.optional(),
    handle: async ({ ctx, params, rawParams, connection }) => {
      connection.setSessionsSubscription(true);
      // With any list params the answer carries that list (the subscriber's initial state).
      if (!hasProperties(rawParams)) return { subscribed: true };
      return { subscribed: true, list: await listSessions(ctx, params ?? {}) };
    },
  }),
  "sessions.unsubscribe": define({
    scope: READ,
    params: methodParamSchemas["sessions.unsubscribe"],
    handle: ({ connection }) => {
      connection.setSessionsSubscription(false);
      return { subscribed: false };
    },
  }),
  "sessions.messages.subscribe": define({
    scope: READ,
    params: methodParamSchemas["sessions.messages.subscribe"],
    handle: ({ ctx, params, connection }) => {
      const key = canonicalKey(ctx, params.key, params.agentId ? agentIdParam(params.agentId) : undefined);
      const keys = connection.state.messageKeys ?? [];
      if (!keys.includes(key) && keys.length >= MAX_MESSAGE_SUBSCRIPTIONS) {
        throw new DomainError(
          "invalid",
          `too many session subscriptions on one connection (max ${MAX_MESSAGE_SUBSCRIPTIONS})`,
        );
      }
      connection.setMessageSubscription(key, true);
      // A session that heard "nobody listens" would hold its next update for a window
      // (src/session/publish-window.ts): tell it, without waiting (the key may have no session).
      Promise.resolve(ctx.sessions(key).listenerJoined()).catch(() => undefined);
      return { subscribed: true, key };
    },
  }),
  "sessions.messages.unsubscribe": define({
    scope: READ,
    params: methodParamSchemas["sessions.messages.unsubscribe"],
    handle: ({ ctx, params, connection }) => {
      const key = canonicalKey(ctx, params.key, params.agentId ? agentIdParam(params.agentId) : undefined);
      connection.setMessageSubscription(key, false);
      return { subscribed: false, key };
    },
  }),
  "sessions.resolve": define({
    scope: READ,
    params: sessionsResolveParamsSchema,
    handle: ({ ctx, params }) => resolveSessionReference(ctx, params),
  }),
  "sessions.describe": define({
    scope: READ,
    params: methodParamSchemas["sessions.describe"],
    handle: ({ ctx, params }) => describeSession(ctx, params),
  }),
  "sessions.get": define({
    scope: READ,
    params: methodParamSchemas["sessions.get"],
    handle: ({ ctx, params }) => sessionMessages(ctx, params ?? {}),
  }),
  "sessions.preview": define({
    scope: READ,
    params: methodParamSchemas["sessions.preview"],
    handle: ({ ctx, params }) => sessionsPreview(ctx, params),
  }),
  "sessions.patch": define({
    scope: WRITE,
    answerFirst: true,
    params: methodParamSchemas["sessions.patch"],
    handle: ({ ctx, params }) => {
      const { key, unread, expectedMarkedUnreadAt, pinned, archived, expectedSessionId, agentId, ...patch } = params;
      const marks = { unread, expectedMarkedUnreadAt, pinned, archived, expectedSessionId, agentId };
      return patchWithMarks(ctx, key, patch, marks, { reason: "patch" });
    },
  }),
  "sessions.reset": define({
    scope: ADMIN,
    answerFirst: true,
    params: methodParamSchemas["sessions.reset"],
    handle: async ({ ctx, params }) => {
      const entry = await resetSession(ctx, params.key, params.reason ?? "reset");
      return { ok: true, key: entry.key, entry };
    },
  }),
  "sessions.delete": define({
    scope: WRITE,
    answerFirst: true,
    params: methodParamSchemas["sessions.delete"],
    handle: async ({ ctx, params }) => {
      const { key, deleted } = await deleteSession(ctx, params.key);
      return { ok: true, key, deleted, archived: [] };
    },
  }),
  "sessions.create": define({
    scope: WRITE,
    answerFirst: true,
    params: methodParamSchemas["sessions.create"],
    handle: ({ ctx, params }) => sessionsCreate(ctx, params),
  }),
  "chat.history": define({
    scope: READ,
    params: methodParamSchemas["chat.history"],
    handle: ({ ctx, params }) => chatHistory(ctx, params),
  }),
  "chat.inject": define({
    scope: ADMIN,
    params: methodParamSchemas["chat.inject"],
    handle: ({ ctx, params }) => chatInject(ctx, params),
  }),
  "chat.send": define({
    scope: WRITE,
    params: methodParamSchemas["chat.send"],
    runIdOf: (params) => params.idempotencyKey,
    handle: async ({ ctx, params }) => {
      const { payload, gate } = await chatSend(gatedRunStarts(ctx), params);
      if (!gate) return payload;
      // The run starts once this answer is on the wire and the frames that came with the send
      // were read: an abort sent right after it finds the run waiting.
      return new AnswerThen(payload, () => afterPendingFrames(() => gate[Symbol.dispose]()));
    },
  }),
  agent: define({
    scope: WRITE,
    params: methodParamSchemas.agent,
    runIdOf: (params) => params.idempotencyKey,
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
  "agent.wait": define({
    scope: WRITE,
    params: methodParamSchemas["agent.wait"],
    handle: async ({ ctx, params }) => waitPayload(await agentWait(ctx, params.runId, params.timeoutMs ?? 30_000)),
  }),
  "chat.abort": define({
    scope: WRITE,
    params: methodParamSchemas["chat.abort"],
    handle: ({ ctx, params }) => chatAbort(ctx, params),
  }),
  "sessions.abort": define({
    scope: WRITE,
    params: methodParamSchemas["sessions.abort"],
    handle: ({ ctx, params }) => sessionsAbort(ctx, params),
  }),
  "agents.list": define({
    scope: READ,
    params: methodParamSchemas["agents.list"],
    handle: ({ ctx }) => listAgents(ctx),
  }),
  ...CONTROL_UI_METHODS,
  ...AUTOMATION_METHODS,
  ...CONFIG_METHODS,
  ...CHANNEL_METHODS,
  ...ABSENT_FEATURE_METHODS,
};

/** An answer, then work that must follow it on the wire (a held run is released). */
export class AnswerThen {
  constructor(
    readonly payload: unknown,
    readonly after: () => Promise<unknown>,
  ) {}
}

/**
 * A method that answers the same request id twice (OpenClaw's `agent`): first the accepted
 * payload, then the final response when the run ends.
 */
export class TwoPhase {
  constructor(
    readonly accepted: unknown,
    readonly final: Promise<{ ok: true; payload: unknown } | { ok: false; payload: unknown; message: string }>,
  ) {}
}

/** Runs `then` after the frames already received on the socket had their turn (one macrotask). */
function afterPendingFrames(then: () => void): Promise<void> {
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
  ctx: TenantContext,
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

function hasProperties(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length > 0;
}

/** Methods listed for discovery but not served by this gateway. */
export const PENDING_METHODS: string[] = [];

export const EVENTS = [
  "connect.challenge",
  "tick",
  "health",
  "sessions.changed",
  "session.message",
  "chat",
  "agent",
  "config.changed",
];
