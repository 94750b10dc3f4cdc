import { createApp } from "./app";
import { SchedulerObject as Scheduler } from "./features/automations/scheduler-object";
import { ChannelInboxObject as ChannelInbox } from "./features/channels/channel-inbox-object";
import { chatActivity } from "./features/channels/chat-typing";
import { channelSenderOf } from "./features/channels/platforms";
import { queueChannelReply } from "./features/channels/reply";
import { queueHookReply } from "./features/hooks/hook-delivery";
import { GatewayHubObject as GatewayHub } from "./gateway-hub-object";
import { LedgerObject as Ledger } from "./ledger/ledger-object";
import { installLedgerLogSink } from "./ledger/log-sink";
import { RequestR2Tally, withMeteredAttachments } from "./metering/metered-env";
import { meteredObject, type SinkFor } from "./metering/metered-object";
import { r2Units, utcDay, WORKER_CLASS } from "./metering/object-units";
import { ledgerSink, tenantOfObject } from "./metering/units-sinks";
import { unitsStoreOf } from "./metering/units-store";
import type { ReplyRoutes } from "./session/reply-routes";
import { SessionObject as Session } from "./session/session-object";
import { GATEWAY_METHODS } from "./slices";
import { ledgerApi } from "./stubs";
import { TenantObject as Tenant } from "./tenant/tenant-object";

export { DirectoryObject } from "./directory/directory-object";

/*
 * The tenant's objects count what they bill (src/metering/, docs/operations.md "What a tenant
 * costs"): each class is wrapped here, where the worker exports it. The ledger keeps its own
 * units in its store; the others hand theirs to the tenant's ledger. The directory is the
 * deployment's and not metered.
 */
const toLedger: SinkFor = (ctx, env) => {
  const tenantId = tenantOfObject(ctx.id.name);
  return tenantId ? ledgerSink((id) => ledgerApi(env, id), tenantId) : null;
};
const inOwnStore: SinkFor = (ctx) => {
  const units = unitsStoreOf(ctx);
  return (date, _objectClass, burst) => units.addOwn(date, burst);
};

/*
 * What the objects need from above them is handed in here, where they are assembled, so no object
 * imports a feature (docs/architecture.md, "The dependency rule"): the session object gets the doors
 * a run's reply leaves by (chats, hooks), the tenant and hub objects the gateway's method table.
 */
const REPLY_ROUTES: ReplyRoutes = {
  queueReply: [queueChannelReply, queueHookReply],
  channelSender: channelSenderOf,
  chatActivity,
};
class WiredSession extends Session {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, REPLY_ROUTES);
  }
}
class WiredTenant extends Tenant {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, GATEWAY_METHODS);
  }
}
class WiredGatewayHub extends GatewayHub {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, GATEWAY_METHODS);
  }
}

// Each class is also exported as a type of its name, for the bindings' generated types.
export const SessionObject = meteredObject(WiredSession, "SessionObject", toLedger);
export type SessionObject = Session;
export const TenantObject = meteredObject(WiredTenant, "TenantObject", toLedger);
export type TenantObject = Tenant;
export const GatewayHubObject = meteredObject(WiredGatewayHub, "GatewayHubObject", toLedger);
export type GatewayHubObject = GatewayHub;
export const SchedulerObject = meteredObject(Scheduler, "SchedulerObject", toLedger);
export type SchedulerObject = Scheduler;
export const ChannelInboxObject = meteredObject(ChannelInbox, "ChannelInboxObject", toLedger);
export type ChannelInboxObject = ChannelInbox;
export const LedgerObject = meteredObject(Ledger, "LedgerObject", inOwnStore);
export type LedgerObject = Ledger;

const app = createApp();

/*
 * The worker's own R2 calls (a sessions_spawn with attachments from /tools/invoke or MCP) are
 * counted per request and handed to each tenant's ledger once the response is made: one RPC per
 * tenant, for a request that called R2 (src/metering/metered-env.ts).
 */
export default {
  fetch: async (request, env, ctx) => {
    installLedgerLogSink(env);
    const r2 = new RequestR2Tally(
      async (tenantId, units) => ledgerApi(env, tenantId).recordUnits(utcDay(Date.now()), WORKER_CLASS, r2Units(units)),
      (work) => ctx.waitUntil(work),
    );
    try {
      return await app.fetch(request, withMeteredAttachments(env, r2.account), ctx);
    } finally {
      r2.answer();
    }
  },
} satisfies ExportedHandler<Env>;
