import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

/**
 * A minimal OpenClaw gateway WebSocket client on Node's global WebSocket: challenge →
 * `connect` with a token (protocol 3 or 4, read scope) → `req`/`res` frames. Events are
 * ignored. Failures become GatewayError with a message a person can act on.
 */

const HANDSHAKE_TIMEOUT_MS = 15_000;
export const REQUEST_TIMEOUT_MS = 120_000;

export type GatewayErrorKind =
  /** The gateway refused the token or the scope. */
  | "auth"
  /** Nothing answered, or not as a gateway (wrong host, port or path). */
  | "connect"
  /** The connection dropped or a request timed out: worth a retry on a new connection. */
  | "transport"
  /** The gateway answered the request with an error frame. */
  | "request";

export class GatewayError extends Error {
  readonly kind: GatewayErrorKind;
  readonly code: string | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(kind: GatewayErrorKind, message: string, code?: string, retryable = false, retryAfterMs?: number) {
    super(message);
    this.kind = kind;
    this.code = code;
    this.retryable = retryable;
    this.retryAfterMs = retryAfterMs;
  }
}

type Pending = { resolve(payload: unknown): void; reject(error: GatewayError): void; timer: NodeJS.Timeout };
type ErrorFrame = { code?: string; message?: string; retryable?: boolean; retryAfterMs?: number };

export type Hello = { protocol: number; serverVersion?: string };

export class GatewayClient {
  private readonly pending = new Map<string, Pending>();
  private nextId = 0;
  private closedWith: GatewayError | null = null;
  private readonly ws: WebSocket;
  readonly url: string;
  readonly hello: Hello;

  private constructor(ws: WebSocket, url: string, hello: Hello) {
    this.ws = ws;
    this.url = url;
    this.hello = hello;
    ws.addEventListener("message", (event) => this.onFrame(event.data));
    ws.addEventListener("close", (event) => {
      const reason = event.reason ? `: ${event.reason}` : "";
      this.closedWith = new GatewayError(
        "transport",
        `the source gateway closed the connection (${event.code}${reason})`,
      );
      for (const [id, pending] of this.pending) {
        clearTimeout(pending.timer);
        pending.reject(this.closedWith);
        this.pending.delete(id);
      }
    });
  }

  /** Opens a connection and completes the handshake; throws GatewayError ("auth" or "connect"). */
  static async connect(url: string, token: string, clientVersion: string): Promise<GatewayClient> {
    const ws = new WebSocket(url);
    const hello = await handshake(ws, url, token, clientVersion);
    return new GatewayClient(ws, url, hello);
  }

  get isOpen(): boolean {
    return this.closedWith === null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends a request; resolves with the payload, rejects with GatewayError. */
  request(method: string, params: unknown, timeoutMs = REQUEST_TIMEOUT_MS): Promise<unknown> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = `imp-${++this.nextId}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new GatewayError("transport", `${method} got no answer within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.ws.send(JSON.stringify({ type: "req", id, method, params }));
    });
  }

  close(): void {
    try {
      this.ws.close(1000);
    } catch {
      // already closed
    }
  }

  private onFrame(data: unknown): void {
    const frame = parseFrame(data);
    if (frame?.type !== "res" || typeof frame.id !== "string") return;
    const pending = this.pending.get(frame.id);
    if (!pending) return;
    this.pending.delete(frame.id);
    clearTimeout(pending.timer);
    if (frame.ok === true) pending.resolve(frame.payload);
    else pending.reject(requestError(frame.error as ErrorFrame | undefined));
  }
}

function requestError(error: ErrorFrame | undefined): GatewayError {
  const code = typeof error?.code === "string" ? error.code : undefined;
  const message = typeof error?.message === "string" ? error.message : "request failed";
  const retryable = error?.retryable === true || code === "UNAVAILABLE";
  const retryAfterMs = typeof error?.retryAfterMs === "number" ? error.retryAfterMs : undefined;
  return new GatewayError("request", message, code, retryable, retryAfterMs);
}

function parseFrame(data: unknown): Record<string, unknown> | null {
  if (typeof data !== "string") return null;
  try {
    const frame = JSON.parse(data) as unknown;
    return frame && typeof frame === "object" ? (frame as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Waits for `connect.challenge`, answers `connect`, and resolves with what hello-ok says. */
function handshake(ws: WebSocket, url: string, token: string, clientVersion: string): Promise<Hello> {
  return new Promise<Hello>((resolve, reject) => {
    let settled = false;
    const finish = (error: GatewayError | null, hello?: Hello) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ws.removeEventListener("message", onMessage);
      ws.removeEventListener("close", onClose);
      if (error) {
        try {
          ws.close();
        } catch {
          // never opened
        }
        reject(error);
      } else resolve(hello!);
    };
    const timer = setTimeout(
      () =>
        finish(
          new GatewayError(
            "connect",
            `${url} did not complete the OpenClaw gateway handshake within ${HANDSHAKE_TIMEOUT_MS / 1000} s`,
          ),
        ),
      HANDSHAKE_TIMEOUT_MS,
    );
    const onMessage = (event: MessageEvent) => {
      const frame = parseFrame(event.data);
      if (!frame) return;
      if (frame.type === "event" && frame.event === "connect.challenge") {
        ws.send(
          JSON.stringify({
            type: "req",
            id: "connect",
            method: "connect",
            params: {
              minProtocol: 3,
              maxProtocol: 4,
              client: { id: "gateway-client", version: clientVersion, platform: process.platform, mode: "backend" },
              role: "operator",
              scopes: ["operator.read"],
              caps: [],
              auth: { token },
              userAgent: `openclaw-sessions-import/${clientVersion}`,
            },
          }),
        );
        return;
      }
      if (frame.type !== "res" || frame.id !== "connect") return;
      if (frame.ok === true) {
        const payload = (frame.payload ?? {}) as { protocol?: unknown; server?: { version?: unknown } };
        finish(null, {
          protocol: typeof payload.protocol === "number" ? payload.protocol : 0,
          ...(typeof payload.server?.version === "string" ? { serverVersion: payload.server.version } : {}),
        });
        return;
      }
      const error = requestError(frame.error as ErrorFrame | undefined);
      finish(new GatewayError("auth", `the source gateway refused the connection: ${error.message}`, error.code));
    };
    const onClose = (event: CloseEvent) => {
      if (event.code === 1008 || event.code === 4001 || event.code === 4003) {
        finish(new GatewayError("auth", `the source gateway refused the connection: ${event.reason || event.code}`));
        return;
      }
      void describeUnreachable(url).then((message) => finish(new GatewayError("connect", message)));
    };
    ws.addEventListener("message", onMessage);
    ws.addEventListener("close", onClose);
  });
}

/**
 * Node's WebSocket says nothing about why it failed; the same upgrade request made by hand
 * shows the HTTP status (or the network error) instead.
 */
function describeUnreachable(url: string): Promise<string> {
  const target = new URL(url.replace(/^ws/, "http"));
  const get = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const request = get(target, {
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": randomBytes(16).toString("base64"),
      },
      timeout: 5_000,
    });
    request.on("upgrade", (_res, socket) => {
      socket.destroy();
      resolve(`the source gateway at ${url} closed the connection during the handshake`);
    });
    request.on("response", (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      if (status === 401 || status === 403) {
        resolve(`the source gateway at ${url} refused the connection (HTTP ${status}): check --from-token`);
      } else if (status === 404) {
        resolve(
          `no OpenClaw gateway at ${url} (HTTP 404): check --from (host, port and path; a tenant of this service is ws://host/t/<tenant>)`,
        );
      } else {
        resolve(`${url} answered HTTP ${status} instead of a gateway WebSocket: check --from`);
      }
    });
    request.on("timeout", () => request.destroy(new Error("no answer within 5 s")));
    request.on("error", (error: NodeJS.ErrnoException) => {
      resolve(`cannot reach the source gateway at ${url} (${error.code ?? error.message}): check --from`);
    });
    request.end();
  });
}
