import { createApp } from "./app";
import { installLedgerLogSink } from "./ledger/log-sink";

export { ChannelInboxObject } from "./channels/channel-inbox-object";
export { SchedulerObject } from "./cron/scheduler-object";
export { DirectoryObject } from "./directory/directory-object";
export { GatewayHubObject } from "./gateway-hub-object";
export { LedgerObject } from "./ledger/ledger-object";
export { SessionObject } from "./session/session-object";
export { TenantObject } from "./tenant/tenant-object";

const app = createApp();

export default {
  fetch: (request, env, ctx) => {
    installLedgerLogSink(env);
    return app.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<Env>;
