import type { Handler } from "hono";
import { TENANT_HEADER } from "../../contracts/headers";
import { TENANT_ID_PATTERN } from "../../protocol/http";
import { tenantApi } from "../../stubs";
import type { AppEnv } from "../context";
import { errorBody } from "../errors";

/**
 * Hands a WebSocket upgrade to the tenant object, where the gateway protocol runs on the
 * Hibernation API. Authentication happens in-protocol (the `connect` frame), as in OpenClaw.
 */
export const gatewayUpgrade: Handler<AppEnv> = async (c) => {
  const tenantId = c.req.param("tenantId") ?? c.env.DEFAULT_TENANT;
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
    return c.json({
      ok: true,
      service: "openclaw-sessions",
      gateway: "connect with a WebSocket",
      tenant: tenantId ?? null,
    });
  }
  if (!tenantId || !TENANT_ID_PATTERN.test(tenantId)) return c.json(errorBody("not_found", "No such gateway"), 404);
  const headers = new Headers(c.req.raw.headers);
  headers.set(TENANT_HEADER, tenantId);
  return tenantApi(c.env, tenantId).fetch(new Request(c.req.raw.url, { headers }));
};
