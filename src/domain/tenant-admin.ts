import { forgetAccess } from "../auth/access-cache";
import { retireAccess } from "../auth/authenticate";
import type { MeteredBucket } from "../metering/metered-bucket";
import { operatorAttachmentsOf } from "../metering/metered-env";
import { logInfo } from "../observability/log";
import { withoutAbsentFeatures } from "../policy/absent-config-features";
import { configBoundsProblem } from "../policy/config-bounds";
import { configOutboundRefusal } from "../policy/outbound-url";
import { ADMIN_LIST_DEFAULT_LIMIT, ADMIN_LIST_MAX_LIMIT } from "../protocol/admin";
import type { TenantConfig } from "../protocol/config";
import type { OperatorScope } from "../protocol/http";
import { sealChannelSecrets } from "../secrets/channel-secrets";
import { deploymentKeyNames, ungrantedKeysRefusal } from "../secrets/deployment-keys";
import { directoryApi, ledgerApi, schedulerApi, sessionApi, tenantApi } from "../stubs";
import type { TenantContext } from "./context";
import { DomainError } from "./errors";
import { secretRefusal } from "./secrets";

/**
 * Changes to tenants, their config and tokens: the deployment admin operations (create, list,
 * inspect, delete tenants; list and revoke tokens) and a tenant's own config. Every change to
 * config or tokens also drops this isolate's cached authentications of the tenant (or token),
 * so it applies to the next request.
 */

/** Replaces the config (validated by the caller) in one write. */
export async function putConfig(ctx: TenantContext<"config" | "secrets">, config: TenantConfig): Promise<TenantConfig> {
  const written = await writeTenantConfig(ctx, config);
  if (!written.ok) throw new DomainError("conflict", CONFIG_CHANGED_MESSAGE);
  return written.config;
}

/** OpenClaw's refusal of a write made against a config that changed since it was loaded. */
export const CONFIG_CHANGED_MESSAGE = "config changed since last load; re-run config.get and retry";

/**
 * Writes the tenant's config (optionally only over `baseHash`) and drops cached access to it.
 * A config naming a deployment key the tenant is not granted is refused (runs check again).
 */
export async function writeTenantConfig(
  ctx: TenantContext<"config" | "secrets">,
  requested: TenantConfig,
  baseHash?: string,
) {
  // The switches of features this service does not have are answered, never stored.
  const candidate = withoutAbsentFeatures(requested);
  // Every write, whatever built it (a merge, agents.create), stays within the bounds.
  const problem = configBoundsProblem(candidate);
  if (problem) throw new DomainError("invalid", `invalid config: ${problem}`);
  if (deploymentKeyNames(candidate).length > 0) {
    const refused = ungrantedKeysRefusal(candidate, (await ctx.tenant.deploymentKeyGrants()).grants);
    if (refused) throw new DomainError("invalid", refused);
  }
  const outboundRefusal = configOutboundRefusal(candidate, ctx.outbound);
  if (outboundRefusal) {
    throw new DomainError("invalid", `invalid config: ${outboundRefusal.path}: ${outboundRefusal.reason}`);
  }
  const config = await sealChannelSecrets(candidate, async (write) => ctx.tenant.secretsSet(write)).catch((error) => {
    const refusal = secretRefusal((error as Error).message);
    throw refusal.code === "invalid" ? new DomainError("invalid", `invalid config: ${refusal.message}`) : refusal;
  });
  const written = await ctx.tenant.putConfig(config, baseHash);
  if (written.ok) {
    forgetAccess(ctx.tenantId);
    await ctx.retireGrants?.();
    logInfo("config.changed", {
      tenant: ctx.tenantId,
      by: ctx.principal.kind === "operator" ? ctx.principal.tokenId : "run",
    });
  }
  return written;
}

/** Sessions deleted per DELETE call: each is one call to its object, well within a request's limits. */
export const DELETE_BATCH_SESSIONS = 25;
/** Attachment files swept per DELETE call once the sessions are gone. */
const DELETE_BATCH_FILES = 1000;

type AdminEnv = Pick<
  Env,
  "TENANTS" | "SESSIONS" | "DIRECTORY" | "ATTACHMENTS" | "DEFAULT_TENANT" | "SCHEDULER" | "LEDGER" | "AUTH_GRANT_SECRET"
>;

const directory = (env: AdminEnv) => directoryApi(env);

/**
 * The tenant's object for an admin call, or not_found. The default tenant exists implicitly
 * (always listed, made on first use), so an admin call makes it too: tokens, info, limits,
 * reindex and deployment keys treat it as any tenant (deleting it empties it; it is made again,
 * empty, on its next use).
 */
export async function adminTenant(env: Pick<Env, "TENANTS"> & { DEFAULT_TENANT?: unknown }, id: string) {
  const tenant = tenantApi(env, id);
  if (id === env.DEFAULT_TENANT) await tenant.create(id);
  else if (!(await tenant.exists())) throw new DomainError("not_found", `Tenant not found: ${id}`);
  return tenant;
}

/**
 * Creates a tenant; false when it already exists. Either way the directory knows it afterwards,
 * so a retried create (or one for a tenant made before the directory existed) repairs the list.
 */
export async function createTenant(env: AdminEnv, id: string): Promise<boolean> {
  const created = await tenantApi(env, id).create(id);
  await directory(env).add(id);
  return created;
}

export async function listTenants(env: AdminEnv, query: { limit?: number; cursor?: string }) {
  // The default tenant exists implicitly (created on first use), so it is always listed.
  if (env.DEFAULT_TENANT) await directory(env).add(env.DEFAULT_TENANT);
  const limit = Math.min(query.limit ?? ADMIN_LIST_DEFAULT_LIMIT, ADMIN_LIST_MAX_LIMIT);
  const rows = await directory(env).page(limit + 1, query.cursor);
  const page = rows.slice(0, limit);
  return {
    tenants: page.map((t) => ({ id: t.id, createdAt: t.createdAt, status: t.deletingAt ? "deleting" : "active" })),
    hasMore: rows.length > limit,
    ...(rows.length > limit ? { nextCursor: page.at(-1)!.id } : {}),
  };
}

export async function tenantInfo(env: AdminEnv, id: string) {
  const info = await (await adminTenant(env, id)).info();
  if (!info) throw new DomainError("not_found", `Tenant not found: ${id}`);
  const { deletingAt, ...rest } = info;
  return { id, ...rest, status: deletingAt ? "deleting" : "active" };
}

/** A tenant's tokens, newest first; the cursor is `<createdAt>:<tokenId>` of the last one. */
export async function listTokens(env: AdminEnv, id: string, query: { limit?: number; cursor?: string }) {
  const limit = Math.min(query.limit ?? ADMIN_LIST_DEFAULT_LIMIT, ADMIN_LIST_MAX_LIMIT);
  const after = query.cursor ? parseTokenCursor(query.cursor) : undefined;
  const rows = await (await adminTenant(env, id)).tokenList(limit + 1, after);
  if (!rows) throw new DomainError("not_found", `Tenant not found: ${id}`);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    tenantId: id,
    tokens: page,
    hasMore: rows.length > limit,
    ...(rows.length > limit && last ? { nextCursor: `${last.createdAt}:${last.tokenId}` } : {}),
  };
}

/** Issues an operator token of the tenant (shown once). */
export async function issueTenantToken(env: AdminEnv, id: string, scopes: OperatorScope[], label?: string) {
  const issued = await (await adminTenant(env, id)).issueToken(scopes, label);
  if (!issued) throw new DomainError("not_found", `Tenant not found: ${id}`);
  return issued;
}

/** Rebuilds the tenant's session index from its session objects (the index is derived data). */
export async function reindexTenant(env: AdminEnv, id: string) {
  return (await adminTenant(env, id)).rebuildIndex();
}

function parseTokenCursor(cursor: string): { createdAt: number; tokenId: string } {
  const match = /^(\d{1,15}):([0-9a-f]{16})$/.exec(cursor);
  if (!match) throw new DomainError("invalid", "cursor must be a nextCursor value");
  return { createdAt: Number(match[1]), tokenId: match[2]! };
}

export type DeletionProgress = {
  tenantId: string;
  status: "deleting" | "deleted";
  done: boolean;
  deletingSince?: number;
  sessions: { deleted: number; failed: number; remaining: number };
  attachments: { deleted: number };
};

/**
 * One bounded step of deleting a tenant with all its data; call again until `done`. Every step
 * is safe to repeat: tokens are revoked at the first, then sessions (transcripts, runs, timers,
 * attachments) are deleted in their objects a batch at a time, then leftover attachment files,
 * then the ledger (usage, logs), the tenant object's own storage (config, index, secrets) and its directory entry.
 */
export async function deleteTenantStep(env: AdminEnv, id: string): Promise<DeletionProgress> {
  const tenant = tenantApi(env, id);
  const step = await tenant.deletionStep(DELETE_BATCH_SESSIONS);
  if (!step) {
    // Already gone from its object: finish a deletion interrupted after that, or 404.
    if (await directory(env).remove(id)) return finished(id, 0, 0);
    throw new DomainError("not_found", `Tenant not found: ${id}`);
  }
  // Tokens are revoked at the first step: this isolate forgets them now, others within a second,
  // and the grants in this data center are retired (the tenant object retires those of its own).
  await retireAccess(env, id);
  // No automation may start a run (and a session) while the tenant's sessions are deleted.
  await schedulerApi(env, id).clear();
  await directory(env).markDeleting(id);
  const results = await Promise.allSettled(
    step.keys.map((key) =>
      sessionApi(env, id, key).delete({ tenantId: id, key, agentId: "main" }, { tenantDeleting: true }),
    ),
  );
  const failed = results.filter((r) => r.status === "rejected").length;
  const deleted = results.length - failed;
  const remaining = step.remaining - deleted;
  // Not done yet: this step's sessions, and the attachment files it deleted.
  const deleting = (filesDeleted: number) => ({
    tenantId: id,
    status: "deleting" as const,
    done: false as const,
    deletingSince: step.deletingSince,
    sessions: { deleted, failed, remaining },
    attachments: { deleted: filesDeleted },
  });
  if (remaining > 0) return deleting(0);

  // The tenant's ledger is cleared at the end: the sweep is the operator's.
  const files = await sweepFiles(operatorAttachmentsOf(env), `${id}/`, DELETE_BATCH_FILES);
  if (files.more) return deleting(files.deleted);
  // Cleared once every session is gone (their files' deletion billed to no one, above): no
  // negative R2 level lands after it for a tenant id created again.
  await ledgerApi(env, id).clear();
  await tenant.finishDeletion();
  await directory(env).remove(id);
  return finished(id, deleted, files.deleted);
}

function finished(id: string, sessions: number, files: number): DeletionProgress {
  return {
    tenantId: id,
    status: "deleted",
    done: true,
    sessions: { deleted: sessions, failed: 0, remaining: 0 },
    attachments: { deleted: files },
  };
}

/** Deletes up to `limit` objects under a prefix; `more` when some are left. */
async function sweepFiles(
  bucket: MeteredBucket,
  prefix: string,
  limit: number,
): Promise<{ deleted: number; more: boolean }> {
  const listed = await bucket.list({ prefix, limit });
  await bucket.delete(listed.objects);
  return { deleted: listed.objects.length, more: listed.truncated };
}

/** A tenant's limits as the operator sees them; with `override`, the operator's values are replaced first. */
export async function tenantLimits(env: AdminEnv, tenantId: string, override?: Record<string, unknown>) {
  return (await adminTenant(env, tenantId)).limits(override);
}
