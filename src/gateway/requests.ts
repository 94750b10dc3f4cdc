import { hasScope } from "../auth/principal";
import type { TenantContext } from "../domain/context";
import { DomainError } from "../domain/errors";
import { portOfRoles } from "../domain/tenant-roles";
import type { OperatorScope } from "../protocol/http";
import { AnswerThen, type MethodTable, TwoPhase } from "../registry/method";
import type { ConnectionState } from "./connection";
import { type Connection, type Connections, safeSend } from "./connections";
import type { Fanout } from "./fanout";
import { errorFrame, gatewayError, refusalError, resFrame } from "./frames";
import { parseParams } from "./parse-params";
import { missingMutationTarget } from "./session-target";

/** Repeated refusals for missing scopes end the connection, as OpenClaw does. */
const MAX_REFUSALS = 20;

/** What answering requests needs from the hub. */
export type RequestPort = {
  /** The gateway's methods (composed from the feature slices in src/slices.ts). */
  methods: MethodTable;
  connections: Connections;
  fanout: Fanout;
  /** The domain context a ready connection acts in. */
  context(state: ConnectionState): TenantContext;
  close(ws: WebSocket, code: number, reason: string): void;
  /** Resolves once the events a request subscribed to will reach this object (a hub's report). */
  settled(): Promise<void>;
};

/**
 * Requests of ready connections: method lookup, scope, mutation target and parameter checks in
 * OpenClaw's words, then the method's handler; one answer per request id (a duplicate id in
 * flight is refused). Run events of a run a request starts are held until its answer is sent.
 */
export class Requests {
  /** Request ids in flight per connection. */
  private readonly inflight = new Map<string, Set<string>>();

  constructor(private readonly port: RequestPort) {}

  /** The connection is gone: its ids in flight no longer count. */
  forget(connId: string): void {
    this.inflight.delete(connId);
  }

  async answer(connection: Connection, id: string, method: string, params: unknown): Promise<void> {
    const { ws, state } = connection;
    const { connections, fanout } = this.port;
    const inflight = this.inflight.get(state.connId) ?? new Set<string>();
    if (inflight.has(id)) {
      return void safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", `duplicate request id: ${id}`)));
    }
    const definition = Object.hasOwn(this.port.methods, method) ? this.port.methods[method] : undefined;
    if (!definition) {
      return void safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", `unknown method: ${method}`)));
    }
    if (definition.scope && !hasScope({ kind: "operator", scopes: state.scopes ?? [] }, definition.scope)) {
      return this.refuse(connection, id, definition.scope);
    }
    const target = missingMutationTarget(method, definition, params, state.scopes?.includes("operator.admin") ?? false);
    if (target) {
      const error = gatewayError("INVALID_REQUEST", "session mutation target is unavailable", target);
      return void safeSend(ws, errorFrame(id, error));
    }
    const parsed = parseParams(method, definition.params, params ?? {});
    if (!parsed.success) {
      const error = gatewayError("INVALID_REQUEST", `invalid ${method} params: ${parsed.message}`);
      return void safeSend(ws, errorFrame(id, error));
    }
    inflight.add(id);
    this.inflight.set(state.connId, inflight);
    const heldRunId = definition.startsRun?.runIdOf(parsed.data);
    if (heldRunId) fanout.hold(heldRunId);
    let deferring = definition.answerFirst === true;
    if (deferring) connections.defer(connection);
    // After the answer: the connection's deferred events and the held run's events flow again.
    const answered = () => {
      if (deferring) {
        deferring = false;
        connections.resume(connection);
      }
      if (heldRunId) fanout.release(heldRunId);
    };
    try {
      const context = this.port.context(state);
      const payload = await definition.handle({
        // The tenant port with the declared roles' methods only, as a tool's run gets it.
        ctx: { ...context, tenant: portOfRoles(context.tenant, definition.roles) },
        params: parsed.data,
        rawParams: params,
        connection: {
          state,
          setSessionsSubscription: (on) => connections.update(connection, { ...connection.state, sessions: on }),
          setMessageSubscription: (key, on) => this.setMessageSubscription(connection, key, on),
          setWizard: (wizard) => connections.update(connection, { ...connection.state, wizard }),
        },
      });
      // A subscription holds from its answer on: in a hub object, once the tenant object knows it.
      await this.port.settled();
      if (payload instanceof TwoPhase) {
        safeSend(ws, resFrame(id, payload.accepted));
        answered();
        const final = await payload.final.catch((error: unknown) => ({
          ok: false as const,
          payload: undefined,
          message: (error as Error).message,
        }));
        safeSend(
          ws,
          final.ok
            ? resFrame(id, final.payload)
            : errorFrame(id, gatewayError("UNAVAILABLE", final.message), final.payload),
        );
      } else if (payload instanceof AnswerThen) {
        safeSend(ws, resFrame(id, payload.payload));
        answered();
        await payload.after().catch((error: unknown) => console.error(`gateway: after ${method} failed`, error));
      } else {
        safeSend(ws, resFrame(id, payload));
        answered();
      }
    } catch (error) {
      if (error instanceof DomainError && error.code === "rate_limited") {
        const refusal = refusalError(error.message, Number(error.details?.retryAfterMs ?? 1000));
        // The chat shows a run's `chat` error ("Error: …"); the error frame alone marks the
        // message "Not sent" with the reason in a tooltip only.
        const chatRun = definition.startsRun?.chatRunOf?.(parsed.data);
        if (chatRun) {
          const payload = { ...chatRun, seq: 1, state: "error", errorMessage: refusal.message };
          connections.sendEvent(connection, "chat", JSON.stringify(payload));
        }
        safeSend(ws, errorFrame(id, refusal));
      } else if (error instanceof DomainError && error.code === "unavailable") {
        safeSend(ws, errorFrame(id, gatewayError("UNAVAILABLE", error.message)));
      } else if (error instanceof DomainError) {
        safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", error.message, error.details)));
      } else {
        console.error(`gateway: ${method} failed`, error);
        safeSend(ws, errorFrame(id, gatewayError("UNAVAILABLE", `${method} failed`)));
      }
    } finally {
      answered();
      inflight.delete(id);
      if (inflight.size === 0) this.inflight.delete(state.connId);
    }
  }

  private refuse(connection: Connection, id: string, scope: OperatorScope): void {
    const { ws, state } = connection;
    const error =
      state.protocol === 4
        ? gatewayError("FORBIDDEN", `missing scope: ${scope}`, {
            code: "MISSING_SCOPE",
            missingScope: scope,
            requiredScopes: [scope],
          })
        : gatewayError("INVALID_REQUEST", `missing scope: ${scope}`);
    safeSend(ws, errorFrame(id, error));
    const refusals = (state.refusals ?? 0) + 1;
    this.port.connections.update(connection, { ...state, refusals });
    if (refusals >= MAX_REFUSALS) this.port.close(ws, 1008, "too many unauthorized requests");
  }

  private setMessageSubscription(connection: Connection, key: string, on: boolean): void {
    const keys = new Set(connection.state.messageKeys ?? []);
    if (on) keys.add(key);
    else keys.delete(key);
    this.port.connections.update(connection, { ...connection.state, messageKeys: [...keys] });
  }
}
