import type { TenantContext } from "../domain/context";
import { isolateMeterLeases } from "./meter-lease";

/** Default tool calls per tenant per minute when the config sets none. */
export const DEFAULT_TOOLS_PER_MINUTE = 6000;

export type Admission = { ok: true } | { ok: false; retryAfterSeconds: number; message: string };

/**
 * Counts one tool call against the tenant's `rateLimit.toolsPerMinute` (every transport calls
 * this once per call), from this isolate's lease when it has one (src/tools/meter-lease.ts).
 */
export async function admitToolCall(ctx: TenantContext): Promise<Admission> {
  const perMinute = ctx.config.rateLimit?.toolsPerMinute ?? DEFAULT_TOOLS_PER_MINUTE;
  const take = async (want: number) => ctx.tenant.admit("tools", perMinute, want);
  const retryAfterMs = await isolateMeterLeases.admit(`${ctx.tenantId}:tools`, perMinute, take);
  if (retryAfterMs <= 0) return { ok: true };
  return {
    ok: false,
    retryAfterSeconds: Math.ceil(retryAfterMs / 1000),
    message: `Too many tool calls: the limit is ${perMinute} per minute`,
  };
}
