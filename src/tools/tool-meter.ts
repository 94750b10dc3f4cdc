import type { TenantContext } from "../domain/context";
import { isolateMeterLeases } from "./meter-lease";

export type Admission = { ok: true } | { ok: false; retryAfterSeconds: number; message: string };

/** The tools limit each tenant's last grant reported: leases are sized from it (one call until known). */
const knownToolLimits = new Map<string, number>();
const KNOWN_LIMITS_MAX = 1_000;

/**
 * Counts one tool call against the tenant's `toolsPerMinute` limit (every transport calls this
 * once per call), from this isolate's lease when it has one (src/tools/meter-lease.ts).
 */
export async function admitToolCall(ctx: TenantContext<"runs">): Promise<Admission> {
  const known = knownToolLimits.get(ctx.tenantId) ?? 1;
  let perMinute = known;
  const take = async (want: number) => {
    const grant = await ctx.tenant.admit("tools", want);
    perMinute = grant.perMinute;
    if (knownToolLimits.size >= KNOWN_LIMITS_MAX) knownToolLimits.delete(knownToolLimits.keys().next().value!);
    knownToolLimits.set(ctx.tenantId, grant.perMinute);
    return grant;
  };
  const retryAfterMs = await isolateMeterLeases.admit(`${ctx.tenantId}:tools`, known, take);
  if (retryAfterMs <= 0) return { ok: true };
  return {
    ok: false,
    retryAfterSeconds: Math.ceil(retryAfterMs / 1000),
    message: `Too many tool calls: the limit is ${perMinute} per minute`,
  };
}
