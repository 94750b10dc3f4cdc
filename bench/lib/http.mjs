// A small fetch wrapper for suites: fixed base URL and token, status checks, timeouts.

export const DEV_OPERATOR_TOKEN = "dev-operator-token";
const REQUEST_TIMEOUT_MS = 30_000;

export class HttpError extends Error {
  constructor(method, path, status, body) {
    super(`${method} ${path} → ${status}${body ? `: ${body.slice(0, 300)}` : ""}`);
    this.status = status;
    this.body = body;
  }
}

/**
 * `client.request(method, path, { body, expect, auth, timeoutMs })` sends one request, reads the
 * whole response body, and throws HttpError unless the status equals `expect` (default 200).
 * Returns `{ status, text }`. Network errors, timeouts and an aborted `signal` throw as well.
 */
export function httpClient(baseUrl, { token = DEV_OPERATOR_TOKEN, signal } = {}) {
  const abortSignal = (ms) => (signal ? AbortSignal.any([signal, AbortSignal.timeout(ms)]) : AbortSignal.timeout(ms));
  async function request(method, path, { body, expect = 200, auth = true, timeoutMs = REQUEST_TIMEOUT_MS } = {}) {
    const headers = {};
    if (auth && token) headers.authorization = `Bearer ${token}`;
    let payload;
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      payload = typeof body === "string" ? body : JSON.stringify(body);
    }
    signal?.throwIfAborted();
    let res;
    try {
      res = await fetch(baseUrl + path, { method, headers, body: payload, signal: abortSignal(timeoutMs) });
    } catch (error) {
      const kind = error.cause?.code ?? error.name;
      throw Object.assign(new Error(`${method} ${path} failed: ${kind} ${error.cause?.message ?? error.message}`), {
        kind,
      });
    }
    const text = await res.text();
    if (res.status !== expect) throw new HttpError(method, path, res.status, text);
    return { status: res.status, text };
  }
  return {
    baseUrl,
    request,
    get: (path, opts) => request("GET", path, opts),
    post: (path, body, opts) => request("POST", path, { ...opts, body }),
  };
}
