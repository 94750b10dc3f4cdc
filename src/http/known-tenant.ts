import type { MiddlewareHandler } from "hono";
import { TENANT_ID_PATTERN } from "../protocol/http";
import { directoryApi } from "../stubs";
import type { AppEnv } from "./context";
import { doorError } from "./hop-guard";

/**
 * Only tenants the directory lists reach their objects. A Durable Object exists once it is
 * addressed, so a request, a CORS preflight or a WebSocket upgrade naming any `/t/<id>/…` would
 * otherwise create a stored TenantObject (its schema) for an id nobody made (issue 44, finding
 * 4). The directory (DirectoryObject) is asked first; an isolate remembers the ids it found, so
 * a known tenant's requests cost no extra call, and the default tenant (made on first use) is
 * known without asking. An unknown id is answered as each door answered it before, without
 * the object: a WebSocket upgrade 404 ("No such gateway"), a CORS preflight 204 without CORS
 * headers, anything else 401 in its door's shape — the answer a listed tenant gives a request
 * without valid credentials, so a caller cannot tell which ids exist.
 */

/** How long an isolate trusts that an id it found is listed (a deleted tenant's object answers for itself meanwhile). */
const KNOWN_TTL_MS = 10 * 60_000;
/** Ids one isolate remembers; past it the memory starts over (a flood of real ids cannot grow it). */
const MAX_KNOWN_IDS = 10_000;

const known = new Map<string, number>();

export const knownTenantOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  const path = new URL(c.req.url).pathname;
  const tenantId = /^\/t\/([^/]+)/.exec(path)?.[1];
  // Not a tenant path, or no tenant id at all (the routes answer those as before).
  if (!tenantId || !TENANT_ID_PATTERN.test(tenantId) || tenantId === c.env.DEFAULT_TENANT) return next();
  if (await isListed(c.env, tenantId)) return next();
  if (c.req.header("upgrade")?.toLowerCase() === "websocket")
    return doorError(path, 404, "not_found", "No such gateway");
  if (c.req.method === "OPTIONS" && c.req.header("access-control-request-method") !== undefined)
    return new Response(null, { status: 204, headers: { Vary: "Origin" } });
  return doorError(path, 401, "unauthorized", "Unauthorized");
};

async function isListed(env: AppEnv["Bindings"], tenantId: string): Promise<boolean> {
  const now = Date.now();
  if ((known.get(tenantId) ?? 0) > now) return true;
  const entry = await directoryApi(env).get(tenantId);
  if (!entry) return false;
  if (known.size >= MAX_KNOWN_IDS) known.clear();
  known.set(tenantId, now + KNOWN_TTL_MS);
  return true;
}
