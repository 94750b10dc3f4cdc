import type { Principal } from "../auth/principal";
import type { TenantAccessApi } from "../contracts/tenant-api";
import type { TenantContext, TenantPorts } from "../domain/context";
import { sessionsDefaults } from "../domain/session-index";
import { checkBrowserOrigin } from "../policy/cors-origins";
import type { TenantConfig } from "../protocol/config";
import { MAX_PAYLOAD_BYTES, MAX_PREAUTH_PAYLOAD_BYTES, requestFrameSchema } from "../protocol/gateway";
import { errorResponse, type OperatorScope } from "../protocol/http";
import type { MethodTable } from "../registry/method";
import { tenantContext } from "../stubs";
import { answerConnect, helloOk, rejectHandshake } from "./connect";
import type { ConnectionState } from "./connection";
import { type Connection, Connections, eventFrameHead, safeSend } from "./connections";
import { Fanout } from "./fanout";
import { errorFrame, eventFrame, gatewayError } from "./frames";
import { gatewayStartedAt } from "./gateway-start";
import { describeParamsError } from "./handshake";
import { HelloCache } from "./hello-cache";
import { HANDSHAKE_TIMEOUT_MS, handshakeExpired, planAlarm } from "./liveness";
import { openclawParamsError } from "./params-validation";
import { clientAddress, PREAUTH_EVICTED_CLOSE, preauthLimits } from "./preauth";
import { Requests } from "./requests";
import { type GatewayAccess, TokenCache } from "./token-cache";

/** What the hub needs from the tenant object that hosts it. */
export type HubHost = {
  ctx: DurableObjectState;
  env: Env;
  config(): TenantConfig;
  authenticate(token: string): Promise<{ scopes: readonly OperatorScope[]; tokenId?: string } | null>;
  /** The gateway's methods: the feature slices' (src/slices.ts), handed in where the object is assembled. */
  methods: MethodTable;
  /** Whether a token still exists: the hosting tenant object (no RPC to itself), or its stub in a hub object. */
  tenant: TenantAccessApi;
  /** The domain's ports for a connection (tenant/in-process-ports.ts in the tenant object, else the stubs). */
  ports(tenantId: string, requestOrigin: string): TenantPorts;
  /** A hub object: its connections changed (it reports its interest to the tenant object). */
  connectionsChanged?(): void;
  /** A hub object: resolves once the tenant object knows its connections' current interest. */
  settled?(): Promise<void>;
};

/**
 * The tenant's gateway WebSockets on the Hibernation API: the handshake, request dispatch
 * and the tick. Connections and their subscriptions live in `Connections` (hydrated from the
 * socket attachments), event rendering in `Fanout`.
 */
export class GatewayHub {
  readonly connections: Connections;
  readonly fanout: Fanout;
  private readonly requests: Requests;
  /** When this object's gateway first served (kept across wake-ups: the uptime the UI shows). */
  private readonly startedAt: number;
  /** Handshake deadlines of sockets still in the challenge phase (cleared once they connect). */
  private readonly deadlines = new Map<WebSocket, ReturnType<typeof setTimeout>>();
  /** When the alarm is set, as far as this instance knows (undefined = not read yet). */
  private alarmAt: number | null | undefined;
  private readonly tokenCache = new TokenCache();
  private readonly helloCache = new HelloCache();

  constructor(private readonly host: HubHost) {
    this.startedAt = gatewayStartedAt(host.ctx.storage);
    // Keep-alive pings are answered by the runtime without waking the object.
    host.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
    this.connections = new Connections(host.ctx, () => host.connectionsChanged?.());
    this.fanout = new Fanout(this.connections);
    this.requests = new Requests({
      methods: host.methods,
      connections: this.connections,
      fanout: this.fanout,
      settled: () => host.settled?.() ?? Promise.resolve(),
      context: (state) => this.context(state),
      close: (ws, code, reason) => this.close(ws, code, reason),
    });
  }

  // ── Lifecycle ───────────────────────────────────────────────────────────

  /** A WebSocket upgrade for the tenant's gateway; `tenantId` is undefined when no such tenant exists. */
  upgrade(request: Request, tenantId: string | undefined): Promise<Response> | Response {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      return new Response("expected a WebSocket upgrade", { status: 426 });
    }
    if (!tenantId) return errorResponse(404, "not_found", "No such gateway");
    const browserOrigin = request.headers.get("origin") ?? undefined;
    const address = clientAddress(request.headers, preauthLimits(this.host.env).trustedProxyHops);
    return this.accept(tenantId, new URL(request.url).origin, browserOrigin, address);
  }

  async accept(tenantId: string, origin: string, browserOrigin?: string, address?: string): Promise<Response> {
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.host.ctx.acceptWebSocket(server);
    const state: ConnectionState = {
      connId: crypto.randomUUID(),
      tenantId,
      origin,
      ...(browserOrigin !== undefined ? { browserOrigin } : {}),
      ...(address ? { address } : {}),
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
        return rejectHandshake(this, ws, id, "invalid handshake: first request must be connect");
      }
      return answerConnect(this.connectPort, connection, id, frame.data.params);
    }
    await this.requests.answer(connection, id, frame.data.method, frame.data.params);
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
    if (connection) this.requests.forget(connection.state.connId);
    this.connections.remove(ws);
  }

  /**
   * The alarm: a tick to every ready connection; connections past their handshake deadline
   * are closed; the next alarm at the next tick or deadline, only while anyone is connected.
   */
  async alarm(now = Date.now()): Promise<void> {
    const plan = planAlarm([...this.connections.all()], now);
    const tick = eventFrameHead("tick", JSON.stringify({ ts: now }));
    for (const connection of plan.tick) this.connections.sendFrame(connection, tick);
    for (const connection of plan.expired) this.close(connection.ws, 1008, "handshake timeout");
    this.alarmAt = plan.nextAt;
    if (plan.nextAt !== null) await this.host.ctx.storage.setAlarm(plan.nextAt);
  }

  /**
   * The tenant's unauthenticated budget is full and a newcomer came: one socket in its handshake
   * closes as if its deadline had passed (connections.ts picks which). False: none here.
   */
  evictHandshaking(): boolean {
    const connection = this.connections.evictionCandidate();
    if (!connection) return false;
    this.close(connection.ws, PREAUTH_EVICTED_CLOSE.code, PREAUTH_EVICTED_CLOSE.reason);
    return true;
  }

  /** Closes every connection authenticated with a revoked token. */
  closeToken(tokenId: string): void {
    this.tokenCache.forgetToken(tokenId);
    for (const connection of [...this.connections.all()]) {
      if (connection.state.tokenId === tokenId) this.close(connection.ws, 1008, "token revoked");
    }
  }

  /**
   * The config changed: browser connections whose origin it no longer allows close, as
   * OpenClaw's gateway closes them (1008 "origin not allowed").
   */
  closeDisallowedOrigins(): void {
    const config = this.host.config();
    for (const connection of [...this.connections.all()]) {
      const { state } = connection;
      if (state.browserOrigin === undefined || checkBrowserOrigin(config, state.browserOrigin, state.origin).ok)
        continue;
      this.close(connection.ws, 1008, "origin not allowed");
    }
  }

  /** Closes every connection (the tenant is being deleted). */
  closeAll(code: number, reason: string): void {
    this.tokenCache.clear();
    for (const connection of [...this.connections.all()]) this.close(connection.ws, code, reason);
  }

  /** The in-memory deadline of one socket (exact while the object is awake). */
  private enforceHandshakeDeadline(ws: WebSocket): void {
    const connection = this.connections.get(ws);
    if (connection && handshakeExpired(connection.state, Date.now())) this.close(ws, 1008, "handshake timeout");
  }

  // ── Handshake ───────────────────────────────────────────────────────────

  private readonly connectPort = {
    config: () => this.host.config(),
    authenticate: (token: string) => this.authenticate(token),
    close: (ws: WebSocket, code: number, reason: string) => this.close(ws, code, reason),
    ready: (connection: Connection, ready: ConnectionState, id: string) => {
      this.connections.update(connection, ready);
      // A connected socket no longer keeps the object awake for its deadline.
      this.clearDeadline(connection.ws);
      // hello-ok depends on the granted scopes and on the requested ones it reports back.
      const scopes = [...(ready.scopes ?? []), "|", ...(ready.grantedScopes ?? [])];
      const hello = this.helloCache.frame(
        id,
        this.host.config(),
        { protocol: ready.protocol ?? 4, scopes },
        { connId: ready.connId, uptimeMs: Date.now() - this.startedAt },
        (marks) =>
          helloOk(
            { ...ready, connId: marks.connId },
            Object.keys(this.host.methods),
            marks.uptimeMs,
            sessionsDefaults(this.context(ready)),
          ),
      );
      safeSend(connection.ws, hello);
    },
  };

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

  private context(state: ConnectionState): TenantContext {
    const principal: Principal = {
      kind: "operator",
      scopes: state.scopes ?? [],
      ...(state.tokenId ? { tokenId: state.tokenId } : {}),
    };
    return tenantContext(
      this.host.env,
      {
        tenantId: state.tenantId,
        config: this.host.config(),
        principal,
        requestUrl: state.origin,
        ...(state.client ? { client: { id: state.client.id, mode: state.client.mode } } : {}),
        gatewayStartedAt: this.startedAt,
      },
      this.host.ports(state.tenantId, state.origin),
    );
  }

  close(ws: WebSocket, code: number, reason: string): void {
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
