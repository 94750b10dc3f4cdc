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

/** Polls `check` (resolving `{ done, … }`) every 250 ms until done; fails naming `what` and the last answer. */
export async function waitFor(what, check, deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  let last;
  while (Date.now() < deadline) {
    last = await check().catch((error) => ({ done: false, why: error.message }));
    if (last.done) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what}: not reached within ${deadlineMs / 1000} s (${JSON.stringify(last)?.slice(0, 400)})`);
}

/** Waits until `find()` answers at least `count` items (calls at a fake, rows); answers them. */
export async function waitForCount(what, find, count = 1, deadlineMs = 30_000) {
  const check = async () => {
    const found = await find();
    return { done: found.length >= count, count: found.length, found };
  };
  return (await waitFor(what, check, deadlineMs)).found;
}

/** Creates tenant `id` with the admin token and answers an operator token with every scope. */
export async function createTenantToken(baseUrl, id, adminToken = "dev-admin-token") {
  const authorization = `Bearer ${adminToken}`;
  const created = await httpJson(baseUrl, "POST", "/v1/admin/tenants", { authorization, body: { id } });
  if (created.status !== 201) throw new Error(`create tenant ${id}: ${created.status} ${created.text}`);
  const issued = await httpJson(baseUrl, "POST", `/v1/admin/tenants/${id}/tokens`, {
    authorization,
    body: { scopes: ["operator.read", "operator.write", "operator.admin"] },
  });
  if (issued.status !== 201) throw new Error(`token for ${id}: ${issued.status} ${issued.text}`);
  return issued.json.token;
}

/** Listens on a free port of 127.0.0.1; answers `{ url, close, ...extra }` once it listens. */
export function listenLoopback(server, extra = {}) {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        close: () => new Promise((done) => server.close(done)),
        ...extra,
      }),
    ),
  );
}

/**
 * wrangler vars of the e2e files that SIGKILL a server mid-run: the run watchdog (60 s in a
 * deployment) checks every 5 s, so a run cut off by the kill is resumed seconds after the restart
 * instead of a minute (the rule proven is the same: resumed once, never twice, never lost).
 */
export const CRASH_TEST_VARS = {
  RUN_WATCHDOG_MS: "5000",
  // `CHANNEL_INBOX_LANES=1 npm run test:e2e -- crash`: the kills with one turn start at a time (8 lanes by default).
  ...(process.env.CHANNEL_INBOX_LANES ? { CHANNEL_INBOX_LANES: process.env.CHANNEL_INBOX_LANES } : {}),
};
