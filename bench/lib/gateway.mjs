// A minimal gateway (WebSocket) client for suites: handshake, requests by id, event listeners.
// Every wait is bounded by a timeout; nothing retries.
import { performance } from "node:perf_hooks";
import WebSocket from "ws";
import { DEV_OPERATOR_TOKEN } from "./http.mjs";

const DEFAULT_TIMEOUT_MS = 15_000;

/** The WebSocket URL of the default tenant's gateway for an http:// base URL. */
export function gatewayUrl(baseUrl) {
  const url = new URL(baseUrl);
  if (url.hostname !== "127.0.0.1")
    throw new Error(`refusing to connect to ${url.hostname}: only 127.0.0.1 is allowed`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.pathname = "/";
  return url.href;
}

export const CONNECT_CLIENT = { id: "test", version: "1", platform: "linux", mode: "test" };

/** Text of a transcript message whose content is a string or an array of blocks. */
export function messageText(message) {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((b) => (typeof b?.text === "string" ? b.text : "")).join("");
  return "";
}

export class GatewayError extends Error {
  constructor(message, kind = "gateway") {
    super(message);
    this.kind = kind;
  }
}

/**
 * One gateway connection. `await GatewayConn.open(url)` resolves once the handshake is done
 * (connect.challenge → connect → hello-ok) and carries `timing: { openMs, challengeMs, helloMs }`
 * (all measured from the start of open()).
 */
export class GatewayConn {
  constructor(ws) {
    this.ws = ws;
    this.pending = new Map(); // id → { resolve, reject, timer }
    this.listeners = new Set(); // (frame) => void, for events
    this.closed = null;
    this.closeWaiters = [];
    this.nextId = 0;
    this.framesReceived = 0;
    this.badFrames = 0;
    this.hello = null;
    ws.on("message", (data, isBinary) => {
      this.framesReceived++;
      if (this.rawListener) return this.rawListener(data, isBinary);
      let frame;
      try {
        frame = JSON.parse(isBinary ? Buffer.from(data).toString("utf8") : data.toString());
      } catch {
        this.badFrames++;
        return;
      }
      if (frame?.type === "res") {
        const listener = this.resListeners?.get(frame.id);
        if (listener) return listener(frame);
        const waiter = this.pending.get(frame.id);
        if (waiter) {
          this.pending.delete(frame.id);
          clearTimeout(waiter.timer);
          waiter.resolve(frame);
        }
        return;
      }
      for (const listener of this.listeners) listener(frame);
    });
    ws.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      const error = new GatewayError(`socket closed (${code} ${this.closed.reason})`, "closed");
      for (const waiter of this.pending.values()) {
        clearTimeout(waiter.timer);
        waiter.reject(error);
      }
      this.pending.clear();
      for (const w of this.closeWaiters) w(this.closed);
      this.closeWaiters = [];
    });
    // 'error' is followed by 'close'; without a listener it would throw.
    ws.on("error", (error) => {
      this.lastError = error;
    });
  }

  static async open(
    url,
    { token = DEV_OPERATOR_TOKEN, timeoutMs = DEFAULT_TIMEOUT_MS, signal, client = CONNECT_CLIENT, scopes } = {},
  ) {
    signal?.throwIfAborted();
    const t0 = performance.now();
    const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: timeoutMs });
    const conn = new GatewayConn(ws);
    try {
      // Registered synchronously after construction, so the challenge cannot be missed.
      const challenge = await conn.waitForEvent((f) => f.event === "connect.challenge", timeoutMs);
      const challengeMs = performance.now() - t0;
      if (typeof challenge.payload?.nonce !== "string")
        throw new GatewayError(
          `connect.challenge without nonce: ${JSON.stringify(challenge).slice(0, 200)}`,
          "protocol",
        );
      const res = await conn.request(
        "connect",
        { minProtocol: 4, maxProtocol: 4, client, role: "operator", ...(scopes ? { scopes } : {}), auth: { token } },
        timeoutMs,
      );
      if (!res.ok || res.payload?.type !== "hello-ok") {
        throw new GatewayError(
          `connect refused: ${JSON.stringify(res.error ?? res.payload).slice(0, 300)}`,
          "handshake",
        );
      }
      conn.hello = res.payload;
      conn.timing = { challengeMs, helloMs: performance.now() - t0 };
      return conn;
    } catch (error) {
      conn.terminate();
      throw error;
    }
  }

  /** Sends a request; resolves with the `res` frame (ok or not). Rejects on timeout or close. */
  request(method, params, timeoutMs = DEFAULT_TIMEOUT_MS, id = `r${++this.nextId}`) {
    return new Promise((resolve, reject) => {
      if (this.closed)
        return reject(new GatewayError(`socket closed (${this.closed.code}) before ${method}`, "closed"));
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new GatewayError(`${method}: no response within ${timeoutMs} ms`, "timeout"));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      try {
        this.ws.send(JSON.stringify({ type: "req", id, method, ...(params !== undefined ? { params } : {}) }));
      } catch (error) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new GatewayError(`${method}: send failed: ${error.message}`, "send"));
      }
    });
  }

  /**
   * A request answered twice with the same id (OpenClaw's `agent`: accepted, then final):
   * resolves with the final payload; throws on an error frame or timeout.
   */
  twoPhase(method, params, timeoutMs = DEFAULT_TIMEOUT_MS) {
    const id = `r${++this.nextId}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new GatewayError(`${method}: no final answer within ${timeoutMs} ms`, "timeout"));
      }, timeoutMs);
      const off = this.onRes(id, (frame) => {
        if (!frame.ok) {
          clearTimeout(timer);
          off();
          reject(new GatewayError(`${method} failed: ${JSON.stringify(frame.error).slice(0, 300)}`, "refused"));
        } else if (frame.payload?.status !== "accepted") {
          clearTimeout(timer);
          off();
          resolve(frame.payload);
        }
      });
      this.ws.send(JSON.stringify({ type: "req", id, method, params }));
    });
  }

  /** Every `res` frame with this id (not only the first); returns a function removing it. */
  onRes(id, listener) {
    this.resListeners ??= new Map();
    this.resListeners.set(id, listener);
    return () => this.resListeners.delete(id);
  }

  /** A request that must answer ok: returns the payload, else throws. */
  async call(method, params, timeoutMs) {
    const res = await this.request(method, params, timeoutMs);
    if (!res.ok) throw new GatewayError(`${method} failed: ${JSON.stringify(res.error).slice(0, 300)}`, "refused");
    return res.payload;
  }

  /**
   * Hands every later frame to `listener(data, isBinary)` unparsed (a Buffer), instead of parsing
   * it for requests and event listeners: for receivers that must stay cheap per frame. Returns a
   * function restoring the parsing.
   */
  onRawFrame(listener) {
    this.rawListener = listener;
    return () => {
      if (this.rawListener === listener) this.rawListener = undefined;
    };
  }

  /** Adds an event listener; returns a function removing it. */
  onEvent(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first event frame matching `match` (arriving after this call). */
  waitForEvent(match, timeoutMs = DEFAULT_TIMEOUT_MS) {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new GatewayError(`socket closed (${this.closed.code})`, "closed"));
      let off;
      const timer = setTimeout(() => {
        off();
        offClose();
        reject(new GatewayError(`no matching event within ${timeoutMs} ms`, "timeout"));
      }, timeoutMs);
      const offClose = this.onClose((info) => {
        clearTimeout(timer);
        off();
        reject(
          new GatewayError(
            `socket closed (${info.code} ${info.reason}) while waiting for an event${this.lastError ? `: ${this.lastError.message}` : ""}`,
            "closed",
          ),
        );
      });
      off = this.onEvent((frame) => {
        if (frame?.type !== "event" || !match(frame)) return;
        clearTimeout(timer);
        off();
        offClose();
        resolve(frame);
      });
    });
  }

  onClose(callback) {
    if (this.closed) {
      callback(this.closed);
      return () => {};
    }
    this.closeWaiters.push(callback);
    return () => {
      this.closeWaiters = this.closeWaiters.filter((w) => w !== callback);
    };
  }

  /** Closes cleanly and waits for the close (bounded); terminates when the peer does not answer. */
  close(timeoutMs = 5_000) {
    if (this.closed) return Promise.resolve({ ...this.closed, clean: true });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.terminate();
        resolve({ code: null, clean: false });
      }, timeoutMs);
      this.onClose((info) => {
        clearTimeout(timer);
        resolve({ ...info, clean: true });
      });
      try {
        this.ws.close(1000, "bench done");
      } catch {
        this.terminate();
      }
    });
  }

  terminate() {
    try {
      this.ws.terminate();
    } catch {
      // already gone
    }
  }
}

/**
 * Opens `count` connections, `concurrency` handshakes at a time, within `maxSeconds`.
 * Returns { conns, errors, errorSamples, seconds, timing: [helloMs…] }. Failed opens are counted,
 * never retried.
 */
export async function openMany(
  url,
  { count, concurrency = 16, maxSeconds = 120, signal, timeoutMs, connect = {} } = {},
) {
  const conns = [];
  const timing = [];
  const errorSamples = [];
  let errors = 0;
  let next = 0;
  const t0 = performance.now();
  const deadline = t0 + maxSeconds * 1000;
  let timedOut = false;
  async function worker() {
    while (next < count) {
      if (signal?.aborted) return;
      if (performance.now() > deadline) {
        timedOut = true;
        return;
      }
      next++;
      try {
        const conn = await GatewayConn.open(url, { ...connect, signal, ...(timeoutMs ? { timeoutMs } : {}) });
        conns.push(conn);
        timing.push(conn.timing.helloMs);
      } catch (error) {
        errors++;
        if (errorSamples.length < 5) errorSamples.push(String(error?.message ?? error));
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(count, 1)) }, worker));
  return { conns, errors, errorSamples, timedOut, seconds: (performance.now() - t0) / 1000, timing };
}

/** Closes every connection (bounded, in parallel chunks); returns how many did not close cleanly. */
export async function closeAll(conns, { chunk = 200, timeoutMs = 5_000 } = {}) {
  let unclean = 0;
  for (let i = 0; i < conns.length; i += chunk) {
    const results = await Promise.all(conns.slice(i, i + chunk).map((c) => c.close(timeoutMs)));
    unclean += results.filter((r) => !r.clean).length;
  }
  return unclean;
}
