import type { DirectoryApi } from "./contracts/directory-api";
import type { HubApi } from "./contracts/hub-api";
import type { LedgerApi } from "./contracts/ledger-api";
import type { SessionApi } from "./contracts/session-api";
import type { TenantApi } from "./contracts/tenant-api";
import type { TenantContext, TenantPorts } from "./domain/context";
import type { SchedulerApi } from "./features/automations/scheduler-api";
import type { ChannelInboxApi } from "./features/channels/channel-inbox-api";
import { sessionObjectName } from "./keys/object-names";
import { attachmentsOf } from "./metering/metered-env";
import { type OutboundEnv, outboundPolicy, serviceOrigin } from "./policy/outbound-url";

/*
 * The one place that turns a Durable Object binding into a port: a session object per
 * `<tenantId>/<canonical key>` (named in keys/object-names.ts, which the engines read too;
 * re-exported here), a tenant object per tenant id. A stub speaks its class's RPC surface,
 * which the class declares with `implements`.
 */
export { objectKnowsItsName, parseSessionObjectName, sessionObjectName } from "./keys/object-names";

type Namespace = { getByName(name: string): unknown };
export type ObjectBindings = {
  SESSIONS: Namespace;
  TENANTS: Namespace;
  SCHEDULER: Namespace;
  LEDGER: Namespace;
  CHANNEL_INBOX: Namespace;
};

/** The one directory object of a deployment. */
export const DIRECTORY_NAME = "directory";

export function sessionApi(env: Pick<ObjectBindings, "SESSIONS">, tenantId: string, key: string): SessionApi {
  return env.SESSIONS.getByName(sessionObjectName(tenantId, key)) as SessionApi;
}

export function tenantApi(env: Pick<ObjectBindings, "TENANTS">, tenantId: string): TenantApi {
  return env.TENANTS.getByName(tenantId) as TenantApi;
}

/**
 * A session port with some of its calls taken over (tenant/in-process-ports.ts,
 * gateway/gated-runs.ts); every other call goes to the stub as it is (a stub is a proxy of its
 * object's methods, so it cannot be spread).
 */
export function sessionWith(session: SessionApi, overrides: Partial<SessionApi>): SessionApi {
  return new Proxy(session, {
    get: (target, name) =>
      Object.hasOwn(overrides, name) ? overrides[name as keyof SessionApi] : Reflect.get(target, name),
  });
}

/** A gateway hub object of a tenant (`<tenantId>#<n>`, n ≥ 1; hub 0 is the tenant object). */
export function hubApi(env: { HUBS: Namespace }, tenantId: string, hub: number): HubApi {
  return env.HUBS.getByName(`${tenantId}#${hub}`) as HubApi;
}

export function parseHubObjectName(name: string | undefined): { tenantId: string; hub: number } {
  const at = name?.lastIndexOf("#") ?? -1;
  if (!name || at <= 0) throw new Error(`not a gateway hub object name: ${name}`);
  return { tenantId: name.slice(0, at), hub: Number(name.slice(at + 1)) };
}

/** A tenant's scheduler object (its automations), named by the tenant id. */
export function schedulerApi(env: { SCHEDULER: Namespace }, tenantId: string): SchedulerApi {
  return env.SCHEDULER.getByName(tenantId) as SchedulerApi;
}

/** A tenant's channel inbox object (accepted chat updates, pairing), named by the tenant id. */
export function channelInboxApi(env: { CHANNEL_INBOX: Namespace }, tenantId: string): ChannelInboxApi {
  return env.CHANNEL_INBOX.getByName(tenantId) as ChannelInboxApi;
}

/** A tenant's ledger object (usage rollup and log lines), named by the tenant id. */
export function ledgerApi(env: { LEDGER: Namespace }, tenantId: string): LedgerApi {
  return env.LEDGER.getByName(tenantId) as LedgerApi;
}

export function directoryApi(env: { DIRECTORY: Namespace }): DirectoryApi {
  return env.DIRECTORY.getByName(DIRECTORY_NAME) as DirectoryApi;
}

/** The ports a TenantContext carries, built from the worker's bindings. */
export function tenantPorts(
  env: ObjectBindings & { ATTACHMENTS: R2Bucket } & OutboundEnv,
  tenantId: string,
  /** The origin the caller's request reached (its own origin counts as the service's). */
  requestOrigin?: string,
): TenantPorts {
  return {
    outbound: outboundPolicy(env, requestOrigin),
    tenant: tenantApi(env, tenantId),
    scheduler: schedulerApi(env, tenantId),
    ledger: ledgerApi(env, tenantId),
    channelInbox: channelInboxApi(env, tenantId),
    sessions: (key) => sessionApi(env, tenantId, key),
    attachments: attachmentsOf(env),
  };
}

/** Who calls the domain, and from where: a TenantContext but its ports. */
export type TenantCaller = Omit<TenantContext, keyof TenantPorts | "origin"> & {
  /**
   * The URL (or origin) the caller's request reached: the context's origin is the service's
   * (PUBLIC_ORIGIN, else this one's), and URLs in the config may name this one.
   */
  requestUrl?: string;
  /** The public origin when no request brings it (a scheduled run, a run's own tool calls): as it is. */
  origin?: string;
};

/**
 * The one way a TenantContext is built: the caller over the tenant's ports, the worker's
 * stubs unless others are given (the tenant object's in-process ones, tenant/in-process-ports.ts).
 */
export function tenantContext(
  env: ObjectBindings & { ATTACHMENTS: R2Bucket } & OutboundEnv,
  caller: TenantCaller,
  ports: TenantPorts = tenantPorts(env, caller.tenantId, requestOrigin(caller.requestUrl)),
): TenantContext {
  const { requestUrl, origin, ...who } = caller;
  const publicOrigin = requestUrl !== undefined ? serviceOrigin(env, requestUrl) : origin;
  return { ...ports, ...who, ...(publicOrigin !== undefined ? { origin: publicOrigin } : {}) };
}

function requestOrigin(requestUrl: string | undefined): string | undefined {
  return requestUrl === undefined ? undefined : new URL(requestUrl).origin;
}
