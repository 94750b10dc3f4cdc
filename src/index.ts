import { createApp } from "./http/app";

export { SchedulerObject } from "./cron/scheduler-object";
export { DirectoryObject } from "./directory/directory-object";
export { SessionObject } from "./session/session-object";
export { TenantObject } from "./tenant/tenant-object";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
