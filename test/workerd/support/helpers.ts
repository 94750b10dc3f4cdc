import { exports } from "cloudflare:workers";

/** Test helpers: drive the worker exactly as an HTTP client would. */

export const ADMIN = "test-admin-token";
export const DEV = "test-operator-token";

export async function call(path: string, init: RequestInit & { token?: string | null; json?: unknown } = {}) {
  const headers = new Headers(init.headers);
  const token = init.token === undefined ? DEV : init.token;
  if (token) headers.set("authorization", `Bearer ${token}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  const res = await exports.default.fetch(`http://svc.test${path}`, { ...init, headers, body });
  const text = new TextDecoder().decode(await res.arrayBuffer());
  let data: any;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = text;
  }
  return { status: res.status, data, text, headers: res.headers };
}

export async function createTenant(id: string) {
  const res = await call("/v1/admin/tenants", { method: "POST", token: ADMIN, json: { id } });
  if (res.status !== 201) throw new Error(`create tenant ${id}: ${res.status} ${res.text}`);
}

export async function issueToken(
  tenant: string,
  scopes: string[] = ["operator.read", "operator.write", "operator.admin"],
) {
  const res = await call(`/v1/admin/tenants/${tenant}/tokens`, { method: "POST", token: ADMIN, json: { scopes } });
  if (res.status !== 201) throw new Error(`issue token: ${res.status} ${res.text}`);
  return res.data as { tokenId: string; token: string; scopes: string[] };
}

/** Grants a deployment key (MODEL_KEY_*) to a tenant, as the operator does (docs/secrets.md). */
export async function grantDeploymentKey(tenant: string, name: string) {
  const res = await call(`/v1/admin/tenants/${tenant}/deployment-keys/${name}`, { method: "PUT", token: ADMIN });
  if (res.status !== 201 && res.status !== 200) throw new Error(`grant ${name}: ${res.status} ${res.text}`);
  return res.data;
}

export async function append(
  key: string,
  message: Record<string, unknown>,
  opts: { token?: string; prefix?: string } = {},
) {
  return call(`${opts.prefix ?? ""}/v1/sessions/${encodeURIComponent(key)}/messages`, {
    method: "POST",
    json: message,
    ...(opts.token ? { token: opts.token } : {}),
  });
}

export async function history(key: string, query = "", opts: { token?: string; prefix?: string } = {}) {
  return call(
    `${opts.prefix ?? ""}/sessions/${encodeURIComponent(key)}/history${query}`,
    opts.token ? { token: opts.token } : {},
  );
}

export const user = (text: string, extra: Record<string, unknown> = {}) => ({ role: "user", content: text, ...extra });

/** A fresh tenant with an all-scopes token, so a test owns its config and its session index. */
export async function freshTenant(label = "t") {
  const id = `${label}-${crypto.randomUUID().slice(0, 8)}`;
  await createTenant(id);
  const { token } = await issueToken(id);
  const prefix = `/t/${id}`;
  const req = (path: string, init: Parameters<typeof call>[1] = {}) => call(`${prefix}${path}`, { token, ...init });
  return {
    id,
    token,
    prefix,
    call: req,
    append: (key: string, message: Record<string, unknown>) => append(key, message, { token, prefix }),
    patch: (key: string, fields: Record<string, unknown>) =>
      req(`/v1/sessions/${encodeURIComponent(key)}`, { method: "PATCH", json: fields }),
    list: (query = "") => req(`/v1/sessions${query}`),
    config: (config: Record<string, unknown>) => req("/v1/config", { method: "PUT", json: config }),
    invoke: (tool: string, args?: unknown, extra: Record<string, unknown> = {}) =>
      req("/tools/invoke", { method: "POST", json: { tool, ...(args === undefined ? {} : { args }), ...extra } }),
  };
}
export type TestTenant = Awaited<ReturnType<typeof freshTenant>>;

/** Polls `probe` until `done` accepts its value (bounded; the error shows the last value). */
export async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value)?.slice(0, 600)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits until the tenant's `channel` inbox has handled `count` updates and holds none pending (a held update counts as pending). */
export async function untilInboxHandled(t: TestTenant, count: number, channel = "telegram"): Promise<void> {
  await until(
    async () => (await t.call("/v1/channels/status")).data.channelAccounts[channel][0],
    (account: { pendingUpdates: number; handledUpdates: number }) =>
      account.pendingUpdates === 0 && account.handledUpdates === count,
  );
}
