import type { SessionApi } from "./contracts/session-api";
import type { TenantApi } from "./contracts/tenant-api";

/**
 * The one place that knows how Durable Objects are named and turns a binding into a port:
 * a session object per `<tenantId>/<canonical key>`, a tenant object per tenant id.
 * A stub speaks its class's RPC surface, which the class declares with `implements`.
 */

type Namespace = { getByName(name: string): unknown };
export type ObjectBindings = { SESSIONS: Namespace; TENANTS: Namespace };

export function sessionObjectName(tenantId: string, key: string): string {
  return `${tenantId}/${key}`;
}

export function sessionApi(env: ObjectBindings, tenantId: string, key: string): SessionApi {
  return env.SESSIONS.getByName(sessionObjectName(tenantId, key)) as SessionApi;
}

export function tenantApi(env: ObjectBindings, tenantId: string): TenantApi {
  return env.TENANTS.getByName(tenantId) as TenantApi;
}

/** The ports a TenantContext carries, built from the worker's bindings. */
export function tenantPorts(
  env: ObjectBindings & { ATTACHMENTS: R2Bucket },
  tenantId: string,
): { tenant: TenantApi; sessions(key: string): SessionApi; attachments: R2Bucket } {
  return {
    tenant: tenantApi(env, tenantId),
    sessions: (key) => sessionApi(env, tenantId, key),
    attachments: env.ATTACHMENTS,
  };
}
