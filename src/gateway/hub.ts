import { sessionsDefaults } from "../domain/registry";
import { DomainError, hasScope, type Principal, type TenantContext } from "../domain/tenant-context";
import { logWarning } from "../observability/log";
import type { TenantConfig } from "../protocol/config";
import {
  connectParamsSchema,
  MAX_BUFFERED_BYTES,
  MAX_PAYLOAD_BYTES,
  MAX_PREAUTH_PAYLOAD_BYTES,
  requestFrameSchema,
  TICK_INTERVAL_MS,
} from "../protocol/gateway";
import type { OperatorScope } from "../protocol/http";
import type { TenantObject } from "../tenant/tenant-object";
import { type ConnectionState, canRead, readState, writeState } from "./connection";
import { errorFrame, eventFrame, gatewayError, rawEventFrame, resFrame } from "./frames";
import { describeParamsError, grantScopes, negotiateProtocol, verifyDevice } from "./handshake";
import { EVENTS, METHODS, PENDING_METHODS, TwoPhase } from "./methods";

/** What the hub needs from the tenant object that hosts it. */
export type HubHost = {
  ctx: DurableObjectState;
  env: Env;
  config(): TenantConfig;
  authenticate(token: string): Promise<{ scopes: readonly OperatorScope[]; tokenId?: string } | null>;
  nextBroadcastSeq(): number;
  /** The hosting tenant object, used directly by domain code instead of a stub to itself. */
  self: DurableObjectStub<TenantObject>;
};

/** A connection must complete `connect` within this (OpenClaw clients use 15 s). */
const HANDSHAKE_TIMEOUT_MS = 15_000;
/** Repeated refusals for missing scopes end the connection, as OpenClaw does. */
const MAX_REFUSALS = 20;
const SERVER_VERSION = "openclaw-sessions-edge/0.1.0";

/**
 * The tenant's gateway WebSockets on the Hibernation API. Per-connection state lives in
 * socket attachments; the subscription index is rebuilt from them after every wake-up.
 */
export class GatewayHub {
  /** key → sockets following its messages; rebuilt lazily from attachments. */
  private byKey: Map<string, Set<WebSocket>> | null = null;
  private sessionWatchers: Set<WebSocket> | null = null;
  /** Request ids in flight per connection (duplicate ids are refused). */
  private inflight = new Map<string, Set<string>>();
  /** Run events held back until the run's `agent` request was answered "accepted". */
  private held = new Map<string, string[]>();
  private readonly startedAt = Date.now();

  constructor(private readonly host: HubHost) {}

  // ── Lifecycle ───────────────────────────────────────────────────────────

  async accept(tenantId: string, origin: string): Promise<Response> {
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.host.ctx.acceptWebSocket(server);
    const state: ConnectionState = {
      connId: crypto.randomUUID(),
      tenantId,
      origin,
      phase: "challenge",
      nonce: crypto.randomUUID(),
      challengeTs: Date.now(),
    };
    writeState(server, state);
    server.send(eventFrame("connect.challenge", { nonce: state.nonce, ts: state.challengeTs }));
    await this.ensureTick();
    return new Response(null, { status: 101, webSocket: client });
  }

  async message(ws: WebSocket, data: string | ArrayBuffer): Promise<void> {
    const state = readState(ws);
    if (!state) return this.close(ws, 1011, "lost connection state");
    const size = typeof data === "string" ? data.length : data.byteLength;
    if (state.phase === "challenge" && size > MAX_PREAUTH_PAYLOAD_BYTES)
      return this.close(ws, 1009, "preauth payload too large");
    if (size > MAX_PAYLOAD_BYTES) return this.close(ws, 1009, "payload too large");
    if (typeof data !== "string") {
      return this.reject(ws, state, "", "invalid request frame", state.phase === "challenge");
    }
    let raw: unknown;
    try {
      raw = JSON.parse(data);
    } catch {
      return this.reject(ws, state, "", "invalid request frame", state.phase === "challenge");
    }
    const frame = requestFrameSchema.safeParse(raw);
    const id = typeof (raw as { id?: unknown })?.id === "string" ? (raw as { id: string }).id : "";
    if (!frame.success) return this.reject(ws, state, id, "invalid request frame", state.phase === "challenge");
    if (state.phase === "challenge") {
      if (frame.data.method !== "connect") {
        return this.reject(ws, state, id, "invalid handshake: first request must be connect", true);
      }
      return this.connect(ws, state, frame.data.id, frame.data.params);
    }
    await this.request(ws, state, frame.data.id, frame.data.method, frame.data.params);
  }

  closed(ws: WebSocket): void {
    const state = readState(ws);
    if (state) this.inflight.delete(state.connId);
    for (const sockets of this.byKey?.values() ?? []) sockets.delete(ws);
    this.sessionWatchers?.delete(ws);
  }

  /**
   * Alarm-driven tick: one frame to every ready socket; sockets that never completed the
   * handshake in time are closed; the next alarm only if anyone is left.
   */
  async tick(): Promise<void> {
    const now = Date.now();
    const frame = eventFrame("tick", { ts: now }, this.host.nextBroadcastSeq());
    let open = 0;
    let next = now + TICK_INTERVAL_MS;
    for (const ws of this.host.ctx.getWebSockets()) {
      const state = readState(ws);
      if (state?.phase === "ready") {
        safeSend(ws, frame);
        open++;
      } else if (!state || now - state.challengeTs > HANDSHAKE_TIMEOUT_MS) {
        this.close(ws, 1008, "handshake timeout");
      } else {
        open++;
        next = Math.min(next, state.challengeTs + HANDSHAKE_TIMEOUT_MS + 1_000);
      }
    }
    if (open > 0) await this.host.ctx.storage.setAlarm(next);
  }

  /** Closes every connection authenticated with a revoked token. */
  closeToken(tokenId: string): void {
    for (const ws of this.host.ctx.getWebSockets()) {
      if (readState(ws)?.tokenId === tokenId) this.close(ws, 1008, "token revoked");
    }
  }

  // ── Fan-out ─────────────────────────────────────────────────────────────

  /** Sends a targeted event to the sockets following `key` (session.message). */
  toMessageSubscribers(key: string, event: string, payloadJson: string): void {
    const sockets = this.index().byKey.get(key);
    if (!sockets || sockets.size === 0) return;
    const frame = rawEventFrame(event, payloadJson);
    for (const ws of sockets) this.sendIfReadable(ws, frame);
  }

  /** Sends a targeted event to sessions.subscribe'd sockets (sessions.changed). */
  toSessionWatchers(event: string, payloadJson: string): void {
    const sockets = this.index().watchers;
    if (sockets.size === 0) return;
    const frame = rawEventFrame(event, payloadJson);
    for (const ws of sockets) this.sendIfReadable(ws, frame);
  }

  /**
   * A broadcast event (global seq) to every connection allowed to read. Events of a run whose
   * `agent` request is not answered yet wait, so "accepted" always comes first.
   */
  broadcast(event: string, payload: unknown, runId?: string): void {
    const frame = eventFrame(event, payload, this.host.nextBroadcastSeq());
    const held = runId ? this.held.get(runId) : undefined;
    if (held) {
      held.push(frame);
      return;
    }
    for (const ws of this.host.ctx.getWebSockets()) this.sendIfReadable(ws, frame);
  }

  private holdRunEvents(runId: string): void {
    if (!this.held.has(runId)) this.held.set(runId, []);
  }

  private releaseRunEvents(runId: string): void {
    const frames = this.held.get(runId);
    this.held.delete(runId);
    for (const frame of frames ?? []) {
      for (const ws of this.host.ctx.getWebSockets()) this.sendIfReadable(ws, frame);
    }
  }

  hasSubscribers(key: string): boolean {
    const index = this.index();
    return index.watchers.size > 0 || (index.byKey.get(key)?.size ?? 0) > 0;
  }

  private sendIfReadable(ws: WebSocket, frame: string): void {
    const state = readState(ws);
    if (state && canRead(state)) safeSend(ws, frame);
  }

  private index(): { byKey: Map<string, Set<WebSocket>>; watchers: Set<WebSocket> } {
    if (!this.byKey || !this.sessionWatchers) {
      this.byKey = new Map();
      this.sessionWatchers = new Set();
      for (const ws of this.host.ctx.getWebSockets()) {
        const state = readState(ws);
        if (state?.phase !== "ready") continue;
        if (state.sessions) this.sessionWatchers.add(ws);
        for (const key of state.messageKeys ?? []) this.addToKey(key, ws);
      }
    }
    return { byKey: this.byKey, watchers: this.sessionWatchers };
  }

  private addToKey(key: string, ws: WebSocket): void {
    const map = this.byKey!;
    const set = map.get(key) ?? new Set<WebSocket>();
    set.add(ws);
    map.set(key, set);
  }

  // ── Handshake ───────────────────────────────────────────────────────────

  private async connect(ws: WebSocket, state: ConnectionState, id: string, rawParams: unknown): Promise<void> {
    const parsed = connectParamsSchema.safeParse(rawParams);
    if (!parsed.success)
      return this.reject(ws, state, id, `invalid connect params: ${describeParamsError(parsed.error)}`, true);
    const params = parsed.data;
    const protocol = negotiateProtocol(params.minProtocol, params.maxProtocol);
    if (protocol === null) {
      const expectedProtocol = params.maxProtocol < 3 ? 3 : 4;
      safeSend(
        ws,
        errorFrame(
          id,
          gatewayError("INVALID_REQUEST", "protocol mismatch", { expectedProtocol, supportedProtocols: [3, 4] }),
        ),
      );
      return this.close(ws, 1002, "protocol mismatch");
    }
    const role = params.role ?? "operator";
    if (role !== "operator") return this.reject(ws, state, id, "invalid role", true);
    const token = params.auth?.token ?? params.auth?.password ?? "";
    const access = token ? await this.host.authenticate(token) : null;
    if (!access)
      return this.authFailure(
        ws,
        id,
        "AUTH_TOKEN_MISMATCH",
        token ? "unauthorized: gateway token mismatch" : "unauthorized: gateway token missing",
      );
    const requestedScopes = params.scopes;
    if (params.device) {
      const failure = await verifyDevice(params.device, {
        nonce: state.nonce,
        clientId: params.client.id,
        clientMode: params.client.mode,
        role,
        scopes: requestedScopes ?? [],
        token,
        now: Date.now(),
      });
      if (failure) return this.authFailure(ws, id, failure, "device signature invalid");
    }
    const scopes = grantScopes(requestedScopes, access.scopes);
    const ready: ConnectionState = {
      ...state,
      phase: "ready",
      protocol,
      role: "operator",
      scopes,
      ...(access.tokenId ? { tokenId: access.tokenId } : {}),
      client: {
        id: params.client.id,
        mode: params.client.mode,
        version: params.client.version,
        platform: params.client.platform,
      },
      caps: params.caps ?? [],
    };
    writeState(ws, ready);
    safeSend(ws, resFrame(id, this.helloOk(ready)));
  }

  private helloOk(state: ConnectionState) {
    const ctx = this.context(state);
    return {
      type: "hello-ok",
      protocol: state.protocol,
      server: { version: SERVER_VERSION, connId: state.connId },
      features: { methods: [...Object.keys(METHODS), ...PENDING_METHODS], events: EVENTS },
      snapshot: {
        presence: [],
        health: { ok: true },
        stateVersion: { presence: 0, health: 0 },
        uptimeMs: Date.now() - this.startedAt,
        sessionDefaults: sessionsDefaults(ctx),
        authMode: "token",
      },
      auth: { role: "operator", scopes: state.scopes ?? [] },
      policy: { maxPayload: MAX_PAYLOAD_BYTES, maxBufferedBytes: MAX_BUFFERED_BYTES, tickIntervalMs: TICK_INTERVAL_MS },
    };
  }

  private authFailure(ws: WebSocket, id: string, code: string, message: string): void {
    logWarning("auth.failed", { surface: "gateway", tenant: readState(ws)?.tenantId, reason: code });
    safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", message, { code })));
    this.close(ws, 1008, "unauthorized");
  }

  // ── Requests ────────────────────────────────────────────────────────────

  private async request(
    ws: WebSocket,
    state: ConnectionState,
    id: string,
    method: string,
    params: unknown,
  ): Promise<void> {
    const inflight = this.inflight.get(state.connId) ?? new Set<string>();
    if (inflight.has(id)) {
      return void safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", `duplicate request id: ${id}`)));
    }
    const definition = METHODS[method];
    if (!definition) {
      const message = PENDING_METHODS.includes(method)
        ? `${method} is not available yet on this gateway`
        : `unknown method: ${method}`;
      return void safeSend(
        ws,
        errorFrame(id, gatewayError(PENDING_METHODS.includes(method) ? "UNAVAILABLE" : "INVALID_REQUEST", message)),
      );
    }
    if (definition.scope && !hasScope({ kind: "operator", scopes: state.scopes ?? [] }, definition.scope))
      return this.refuse(ws, state, id, definition.scope);
    const parsed = definition.params.safeParse(params);
    if (!parsed.success) {
      return void safeSend(
        ws,
        errorFrame(
          id,
          gatewayError("INVALID_REQUEST", `invalid ${method} params: ${describeParamsError(parsed.error)}`),
        ),
      );
    }
    inflight.add(id);
    this.inflight.set(state.connId, inflight);
    const heldRunId = definition.runIdOf?.(parsed.data);
    if (heldRunId) this.holdRunEvents(heldRunId);
    try {
      const payload = await definition.handle({
        ctx: this.context(state),
        params: parsed.data,
        connection: {
          state,
          setSessionsSubscription: (on) => this.setSessionsSubscription(ws, on),
          setMessageSubscription: (key, on) => this.setMessageSubscription(ws, key, on),
        },
      });
      if (payload instanceof TwoPhase) {
        safeSend(ws, resFrame(id, payload.accepted));
        if (heldRunId) this.releaseRunEvents(heldRunId);
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
      } else {
        safeSend(ws, resFrame(id, payload));
        if (heldRunId) this.releaseRunEvents(heldRunId);
      }
    } catch (error) {
      if (error instanceof DomainError) {
        safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", error.message)));
      } else {
        console.error(`gateway: ${method} failed`, error);
        safeSend(ws, errorFrame(id, gatewayError("UNAVAILABLE", `${method} failed`)));
      }
    } finally {
      inflight.delete(id);
      if (heldRunId) this.releaseRunEvents(heldRunId);
    }
  }

  private refuse(ws: WebSocket, state: ConnectionState, id: string, scope: OperatorScope): void {
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
    writeState(ws, { ...(readState(ws) ?? state), refusals });
    if (refusals >= MAX_REFUSALS) this.close(ws, 1008, "too many unauthorized requests");
  }

  private setSessionsSubscription(ws: WebSocket, on: boolean): void {
    const state = readState(ws);
    if (!state) return;
    writeState(ws, { ...state, sessions: on });
    const watchers = this.index().watchers;
    if (on) watchers.add(ws);
    else watchers.delete(ws);
  }

  private setMessageSubscription(ws: WebSocket, key: string, on: boolean): void {
    const state = readState(ws);
    if (!state) return;
    const keys = new Set(state.messageKeys ?? []);
    if (on) keys.add(key);
    else keys.delete(key);
    writeState(ws, { ...state, messageKeys: [...keys] });
    const index = this.index();
    if (on) this.addToKey(key, ws);
    else index.byKey.get(key)?.delete(ws);
  }

  private context(state: ConnectionState): TenantContext {
    const principal: Principal = {
      kind: "operator",
      scopes: state.scopes ?? [],
      ...(state.tokenId ? { tokenId: state.tokenId } : {}),
    };
    return {
      env: this.host.env,
      tenantId: state.tenantId,
      config: this.host.config(),
      principal,
      origin: state.origin,
      localTenant: this.host.self,
    };
  }

  private reject(ws: WebSocket, _state: ConnectionState, id: string, message: string, closeAfter: boolean): void {
    safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", message)));
    if (closeAfter) this.close(ws, 1008, message.slice(0, 120));
  }

  private close(ws: WebSocket, code: number, reason: string): void {
    this.closed(ws);
    try {
      ws.close(code, reason);
    } catch {
      // Already closing.
    }
  }

  /** The tick alarm; at first it comes early enough to enforce the handshake deadline. */
  private async ensureTick(): Promise<void> {
    const due = Date.now() + HANDSHAKE_TIMEOUT_MS + 1_000;
    const current = await this.host.ctx.storage.getAlarm();
    if (current === null || current > due) await this.host.ctx.storage.setAlarm(due);
  }
}

/** A send to a closing socket must never throw out of a handler. */
function safeSend(ws: WebSocket, frame: string): void {
  try {
    ws.send(frame);
  } catch {
    // The socket is closing; its close handler cleans up.
  }
}
