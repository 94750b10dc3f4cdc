import type { TenantConfig } from "../protocol/config";
import type { SecretStoreEntry, SecretsStoreSetParams } from "../protocol/secrets";
import { SECRET_STORAGE_UNAVAILABLE } from "../secrets/secret-crypto";
import type { TenantContext } from "./context";
import { DomainError } from "./errors";

/**
 * The tenant's secret store as every transport offers it (`secrets.store.*`, /v1/secrets).
 * Values go in and, for `env` entries only, come back in lists; `secret` entries never do.
 */

export async function listSecrets(ctx: TenantContext<"secrets">): Promise<{ entries: SecretStoreEntry[] }> {
  try {
    return { entries: await ctx.tenant.secretsList() };
  } catch (error) {
    throw (error as Error).message === SECRET_STORAGE_UNAVAILABLE ? storageUnavailable() : error;
  }
}

/**
 * A store refusal as the domain's error: the deployment's storage not working is `unavailable`
 * (503, the operator's to fix: they were told by the log and GET /v1/admin/health), anything
 * else the writer's (`invalid`). `refused` may carry a prefix (a config path).
 */
export function secretRefusal(refused: string): DomainError {
  return refused.endsWith(SECRET_STORAGE_UNAVAILABLE) ? storageUnavailable() : new DomainError("invalid", refused);
}

const storageUnavailable = () => new DomainError("unavailable", SECRET_STORAGE_UNAVAILABLE);

export async function setSecret(
  ctx: TenantContext<"secrets">,
  params: SecretsStoreSetParams,
): Promise<{ ok: true; reloaded: boolean }> {
  const refused = await ctx.tenant.secretsSet({ ...params, updatedBy: writerOf(ctx) });
  if (refused) throw secretRefusal(refused);
  return { ok: true, reloaded: isReferenced(ctx.config, params.name) };
}

/** Deletes an entry (nothing to delete is not an error, as in OpenClaw). */
export async function deleteSecret(
  ctx: TenantContext<"secrets">,
  name: string,
): Promise<{ ok: true; reloaded: boolean; deleted: boolean }> {
  const deleted = await ctx.tenant.secretsDelete(name);
  return { ok: true, reloaded: isReferenced(ctx.config, name), deleted };
}

/** Who wrote an entry, as OpenClaw records it (the client's id, else the transport). */
function writerOf(ctx: TenantContext<"secrets">): string {
  return (
    ctx.client?.id ??
    (ctx.principal.kind === "operator" && ctx.principal.tokenId ? `token ${ctx.principal.tokenId}` : "api")
  );
}

/**
 * Whether the config references the entry by a `store` SecretRef. Runs read the store when
 * they start, so a referenced entry's new value (or its absence) applies to the next run:
 * `reloaded` says the change reaches the runtime, as OpenClaw's refresh does.
 */
export function isReferenced(config: TenantConfig, name: string): boolean {
  const visit = (node: unknown): boolean => {
    if (Array.isArray(node)) return node.some(visit);
    if (typeof node !== "object" || node === null) return false;
    const ref = node as { source?: unknown; id?: unknown };
    if (ref.source === "store" && ref.id === name) return true;
    return Object.values(node).some(visit);
  };
  return visit(config);
}
