import type { Context, MiddlewareHandler } from "hono";
import { constantTimeEqual } from "../../auth/tokens";
import type { TenantContext } from "../../domain/context";
import { logAuthFailure } from "../../http/auth-log";
import type { AppEnv } from "../../http/context";
import { toApiError } from "../../http/errors";
import { type HooksConfig, OWN_ROUTE_SEGMENTS, type TenantConfig } from "../../protocol/config";
import { TENANT_ID_PATTERN } from "../../protocol/http";
import { tenantApi, tenantContext } from "../../stubs";
import { announcesTooLarge, BODY_TOO_LARGE, discardBody, readBoundedText } from "../../util/bounded-body";
import {
  agentHookRequest,
  applyMapping,
  findMapping,
  HOOK_MAX_BODY_BYTES,
  HOOK_QUERY_TOKEN_TEXT,
  hooksBasePath,
  idempotencyKeyOf,
  presentedHookToken,
  wakeHookRequest,
} from "./hook-request";
import { agentHook, type HookAnswer, wakeHook } from "./hook-runs";

/**
 * OpenClaw's inbound webhooks at the tenant's base URL + `hooks.path` (`/t/<id>/hooks/…`, and
 * the default tenant's at `/hooks/…`): transport only — auth, body, statuses and texts as the
 * real gateway answers them (SPEC §2.1); what a hook does is in hook-runs.ts. A request whose
 * path is not the tenant's hooks path passes on to the other routes.
 */

// OpenClaw's content types, exactly. A refusal discards a body it did not read (bounded-body.ts).
const text = (c: Context<AppEnv>, status: 400 | 401 | 404 | 405, body: string) => {
  discardBody(c.req.raw);
  return c.body(body, status, { "content-type": "text/plain; charset=utf-8" });
};
const json = (c: Context<AppEnv>, answer: HookAnswer) =>
  c.body(JSON.stringify(answer.body), answer.status as 200, { "content-type": "application/json; charset=utf-8" });
const payloadTooLarge = (c: Context<AppEnv>) => {
  discardBody(c.req.raw);
  return json(c, { status: 413, body: { ok: false, error: "payload too large" } });
};

export const hookIngress: MiddlewareHandler<AppEnv> = async (c, next) => {
  const where = tenantPath(c);
  if (!where) return next();
  const config = await tenantApi(c.env, where.tenantId).config();
  const hooks = config.hooks;
  if (!hooks?.enabled) return next();
  const base = hooksBasePath(hooks);
  if (where.path !== base && !where.path.startsWith(`${base}/`)) return next();
  const url = new URL(c.req.url);
  if (url.searchParams.has("token")) {
    logAuthFailure(c, "hook token in the query", where.tenantId);
    return text(c, 400, HOOK_QUERY_TOKEN_TEXT);
  }
  // An announced body over the limit is refused before the token is even looked up (nothing read).
  if (c.req.method === "POST" && announcesTooLarge(c.req.raw.headers, HOOK_MAX_BODY_BYTES)) return payloadTooLarge(c);
  if (!(await tokenMatches(c, where.tenantId, hooks))) {
    logAuthFailure(c, "hook token missing or wrong", where.tenantId);
    return text(c, 401, "Unauthorized");
  }
  const action = where.path.slice(base.length).replace(/^\/+/, "").replace(/\/+$/, "");
  if (!action) return text(c, 404, "Not Found");
  if (c.req.method !== "POST") {
    const known = action === "agent" || action === "wake" || findMapping(hooks, action, {}) !== undefined;
    return known ? text(c, 405, "Method Not Allowed") : text(c, 404, "Not Found");
  }
  const body = await readBoundedText(c.req.raw, HOOK_MAX_BODY_BYTES, "discard");
  if (body === BODY_TOO_LARGE) return payloadTooLarge(c);
  let parsed: unknown;
  try {
    parsed = body.trim() === "" ? {} : JSON.parse(body);
  } catch (error) {
    return json(c, { status: 400, body: { ok: false, error: (error as Error).message } });
  }
  const payload = isObject(parsed) ? parsed : {};
  const ctx = hookContext(c, where.tenantId, config);
  const headers = Object.fromEntries([...c.req.raw.headers].map(([name, value]) => [name.toLowerCase(), value]));
  try {
    const answer = await dispatch(ctx, hooks, action, payload, headers, url);
    return answer === "not_found" ? text(c, 404, "Not Found") : json(c, answer);
  } catch (error) {
    const api = toApiError(error);
    return json(c, { status: api.status, body: { ok: false, error: api.message } });
  }
};

async function dispatch(
  ctx: TenantContext,
  hooks: HooksConfig,
  action: string,
  payload: Record<string, unknown>,
  headers: Record<string, string>,
  url: URL,
): Promise<HookAnswer | "not_found"> {
  const idempotencyKey = idempotencyKeyOf(headers, payload);
  const waitForCompletion = payload.waitForCompletion === true;
  if (action === "agent") {
    const request = agentHookRequest(payload);
    if (!request.ok) return { status: 400, body: request };
    return agentHook(ctx, hooks, request.value, { idempotencyKey, waitForCompletion, route: "agent" });
  }
  if (action === "wake") {
    const request = wakeHookRequest(payload);
    if (!request.ok) return { status: 400, body: request };
    return wakeHook(ctx, hooks, request.value);
  }
  const mapping = findMapping(hooks, action, payload);
  if (!mapping) return "not_found";
  const query = Object.fromEntries(url.searchParams);
  const mapped = applyMapping(mapping, { path: action, payload, headers, query });
  if (!mapped.ok) return { status: 400, body: mapped };
  if (mapped.value.kind === "wake") return wakeHook(ctx, hooks, mapped.value.request);
  const route = `mapping:${mapping.id ?? action}`;
  return agentHook(ctx, hooks, mapped.value.request, { idempotencyKey, waitForCompletion, route });
}

/** The tenant and the path below its base URL; null for this service's own routes. */
function tenantPath(c: Context<AppEnv>): { tenantId: string; path: string } | null {
  const pathname = new URL(c.req.url).pathname;
  const scoped = /^\/t\/([^/]+)(\/.*)?$/.exec(pathname);
  // Tenant ids are plain `[a-z0-9-]`: a segment that is not one (escaped or not) is no tenant of a hook.
  const tenantId = scoped ? scoped[1] : c.env.DEFAULT_TENANT;
  const path = scoped ? (scoped[2] ?? "") : pathname;
  if (!tenantId || !TENANT_ID_PATTERN.test(tenantId)) return null;
  // This service's own routes (and the base URL itself) are never a hook: no config read for them.
  const segment = path.split("/")[1] ?? "";
  if (segment === "" || OWN_ROUTE_SEGMENTS.has(segment)) return null;
  return { tenantId, path };
}

async function tokenMatches(c: Context<AppEnv>, tenantId: string, hooks: HooksConfig): Promise<boolean> {
  const presented = presentedHookToken(c.req.header("authorization"), c.req.header("x-openclaw-token"));
  if (!presented || !hooks.token) return false;
  const expected =
    typeof hooks.token === "string"
      ? hooks.token
      : (await tenantApi(c.env, tenantId).resolveSecret(hooks.token.id))?.value;
  return expected !== undefined && expected !== "" && constantTimeEqual(presented, expected);
}

/** The hook's caller: a principal that may start runs, nothing else. */
function hookContext(c: Context<AppEnv>, tenantId: string, config: TenantConfig): TenantContext {
  return tenantContext(c.env, {
    tenantId,
    config,
    principal: { kind: "operator", scopes: ["operator.write"] },
    origin: new URL(c.req.url).origin,
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
