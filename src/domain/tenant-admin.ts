import { forgetAccess } from "../auth/access-cache";
import type { TenantApi } from "../contracts/tenant-api";
import type { TenantConfig } from "../protocol/config";
import type { TenantContext } from "./context";

/**
 * Changes to a tenant's config and tokens. Each also drops this isolate's cached
 * authentications of the tenant (or of the token), so the change applies to the next request.
 */

/** Replaces the config (validated by the caller) in one write. */
export async function putConfig(ctx: TenantContext, config: TenantConfig): Promise<TenantConfig> {
  const stored = await ctx.tenant.putConfig(config);
  forgetAccess(ctx.tenantId);
  return stored;
}

/** Revokes a token; its gateway connections close at once. False when the token is unknown. */
export async function revokeToken(tenant: TenantApi, tenantId: string, tokenId: string): Promise<boolean> {
  const revoked = await tenant.revokeToken(tokenId);
  forgetAccess(tenantId, tokenId);
  return revoked;
}
