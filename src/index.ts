import type { Env } from "./env";

export { SessionObject } from "./session/session-object";
export { TenantObject } from "./tenant/tenant-object";

export default {
  async fetch(_request: Request, _env: Env): Promise<Response> {
    return Response.json({ ok: true, status: "live" });
  },
} satisfies ExportedHandler<Env>;
