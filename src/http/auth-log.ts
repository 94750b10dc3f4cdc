import type { Context } from "hono";
import { logWarning } from "../observability/log";

/** One log line per refused request: the route and why, never the token. */
export function logAuthFailure(c: Context, reason: string, tenant?: string): void {
  const line = {
    surface: "http",
    tenant,
    reason,
    method: c.req.method,
    path: new URL(c.req.url).pathname.slice(0, 200),
  };
  logWarning("auth.failed", line, (promise) => c.executionCtx.waitUntil(promise));
}
