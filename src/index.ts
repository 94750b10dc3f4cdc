import { createApp } from "./http/app";

export { SessionObject } from "./session/session-object";
export { TenantObject } from "./tenant/tenant-object";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
