import type { Principal } from "../auth/principal";
import type { ChannelInboxApi } from "../contracts/channel-inbox-api";
import type { LedgerApi } from "../contracts/ledger-api";
import type { SchedulerApi } from "../contracts/scheduler-api";
import type { SessionApi } from "../contracts/session-api";
import type { TenantApi } from "../contracts/tenant-api";
import type { OutboundPolicy } from "../policy/outbound-url";
import type { TenantConfig } from "../protocol/config";

/**
 * Everything a domain operation needs about the calling tenant, as ports: the transports
 * build it (the worker from stubs, the gateway inside the tenant object from itself).
 */
export type TenantContext = {
  tenantId: string;
  config: Readonly<TenantConfig>;
  principal: Principal;
  /** Public origin of the request (`https://host`), for callback URLs. */
  origin?: string;
  /** The gateway client making the request (WebSocket callers only). */
  client?: { id: string; mode: string };
  /** When the gateway object serving the socket started (WebSocket callers only): its uptime. */
  gatewayStartedAt?: number;
  tenant: TenantApi;
  /** `tenant` is the tenant object itself (a gateway socket it holds): no call to reach it. */
  tenantInProcess?: boolean;
  sessions(key: string): SessionApi;
  /** sessions_spawn attachments. */
  attachments: R2Bucket;
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
