import type { Handler } from "hono";
import { HUB_HEADER } from "../../contracts/headers";
import { errorBody, TENANT_ID_PATTERN } from "../../protocol/http";
import { hubApi, tenantApi } from "../../stubs";
import type { AppEnv } from "../context";

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
  // The tenant object knows its tenant by its name: the request goes as it came. A tenant
  // object that holds all the sockets it may names the hub object the socket goes to.
  const answer = await tenantApi(c.env, tenantId).fetch(c.req.raw);
  const hub = answer.headers.get(HUB_HEADER);
  return hub ? hubApi(c.env, tenantId, Number(hub)).fetch(c.req.raw) : answer;
};
