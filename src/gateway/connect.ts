import { logWarning } from "../observability/log";
import { checkBrowserOrigin, ORIGIN_NOT_ALLOWED_MESSAGE } from "../policy/cors-origins";
import type { TenantConfig } from "../protocol/config";
import {
  connectParamsSchema,
  type ErrorShape,
  MAX_BUFFERED_BYTES,
  MAX_PAYLOAD_BYTES,
  TICK_INTERVAL_MS,
} from "../protocol/gateway";
import { SERVER_VERSION } from "../protocol/server-version";
import type { ConnectionState } from "./connection";
import { type Connection, safeSend } from "./connections";
import { EVENTS } from "./discovery";
import { errorFrame, gatewayError } from "./frames";
import {
  closeReason,
  grantedScopeNames,
  grantScopes,
  negotiateProtocol,
  tokenFailure,
  verifyDevice,
} from "./handshake";
import { parseParams } from "./parse-params";
import type { GatewayAccess } from "./token-cache";

/** What answering `connect` needs from the hub. */
export type ConnectPort = {
  /** The tenant's config (its browser origins). */
  config(): TenantConfig;
  /** A token's access, or null. */
  authenticate(token: string): Promise<GatewayAccess | null>;
  /** The connection passed the handshake: store its state and answer hello-ok. */
  ready(connection: Connection, state: ConnectionState, id: string): void;
  close(ws: WebSocket, code: number, reason: string): void;
};

/**
 * The `connect` request of a socket in the challenge phase: parameters, protocol, role, token,
 * device signature — each failure answered in OpenClaw's words and the socket closed, as the
 * real gateway does; on success the connection's scopes are granted and it becomes ready.
 */
export async function answerConnect(
  port: ConnectPort,
  connection: Connection,
  id: string,
  rawParams: unknown,
): Promise<void> {
  const { ws } = connection;
  const parsed = parseParams("connect", connectParamsSchema, rawParams ?? {});
  if (!parsed.success) return rejectHandshake(port, ws, id, `invalid connect params: ${parsed.message}`);
  const params = parsed.data;
  const origin = checkBrowserOrigin(port.config(), connection.state.browserOrigin, connection.state.origin);
  if (!origin.ok) {
    const details = { code: "CONTROL_UI_ORIGIN_NOT_ALLOWED", reason: origin.reason };
    safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", ORIGIN_NOT_ALLOWED_MESSAGE, details)));
    return port.close(ws, 1008, closeReason(ORIGIN_NOT_ALLOWED_MESSAGE));
  }
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
    return port.close(ws, 1002, "protocol mismatch");
  }
  const role = params.role ?? "operator";
  if (role !== "operator") return rejectHandshake(port, ws, id, "invalid role");
  const auth = params.auth ?? {};
  const token = auth.token ?? auth.password ?? "";
  if (!token && !params.device && !auth.deviceToken && !auth.bootstrapToken) {
    const error = gatewayError("NOT_PAIRED", "device identity required", { code: "DEVICE_IDENTITY_REQUIRED" });
    return authFailure(port, connection, id, error);
  }
  const access = token ? await port.authenticate(token) : null;
  if (!access) {
    const failure = tokenFailure({
      client: params.client,
      missing: !token,
      hasDevice: Boolean(params.device),
      sentDeviceToken: Boolean(auth.deviceToken),
    });
    return authFailure(port, connection, id, gatewayError("INVALID_REQUEST", failure.message, failure.details));
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
      return authFailure(port, connection, id, gatewayError("INVALID_REQUEST", failure.message, details));
    }
  }
  port.ready(
    connection,
    {
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
    },
    id,
  );
}

/** A handshake error: the error frame, then the close (1008 with OpenClaw's reason). */
export function rejectHandshake(port: Pick<ConnectPort, "close">, ws: WebSocket, id: string, message: string): void {
  safeSend(ws, errorFrame(id, gatewayError("INVALID_REQUEST", message)));
  port.close(ws, 1008, closeReason(message));
}

function authFailure(port: ConnectPort, connection: Connection, id: string, error: ErrorShape): void {
  const reason = (error.details as { code?: string } | undefined)?.code ?? error.code;
  logWarning("auth.failed", { surface: "gateway", tenant: connection.state.tenantId, reason });
  safeSend(connection.ws, errorFrame(id, error));
  port.close(connection.ws, 1008, closeReason(error.message));
}

/** The hello-ok payload of a ready connection (`methods`: the names answered; `sessionDefaults` from its tenant's config). */
export function helloOk(
  state: ConnectionState,
  methods: readonly string[],
  uptimeMs: number,
  sessionDefaults: unknown,
) {
  return {
    type: "hello-ok",
    protocol: state.protocol,
    // The deployer supplies the Control UI build: the UI must not compare its version with ours.
    server: { version: SERVER_VERSION, connId: state.connId, controlUiBuildSource: "configured" },
    features: { methods: [...methods], events: EVENTS },
    snapshot: {
      presence: [],
      health: { ok: true },
      stateVersion: { presence: 0, health: 0 },
      uptimeMs,
      sessionDefaults,
      authMode: "token",
    },
    auth: { method: "token", role: "operator", scopes: state.grantedScopes ?? state.scopes ?? [] },
    policy: { maxPayload: MAX_PAYLOAD_BYTES, maxBufferedBytes: MAX_BUFFERED_BYTES, tickIntervalMs: TICK_INTERVAL_MS },
  };
}
