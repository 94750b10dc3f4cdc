import type { TenantContext } from "./context";
import { rateLimited } from "./errors";

/** Counts one `sessions.search` call against the tenant's searchesPerMinute limit; refuses over it. */
export async function admitSearch(ctx: TenantContext<"runs">): Promise<void> {
  const { retryAfterMs, perMinute } = await ctx.tenant.admit("search");
  if (retryAfterMs > 0) throw rateLimited(`Too many searches: the limit is ${perMinute} per minute`, retryAfterMs);
}

/** The tenant's limits in force and what is used of them (`GET /v1/limits`, `limits.get`). */
export async function tenantLimitsView(ctx: TenantContext<"runs">) {
  return { limits: (await ctx.tenant.limits()).limits };
}
