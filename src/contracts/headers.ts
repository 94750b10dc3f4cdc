/** Internal headers between the worker and its Durable Objects (never accepted from clients). */

/** Tells the tenant object which tenant a WebSocket upgrade is for. */
export const TENANT_HEADER = "x-openclaw-tenant";

/** Carries the SSE follow query from the worker to the session object. */
export const FOLLOW_HEADER = "x-openclaw-follow";
