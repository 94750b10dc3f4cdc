import { exports } from "cloudflare:workers";
import { DEV } from "./helpers";

/** A gateway client for tests: connects through the worker, records every frame. */
export class GatewayClient {
  frames: any[] = [];
  closed: { code: number; reason: string } | null = null;
  private waiters: Array<() => void> = [];
  private nextId = 0;

  private constructor(readonly ws: WebSocket) {
    ws.addEventListener("message", (event) => {
      this.frames.push(JSON.parse(event.data as string));
      this.wake();
    });
    ws.addEventListener("close", (event) => {
      this.closed = { code: event.code, reason: event.reason };
      this.wake();
    });
  }

  static async open(path = "/", headers: Record<string, string> = {}): Promise<GatewayClient> {
    const res = await exports.default.fetch(`http://svc.test${path}`, {
      headers: { Upgrade: "websocket", ...headers },
    });
    const ws = res.webSocket;
    if (!ws) throw new Error(`no websocket: ${res.status} ${await res.text()}`);
    ws.accept();
    return new GatewayClient(ws);
  }

  /** Opens and completes the handshake (protocol 4 unless told otherwise). */
  static async connect(
    options: { path?: string; token?: string; scopes?: string[]; protocol?: [number, number] } = {},
  ) {
    const client = await GatewayClient.open(options.path);
    const hello = await client.handshake(options);
    if (!hello.ok) throw new Error(`connect failed: ${JSON.stringify(hello.error)}`);
    return client;
  }

  async handshake(
    options: { token?: string; scopes?: string[]; protocol?: [number, number]; extra?: Record<string, unknown> } = {},
  ) {
    const challenge = await this.waitFor((f) => f.type === "event" && f.event === "connect.challenge");
    const [minProtocol, maxProtocol] = options.protocol ?? [4, 4];
    const res = await this.request("connect", {
      minProtocol,
      maxProtocol,
      client: { id: "test", version: "1.0.0", platform: "workerd", mode: "test" },
      role: "operator",
      ...(options.scopes ? { scopes: options.scopes } : {}),
      auth: { token: options.token ?? DEV },
      ...options.extra,
    });
    return Object.assign(res, { challenge: challenge.payload });
  }

  send(frame: unknown) {
    this.ws.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  async request(method: string, params?: unknown, id = `r${++this.nextId}`, timeoutMs?: number): Promise<any> {
    this.send({ type: "req", id, method, ...(params !== undefined ? { params } : {}) });
    return this.waitFor((f) => f.type === "res" && f.id === id, timeoutMs);
  }

  async waitFor(match: (frame: any) => boolean, timeoutMs = 5000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(match);
      if (found) return found;
      if (this.closed)
        throw new Error(
          `socket closed ${this.closed.code} ${this.closed.reason}; frames: ${JSON.stringify(this.frames).slice(0, 500)}`,
        );
      if (Date.now() > deadline) throw new Error(`timed out; frames: ${JSON.stringify(this.frames).slice(0, 800)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async waitForClose(timeoutMs = 5000) {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error("socket did not close");
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.closed;
  }

  events(name: string) {
    return this.frames.filter((f) => f.type === "event" && f.event === name);
  }

  close() {
    try {
      this.ws.close(1000, "done");
    } catch {
      // already closed
    }
  }

  private wake() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
