import type { Context, MiddlewareHandler } from "hono";
import { authenticate } from "../auth/authenticate";
import { retireSharedAccess } from "../auth/grant-cache";
import { hasScope } from "../auth/principal";
import { bearerToken } from "../auth/tokens";
import type { TenantContext } from "../domain/context";
import { type OperatorScope, TENANT_ID_PATTERN } from "../protocol/http";
import { tenantContext } from "../stubs";
import { logAuthFailure } from "./auth-log";
import { forbidden, notFound, runEnded, unauthorized } from "./errors";
import { ticketAuth } from "./stream-ticket-auth";

export type AppEnv = { Bindings: Env; Variables: { tenant: TenantContext } };
export type AppContext = Context<AppEnv>;

/**
 * Resolves the tenant (`/t/<id>/…`, or DEFAULT_TENANT at the root) and authenticates the
 * bearer token against that tenant only. Failures never say whether the tenant exists.
 */
export const tenantAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const tenantId = c.req.param("tenantId") ?? c.env.DEFAULT_TENANT;
  if (!tenantId) throw notFound("No default tenant is configured; use /t/<tenantId>/…");
  const token = bearerToken(c.req.header("authorization"));
  const ticket = token ? undefined : c.req.query("ticket");
  if (ticket !== undefined && TENANT_ID_PATTERN.test(tenantId)) return ticketAuth(c, next, tenantId, ticket);
  const refuse = (reason: string) => logAuthFailure(c, reason, TENANT_ID_PATTERN.test(tenantId) ? tenantId : undefined);
  if (!token || !TENANT_ID_PATTERN.test(tenantId)) {
    refuse(token ? "invalid tenant id" : "no bearer token");
    throw unauthorized();
  }
  const access = await authenticate(c.env, tenantId, token);
  if (access === "wrong_tenant") {
    refuse("run token of another tenant");
    throw forbidden("run token belongs to another tenant");
  }
  if (!access) {
    refuse("token not valid for this tenant");
    throw unauthorized();
  }
  c.set(
    "tenant",
    tenantContext(c.env, {
      tenantId,
      config: access.config,
      principal: access.principal,
      requestUrl: c.req.url,
      retireGrants: () => retireSharedAccess(c.env, tenantId),
    }),
  );
  await next();
};

/**
 * Operators need `scope`; run tokens pass only where `allowRunToken` says so, and only while
 * their run is active, unless `allowEndedRun` (a late callback is still acknowledged).
 */
export function requireScope(
  scope: OperatorScope,
  options: { allowRunToken?: boolean; allowEndedRun?: boolean } = {},
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = c.var.tenant.principal;
    if (principal.kind === "run" && options.allowRunToken) {
      if (!principal.runActive && !options.allowEndedRun) throw runEnded();
      return next();
    }
    if (principal.kind === "run") throw forbidden("run tokens may only call tools and their run's callbacks");
    if (!hasScope(principal, scope)) throw forbidden(`missing scope: ${scope}`);
    await next();
  };
}
