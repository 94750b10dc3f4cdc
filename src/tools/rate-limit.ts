import type { TenantContext } from "../domain/context";

export type Admission = { ok: true } | { ok: false; retryAfterSeconds: number; message: string };

/** Counts one tool call against the tenant's `toolsPerMinute` limit (every transport calls this once per call). */
export async function admitToolCall(ctx: TenantContext): Promise<Admission> {
  const { retryAfterMs, perMinute } = await ctx.tenant.admit("tools");
  if (retryAfterMs <= 0) return { ok: true };
  return {
    ok: false,
    retryAfterSeconds: Math.ceil(retryAfterMs / 1000),
    message: `Too many tool calls: the limit is ${perMinute} per minute`,
  };
}
