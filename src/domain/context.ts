import type { Principal } from "../auth/principal";
import type { LedgerApi } from "../contracts/ledger-api";
import type { SessionApi } from "../contracts/session-api";
import type {
  TenantAccessApi,
  TenantAdminApi,
  TenantConfigApi,
  TenantIndexApi,
  TenantRunsApi,
  TenantSecretsApi,
} from "../contracts/tenant-api";
import type { SchedulerApi } from "../features/automations/scheduler-api";
import type { ChannelInboxApi } from "../features/channels/channel-inbox-api";
import type { MeteredBucket } from "../metering/metered-bucket";
import type { OutboundPolicy } from "../policy/outbound-url";
import type { TenantConfig } from "../protocol/config";

/** The tenant object's roles by name (contracts/tenant-api.ts). */
type TenantRoles = {
  access: TenantAccessApi;
  admin: TenantAdminApi;
  config: TenantConfigApi;
  index: TenantIndexApi;
  runs: TenantRunsApi;
  secrets: TenantSecretsApi;
};
export type TenantRole = keyof TenantRoles;

/** The tenant port of the named roles (`never`: none, `TenantRole`: every one a context carries). */
export type TenantPort<Role extends TenantRole> = UnionToIntersection<TenantRoles[Role]>;
type UnionToIntersection<U> = (U extends unknown ? (arg: U) => void : never) extends (arg: infer I) => void
  ? I
  : unknown;

/**
 * Everything a domain operation needs about the calling tenant, as ports: built by
 * `tenantContext` (stubs.ts) for the worker and the hubs, with the in-process ports inside the
 * tenant object (tenant/in-process-ports.ts). `Role` names what of the tenant object an
 * operation may call: `TenantContext<"index" | "runs">`; a context built carries them all.
 */
export type TenantContext<in Role extends TenantRole = TenantRole> = {
  tenantId: string;
  config: Readonly<TenantConfig>;
  principal: Principal;
  /** Public origin of the request (`https://host`), for callback URLs. */
  origin?: string;
  /** The gateway client making the request (WebSocket callers only). */
  client?: { id: string; mode: string };
  /** When the gateway object serving the socket started (WebSocket callers only): its uptime. */
  gatewayStartedAt?: number;
  tenant: TenantPort<Role>;
  sessions(key: string): SessionApi;
  /** sessions_spawn attachments. */
  attachments: MeteredBucket;
  /** The tenant's automations (its scheduler object). */
  scheduler: SchedulerApi;
  /** The tenant's usage rollup and log lines (its ledger object). */
  ledger: LedgerApi;
  /** The tenant's channel inbox (chat updates, pairing requests). */
  channelInbox: ChannelInboxApi;
  /** Where URLs in the tenant's config may point (checked when config is written). */
  outbound: OutboundPolicy;
  /**
   * Retires the tenant's access grants in the cache of the data center this request runs in
   * (a worker's; the tenant object retires those of its own, which may be elsewhere).
   */
  retireGrants?(): Promise<void>;
};

/** The ports of a context: the worker's stubs (stubs.ts `tenantPorts`), or the tenant object's in-process ones. */
export type TenantPorts = Pick<
  TenantContext,
  "tenant" | "sessions" | "attachments" | "scheduler" | "ledger" | "channelInbox" | "outbound"
>;
