import type { Principal } from "../auth/principal";
import { hasScope } from "../auth/principal";
import type { TenantApi } from "../contracts/tenant-api";
import type { TenantContext } from "../domain/context";
import { DomainError } from "../domain/errors";
import { sessionsDefaults } from "../domain/registry";
import { logWarning } from "../observability/log";
import type { TenantConfig } from "../protocol/config";
import {
  connectParamsSchema,
  type ErrorShape,
  MAX_BUFFERED_BYTES,
  MAX_PAYLOAD_BYTES,
  MAX_PREAUTH_PAYLOAD_BYTES,
  requestFrameSchema,
  TICK_INTERVAL_MS,
} from "../protocol/gateway";
import { errorResponse, type OperatorScope } from "../protocol/http";
import { SERVER_VERSION } from "../protocol/server-version";
import { tenantPorts } from "../stubs";
import type { ConnectionState } from "./connection";
import { type Connection, Connections, safeSend } from "./connections";
import { Fanout } from "./fanout";
import { errorFrame, eventFrame, gatewayError, resFrame } from "./frames";
import {
  closeReason,
  describeParamsError,
  grantedScopeNames,
  grantScopes,
  negotiateProtocol,
  tokenFailure,
  verifyDevice,
} from "./handshake";
import { HelloCache } from "./hello-cache";
import { AnswerThen, EVENTS, METHODS, PENDING_METHODS, TwoPhase } from "./methods";
import { openclawParamsError } from "./params-validation";
import { parseParams } from "./parse-params";
import { missingMutationTarget } from "./session-target";
import { type GatewayAccess, TokenCache } from "./token-cache";

/** What the hub needs from the tenant object that hosts it. */
export type HubHost = {
  ctx: DurableObjectState;
  env: Env;
  config(): TenantConfig;
  authenticate(token: string): Promise<{ scopes: readonly OperatorScope[]; tokenId?: string } | null>;
  /** The hosting tenant object, the domain's tenant port (no RPC to itself). */
  tenant: TenantApi;
};

/** A connection must complete `connect` within this (OpenClaw clients use 15 s). */
export const HANDSHAKE_TIMEOUT_MS = 15_000;
/** Repeated refusals for missing scopes end the connection, as OpenClaw does. */
const MAX_REFUSALS = 20;

/**
 * The tenant's gateway WebSockets on the Hibernation API: the handshake, request dispatch
 * and the tick. Connections and their subscriptions live in `Connections` (hydrated from the
 * socket attachments), event rendering in `Fanout`.
 */
export class GatewayHub {
  readonly connections: Connections;
  readonly fanout: Fanout;
  /** Request ids in flight per connection (duplicate ids are refused). */
  private readonly inflight = new Map<string, Set<string>>();
  private readonly startedAt = Date.now();
  /** Handshake deadlines of sockets still in the challenge phase (cleared once they connect). */
  private readonly deadlines = new Map<WebSocket, ReturnType<typeof setTimeout>>();
  /** When the alarm is set, as far as this instance knows (undefined = not read yet). */
  private alarmAt: number | null | undefined;
  private readonly tokenCache = new TokenCache();
  private readonly helloCache = new HelloCache();

  constructor(private readonly host: HubHost) {
    this.connections = new Connections(host.ctx);
    this.fanout = new Fanout(this.connections);
  }

  // ── Lifecycle ───────────────────────────────────────────────────────────

  /** A WebSocket upgrade for the tenant's gateway; `tenantId` is undefined when no such tenant exists. */
  upgrade(request: Request, tenantId: string | undefined): Promise<Response> | Response {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a WebSocket upgrade", { status: 426 });
    }
    if (!tenantId) return errorResponse(404, "not_found", "No such gateway");
    return this.accept(tenantId, new URL(request.url).origin);
  }

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
    this.connections.add(server, state);
    // No optional challenge capabilities here (the real gateway offers a model-catalog snapshot).
    server.send(eventFrame("connect.challenge", { nonce: state.nonce, ts: state.challengeTs, capabilities: [] }));
    // The deadline is exact while the object is awake; the alarm enforces it after a hibernation.
    this.deadlines.set(
      server,
      setTimeout(() => this.enforceHandshakeDeadline(server), HANDSHAKE_TIMEOUT_MS),
    );
    // The upgrade does not wait for the alarm write: while awake the timer above is the deadline.
    this.host.ctx.waitUntil(
      this.ensureAlarm(state.challengeTs + HANDSHAKE_TIMEOUT_MS).catch((error) =>
        console.error("gateway: setting the handshake alarm failed", error),
      ),
    );
    return new Response(null, { status: 101, webSocket: client });
  }

  async message(ws: WebSocket, data: string | ArrayBuffer): Promise<void> {
    const connection = this.connections.get(ws);
    if (!connection) return this.close(ws, 1011, "lost connection state");
    const challenge = connection.state.phase === "challenge";
    const size = typeof data === "string" ? data.length : data.byteLength;
    if (challenge && size > MAX_PREAUTH_PAYLOAD_BYTES) return this.close(ws, 1009, "preauth payload too large");
    if (size > MAX_PAYLOAD_BYTES) return this.close(ws, 1009, "payload too large");
    let raw: unknown;
    try {
      raw = typeof data === "string" ? JSON.parse(data) : undefined;
    } catch {
      raw = undefined;
    }
    // Like the real gateway: non-JSON closes a socket in the challenge phase with 1000 and
    // is ignored after the handshake.
    if (raw === undefined) return challenge ? this.close(ws, 1000, "") : undefined;
    const frame = requestFrameSchema.safeParse(raw);
    if (!frame.success) {
      if (challenge) return this.close(ws, 1008, "invalid request frame");
      const frameId = (raw as { id?: unknown } | null)?.id;
      const id = typeof frameId === "string" ? frameId : "invalid";
      const why = openclawParamsError("(request frame)", raw) ?? describeParamsError(frame.error);
      return void safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", `invalid request frame: ${why}`)));
    }
    const id = frame.data.id;
    if (challenge) {
      if (frame.data.method !== "connect") {
        return this.reject(ws, id, "invalid handshake: first request must be connect", true);
      }
      return this.connect(connection, frame.data.id, frame.data.params);
    }
    await this.request(connection, frame.data.id, frame.data.method, frame.data.params);
  }

  /** A frame from a socket; never throws (one bad frame must not hurt other connections). */
  async receive(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    try {
      await this.message(ws, message);
    } catch (error) {
      console.error("GatewayHub: a frame failed", error);
    }
  }

  /** The peer closed: forget the connection and complete the closing handshake. */
  closedByPeer(ws: WebSocket, code: number, reason: string): void {
    this.closed(ws);
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      // Already closed.
    }
  }

  closed(ws: WebSocket): void {
    this.clearDeadline(ws);
    const connection = this.connections.get(ws);
    if (connection) this.inflight.delete(connection.state.connId);
    this.connections.remove(ws);
  }

  /**
   * The alarm: a tick to every ready connection; connections past their handshake deadline
   * are closed; the next alarm at the next tick or deadline, only while anyone is connected.
   */
  async alarm(): Promise<void> {
    const now = Date.now();
    let next = now + TICK_INTERVAL_MS;
    let open = 0;
    const tick = JSON.stringify({ ts: now });
    for (const connection of [...this.connections.all()]) {
      if (connection.state.phase === "ready") {
        this.connections.sendEvent(connection, "tick", tick);
        open++;
      } else if (this.enforceHandshakeDeadline(connection.ws, now)) {
        open++;
        next = Math.min(next, connection.state.challengeTs + HANDSHAKE_TIMEOUT_MS);
      }
    }
    this.alarmAt = open > 0 ? next : null;
    if (open > 0) await this.host.ctx.storage.setAlarm(next);
  }

  /** Closes every connection authenticated with a revoked token. */
  closeToken(tokenId: string): void {
    this.tokenCache.forgetToken(tokenId);
    for (const connection of [...this.connections.all()]) {
      if (connection.state.tokenId === tokenId) this.close(connection.ws, 1008, "token revoked");
    }
  }

  /** Closes every connection (the tenant is being deleted). */
  closeAll(code: number, reason: string): void {
    this.tokenCache.clear();
    for (const connection of [...this.connections.all()]) this.close(connection.ws, code, reason);
  }

  /** Closes a socket still in the challenge phase past its deadline; true when it may stay. */
  private enforceHandshakeDeadline(ws: WebSocket, now = Date.now()): boolean {
    const connection = this.connections.get(ws);
    if (connection?.state.phase !== "challenge" || now - connection.state.challengeTs < HANDSHAKE_TIMEOUT_MS)
      return true;
    this.close(ws, 1008, "handshake timeout");
    return false;
  }

  // ── Handshake ───────────────────────────────────────────────────────────

  private async connect(connection: Connection, id: string, rawParams: unknown): Promise<void> {
    const { ws } = connection;
    const parsed = parseParams("connect", connectParamsSchema, rawParams ?? {});
    if (!parsed.success) return this.reject(ws, id, `invalid connect params: ${parsed.message}`, true);
    const params = parsed.data;
    const protocol = negotiateProtocol(params.minProtocol, params.maxProtocol);
    if (protocol === null) {
      const details = {
        code: "PROTOCOL_MISMATCH",
        clientMinProtocol: params.minProtocol,
        clientMaxProtocol: params.maxProtocol,
        expectedProtocol: 4,
        minimumProbeProtocol: 3,
      };
      safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", "protocol mismatch", details)));
      return this.close(ws, 1002, "protocol mismatch");
    }
    const role = params.role ?? "operator";
    if (role !== "operator") return this.reject(ws, id, "invalid role", true);
    const auth = params.auth ?? {};
    const token = auth.token ?? auth.password ?? "";
    if (!token && !params.device && !auth.deviceToken && !auth.bootstrapToken) {
      return this.authFailure(
        ws,
        id,
        gatewayError("NOT_PAIRED", "device identity required", { code: "DEVICE_IDENTITY_REQUIRED" }),
      );
    }
    const access = token ? await this.authenticate(token) : null;
    if (!access) {
      const failure = tokenFailure({
        client: params.client,
        missing: !token,
        hasDevice: Boolean(params.device),
        sentDeviceToken: Boolean(auth.deviceToken),
      });
      return this.authFailure(ws, id, gatewayError("INVALID_REQUEST", failure.message, failure.details));
    }
    const requestedScopes = params.scopes;
    if (params.device) {
      const failure = await verifyDevice(params.device, {
        nonce: connection.state.nonce,
        clientId: params.client.id,
        clientMode: params.client.mode,
        role,
        scopes: requestedScopes ?? [],
        token: auth.token ?? auth.deviceToken ?? auth.bootstrapToken ?? "",
        platform: params.client.platform,
        deviceFamily: params.client.deviceFamily,
        now: Date.now(),
      });
      if (failure) {
        const details = { code: failure.code, reason: failure.reason };
        return this.authFailure(ws, id, gatewayError("INVALID_REQUEST", failure.message, details));
      }
    }
    const ready: ConnectionState = {
      ...connection.state,
      phase: "ready",
      protocol,
      role: "operator",
      scopes: grantScopes(requestedScopes, access.scopes),
      grantedScopes: grantedScopeNames(requestedScopes, access.scopes),
      ...(access.tokenId ? { tokenId: access.tokenId } : {}),
      client: {
        id: params.client.id,
        mode: params.client.mode,
        version: params.client.version,
        platform: params.client.platform,
      },
      caps: params.caps ?? [],
    };
    this.connections.update(connection, ready);
    // A connected socket no longer keeps the object awake for its deadline.
    this.clearDeadline(ws);
    // hello-ok depends on the granted scopes and on the requested ones it reports back.
    const scopes = [...(ready.scopes ?? []), "|", ...(ready.grantedScopes ?? [])];
    const hello = this.helloCache.frame(
      id,
      this.host.config(),
      { protocol, scopes },
      { connId: ready.connId, uptimeMs: Date.now() - this.startedAt },
      (marks) => this.helloOk({ ...ready, connId: marks.connId }, marks.uptimeMs),
    );
    safeSend(ws, hello);
  }

  /** A token's access: from memory for a token seen within a minute and still present, else checked. */
  private async authenticate(token: string): Promise<GatewayAccess | null> {
    const cached = this.tokenCache.get(token);
    // The token's row is still looked up: a revocation by any path takes effect at once.
    if (cached && (cached.tokenId === undefined || (await this.host.tenant.tokenExists(cached.tokenId)))) return cached;
    const access = await this.host.authenticate(token);
    if (access) this.tokenCache.remember(token, access);
    return access;
  }

  private clearDeadline(ws: WebSocket): void {
    const timer = this.deadlines.get(ws);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.deadlines.delete(ws);
  }

  private helloOk(state: ConnectionState, uptimeMs = Date.now() - this.startedAt) {
    const ctx = this.context(state);
    return {
      type: "hello-ok",
      protocol: state.protocol,
      // The deployer supplies the Control UI build: the UI must not compare its version with ours.
      server: { version: SERVER_VERSION, connId: state.connId, controlUiBuildSource: "configured" },
      features: { methods: [...Object.keys(METHODS), ...PENDING_METHODS], events: EVENTS },
      snapshot: {
        presence: [],
        health: { ok: true },
        stateVersion: { presence: 0, health: 0 },
        uptimeMs,
        sessionDefaults: sessionsDefaults(ctx),
        authMode: "token",
      },
      auth: { method: "token", role: "operator", scopes: state.grantedScopes ?? state.scopes ?? [] },
      policy: { maxPayload: MAX_PAYLOAD_BYTES, maxBufferedBytes: MAX_BUFFERED_BYTES, tickIntervalMs: TICK_INTERVAL_MS },
    };
  }

  private authFailure(ws: WebSocket, id: string, error: ErrorShape): void {
    const reason = (error.details as { code?: string } | undefined)?.code ?? error.code;
    logWarning("auth.failed", { surface: "gateway", tenant: this.connections.get(ws)?.state.tenantId, reason });
    safeSend(ws, errorFrame(id, error));
    this.close(ws, 1008, closeReason(error.message));
  }

  // ── Requests ────────────────────────────────────────────────────────────

  private async request(connection: Connection, id: string, method: string, params: unknown): Promise<void> {
    const { ws, state } = connection;
    const inflight = this.inflight.get(state.connId) ?? new Set<string>();
    if (inflight.has(id)) {
      return void safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", `duplicate request id: ${id}`)));
    }
    const definition = METHODS[method];
    if (!definition) {
      const pending = PENDING_METHODS.includes(method);
      const message = pending ? `${method} is not available yet on this gateway` : `unknown method: ${method}`;
      return void safeSend(ws, errorFrame(id, gatewayError(pending ? "UNAVAILABLE" : "INVALID_REQUEST", message)));
    }
    if (definition.scope && !hasScope({ kind: "operator", scopes: state.scopes ?? [] }, definition.scope)) {
      return this.refuse(connection, id, definition.scope);
    }
    const target = missingMutationTarget(method, params, state.scopes?.includes("operator.admin") ?? false);
    if (target) {
      const error = gatewayError("INVALID_REQUEST", "session mutation target is unavailable", target);
      return void safeSend(ws, errorFrame(id, error));
    }
    const parsed = parseParams(method, definition.params, params ?? {});
    if (!parsed.success) {
      return void safeSend(
        ws,
        errorFrame(id, gatewayError("INVALID_REQUEST", `invalid ${method} params: ${parsed.message}`)),
      );
    }
    inflight.add(id);
    this.inflight.set(state.connId, inflight);
    const heldRunId = definition.runIdOf?.(parsed.data);
    if (heldRunId) this.fanout.hold(heldRunId);
    let deferring = definition.answerFirst === true;
    if (deferring) this.connections.defer(connection);
    const answered = () => {
      if (!deferring) return;
      deferring = false;
      this.connections.resume(connection);
    };
    try {
      const payload = await definition.handle({
        ctx: this.context(state),
        params: parsed.data,
        rawParams: params,
        connection: {
          state,
          setSessionsSubscription: (on) => this.connections.update(connection, { ...connection.state, sessions: on }),
          setMessageSubscription: (key, on) => this.setMessageSubscription(connection, key, on),
        },
      });
      if (payload instanceof TwoPhase) {
        safeSend(ws, resFrame(id, payload.accepted));
        answered();
        if (heldRunId) this.fanout.release(heldRunId);
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
        if (heldRunId) this.fanout.release(heldRunId);
        await payload.after().catch((error: unknown) => console.error(`gateway: after ${method} failed`, error));
      } else {
        safeSend(ws, resFrame(id, payload));
        answered();
        if (heldRunId) this.fanout.release(heldRunId);
      }
    } catch (error) {
      if (error instanceof DomainError) {
        safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", error.message)));
      } else {
        console.error(`gateway: ${method} failed`, error);
        safeSend(ws, errorFrame(id, gatewayError("UNAVAILABLE", `${method} failed`)));
      }
    } finally {
      answered();
      inflight.delete(id);
      if (inflight.size === 0) this.inflight.delete(state.connId);
      if (heldRunId) this.fanout.release(heldRunId);
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
    this.connections.update(connection, { ...state, refusals });
    if (refusals >= MAX_REFUSALS) this.close(ws, 1008, "too many unauthorized requests");
  }

  private setMessageSubscription(connection: Connection, key: string, on: boolean): void {
    const keys = new Set(connection.state.messageKeys ?? []);
    if (on) keys.add(key);
    else keys.delete(key);
    this.connections.update(connection, { ...connection.state, messageKeys: [...keys] });
  }

  private context(state: ConnectionState): TenantContext {
    const principal: Principal = {
      kind: "operator",
      scopes: state.scopes ?? [],
      ...(state.tokenId ? { tokenId: state.tokenId } : {}),
    };
    return {
      ...tenantPorts(this.host.env, state.tenantId),
      // Inside the tenant object the tenant port is the object itself: no RPC to itself.
      tenant: this.host.tenant,
      tenantId: state.tenantId,
      config: this.host.config(),
      principal,
      origin: state.origin,
      ...(state.client ? { client: { id: state.client.id, mode: state.client.mode } } : {}),
    };
  }

  private reject(ws: WebSocket, id: string, message: string, closeAfter: boolean): void {
    safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", message)));
    if (closeAfter) this.close(ws, 1008, closeReason(message));
  }

  private close(ws: WebSocket, code: number, reason: string): void {
    this.closed(ws);
    try {
      ws.close(code, reason);
    } catch {
      // Already closing.
    }
  }

  /** The alarm is kept at or before `due` (an earlier one is left as it is; read once per wake-up). */
  private async ensureAlarm(due: number): Promise<void> {
    this.alarmAt ??= await this.host.ctx.storage.getAlarm();
    if (this.alarmAt !== null && this.alarmAt <= due && this.alarmAt > Date.now()) return;
    this.alarmAt = due;
    await this.host.ctx.storage.setAlarm(due, { allowUnconfirmed: true });
  }
}
