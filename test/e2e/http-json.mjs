// One HTTP call to a `wrangler dev` of the service, as every end-to-end test makes it: JSON in,
// the answer's status, text and parsed JSON (undefined when it is not JSON) out.

/**
 * `authorization` is the whole header value (`Bearer …`), or null for none.
 * Returns `{ status, json, text, headers }`.
 */
export async function httpJson(baseUrl, method, path, { authorization = null, body, timeoutMs = 10_000 } = {}) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(authorization ? { authorization } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}
