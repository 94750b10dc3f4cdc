import { chatHistory, chatInject, sessionMessages, sessionsCreate, sessionsPreview } from "../../domain/chat";
import { DomainError } from "../../domain/errors";
import { agentIdParam, canonicalKey } from "../../domain/keys";
import { describeSession, listSessions } from "../../domain/session-index";
import { MAX_MESSAGE_SUBSCRIPTIONS } from "../../gateway/connection";
import { methodParamSchemas } from "../../protocol/gateway";
import { sessionsListParamsSchema, sessionsResolveParamsSchema } from "../../protocol/methods";
import { defineMethod } from "../../registry/method";
import type { Slice } from "../../registry/slice";
import { patchWithMarks } from "./session-marks";
import { SESSION_OPERATIONS } from "./session-operations";
import { resolveSessionReference } from "./session-reference";
import { sessionRoutes } from "./session-routes";
import { deleteSession, resetSession } from "./sessions";
import { streamTicketRoutes } from "./stream-ticket-routes";
import { toolRoutes } from "./tool-routes";
import { transferRoutes } from "./transfer-routes";

/**
 * Sessions: listing, subscribing, reading and changing them (gateway methods), their HTTP routes
 * (history and its stream ticket, export/import, the session tools at /tools/invoke).
 */
export const sessionsSlice: Slice = {
  name: "sessions",
  methods: {
    "sessions.list": defineMethod({
      scope: "operator.read",
      roles: ["index"],
      params: sessionsListParamsSchema,
      handle: ({ ctx, params }) => listSessions(ctx, params),
    }),
    "sessions.subscribe": defineMethod({
      scope: "operator.read",
      roles: ["index"],
      // The real gateway validates sessions.subscribe with the sessions.list schema.
      params: sessionsListParamsSchema,
      handle: async ({ ctx, params, rawParams, connection }) => {
        connection.setSessionsSubscription(true);
        // With any list params the answer carries that list (the subscriber's initial state).
        if (!hasProperties(rawParams)) return { subscribed: true };
        return { subscribed: true, list: await listSessions(ctx, params) };
      },
    }),
    "sessions.unsubscribe": defineMethod({
      scope: "operator.read",
      roles: [],
      params: methodParamSchemas["sessions.unsubscribe"],
      handle: ({ connection }) => {
        connection.setSessionsSubscription(false);
        return { subscribed: false };
      },
    }),
    "sessions.messages.subscribe": defineMethod({
      scope: "operator.read",
      roles: [],
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
    "sessions.messages.unsubscribe": defineMethod({
      scope: "operator.read",
      roles: [],
      params: methodParamSchemas["sessions.messages.unsubscribe"],
      handle: ({ ctx, params, connection }) => {
        const key = canonicalKey(ctx, params.key, params.agentId ? agentIdParam(params.agentId) : undefined);
        connection.setMessageSubscription(key, false);
        return { subscribed: false, key };
      },
    }),
    "sessions.resolve": defineMethod({
      scope: "operator.read",
      roles: ["index"],
      params: sessionsResolveParamsSchema,
      handle: ({ ctx, params }) => resolveSessionReference(ctx, params),
    }),
    "sessions.describe": defineMethod({
      scope: "operator.read",
      roles: ["index"],
      params: methodParamSchemas["sessions.describe"],
      handle: ({ ctx, params }) => describeSession(ctx, params),
    }),
    "sessions.get": defineMethod({
      scope: "operator.read",
      roles: ["index"],
      params: methodParamSchemas["sessions.get"],
      handle: ({ ctx, params }) => sessionMessages(ctx, params),
    }),
    "sessions.preview": defineMethod({
      scope: "operator.read",
      roles: [],
      params: methodParamSchemas["sessions.preview"],
      handle: ({ ctx, params }) => sessionsPreview(ctx, params),
    }),
    "sessions.patch": defineMethod({
      scope: "operator.write",
      roles: ["index"],
      answerFirst: true,
      mutatesSession: "key",
      params: methodParamSchemas["sessions.patch"],
      handle: ({ ctx, params }) => {
        const { key, unread, expectedMarkedUnreadAt, pinned, archived, expectedSessionId, agentId, ...patch } = params;
        const marks = { unread, expectedMarkedUnreadAt, pinned, archived, expectedSessionId, agentId };
        return patchWithMarks(ctx, key, patch, marks, { reason: "patch" });
      },
    }),
    "sessions.reset": defineMethod({
      scope: "operator.admin",
      roles: ["index"],
      answerFirst: true,
      mutatesSession: "key",
      params: methodParamSchemas["sessions.reset"],
      handle: async ({ ctx, params }) => {
        const entry = await resetSession(ctx, params.key, params.reason ?? "reset");
        return { ok: true, key: entry.key, entry };
      },
    }),
    "sessions.delete": defineMethod({
      scope: "operator.write",
      roles: ["index"],
      answerFirst: true,
      mutatesSession: "key",
      params: methodParamSchemas["sessions.delete"],
      handle: async ({ ctx, params }) => {
        const { key, deleted } = await deleteSession(ctx, params.key);
        return { ok: true, key, deleted, archived: [] };
      },
    }),
    "sessions.create": defineMethod({
      scope: "operator.write",
      roles: ["index", "runs"],
      answerFirst: true,
      params: methodParamSchemas["sessions.create"],
      handle: ({ ctx, params }) => sessionsCreate(ctx, params),
    }),
    "chat.history": defineMethod({
      scope: "operator.read",
      roles: ["index"],
      params: methodParamSchemas["chat.history"],
      handle: ({ ctx, params }) => chatHistory(ctx, params),
    }),
    "chat.inject": defineMethod({
      scope: "operator.admin",
      roles: [],
      mutatesSession: "sessionKey",
      params: methodParamSchemas["chat.inject"],
      handle: ({ ctx, params }) => chatInject(ctx, params),
    }),
  },
  routes: { tenant: [sessionRoutes, toolRoutes, streamTicketRoutes, transferRoutes] },
  openApi: SESSION_OPERATIONS,
};

function hasProperties(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length > 0;
}
