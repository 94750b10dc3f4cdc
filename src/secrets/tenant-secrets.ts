import {
  type DeploymentKeyGrant,
  type DeploymentKeyGrantChange,
  MAX_SECRETS_PER_TENANT,
  type ResolvedSecret,
  SECRET_VALUE_MAX_BYTES,
  type SecretStoreEntry,
  type SecretWrite,
} from "../protocol/secrets";
import { DeploymentKeyGrantStore } from "./deployment-key-grant-store";
import { type DeploymentKeyEnv, devGrants } from "./deployment-keys";
import { isStale, keyring, openValue, type SecretKeyEnv, SecretKeyError, sealValue } from "./secret-crypto";
import { type SecretRow, SecretStore } from "./secret-store";

/**
 * A tenant's secret store: OpenClaw's rules (write-only `secret` entries, visible `env`
 * entries, name and size limits) over sealed rows. Lives in the tenant object; values leave it
 * only through `resolve`, which the runs of this tenant's session objects call.
 */
export class TenantSecrets {
  private readonly store: SecretStore;
  private readonly grants: DeploymentKeyGrantStore;

  constructor(
    sql: SqlStorage,
    private readonly env: SecretKeyEnv & DeploymentKeyEnv,
    /** The tenant the values are bound to (the object's name). */
    private readonly tenantId: () => string | undefined,
  ) {
    this.store = new SecretStore(sql);
    this.grants = new DeploymentKeyGrantStore(sql);
  }

  /**
   * The deployment keys this tenant may use (src/secrets/deployment-keys.ts), after applying an
   * operator's `change`; `changed` says whether the change did anything.
   */
  deploymentKeyGrants(
    change: DeploymentKeyGrantChange | undefined,
    now: number,
  ): { grants: DeploymentKeyGrant[]; changed: boolean } {
    let changed = false;
    if (change && "grant" in change) changed = this.grants.grant(change.grant, now);
    if (change && "revoke" in change) changed = this.grants.revoke(change.revoke);
    const granted = this.grants.list().map((grant) => ({ ...grant, source: "admin" as const }));
    const named = new Set(granted.map((grant) => grant.name));
    const dev = devGrants(this.env, this.tenantId()).filter((grant) => !named.has(grant.name));
    return { grants: [...granted, ...dev], changed };
  }

  async list(): Promise<SecretStoreEntry[]> {
    const rows = this.store.list();
    // Only env entries are opened (their value is listed); secret entries never are.
    const ring = rows.some((row) => row.kind === "env") ? await keyring(this.env) : undefined;
    const entries: SecretStoreEntry[] = [];
    for (const row of rows) {
      const meta = {
        name: row.name,
        scopeKind: "team" as const,
        scopeId: "" as const,
        createdAtMs: row.createdAt,
        updatedAtMs: row.updatedAt,
        ...(row.updatedBy ? { updatedBy: row.updatedBy } : {}),
      };
      if (row.kind === "env" && ring) {
        entries.push({ ...meta, kind: "env", value: await openValue(ring, this.tenant(), row.name, row.sealed) });
      } else {
        entries.push({ ...meta, kind: "secret", allowedHosts: row.allowedHosts });
      }
    }
    return entries;
  }

  /**
   * Creates or replaces an entry, sealed with the current key. Answers why it was refused
   * (OpenClaw's texts), or null when stored: errors cross the RPC boundary as data.
   */
  async set(write: SecretWrite, now: number): Promise<string | null> {
    const refused = refusal(write);
    if (refused) return refused;
    const existing = this.store.get(write.name);
    if (!existing && this.store.count() >= MAX_SECRETS_PER_TENANT) {
      return `A tenant can store at most ${MAX_SECRETS_PER_TENANT} secret store entries.`;
    }
    let ring: Awaited<ReturnType<typeof keyring>>;
    try {
      ring = await keyring(this.env);
    } catch (error) {
      if (error instanceof SecretKeyError) return error.message;
      throw error;
    }
    const sealed = await sealValue(ring, this.tenant(), write.name, write.value);
    // A value replaced without hosts keeps its binding (OpenClaw's set keeps it unless given).
    const allowedHosts =
      write.kind === "env"
        ? []
        : write.allowedHosts
          ? [...new Set(write.allowedHosts)].sort()
          : existing?.kind === "secret"
            ? existing.allowedHosts
            : [];
    this.store.put({
      name: write.name,
      kind: write.kind,
      sealed,
      allowedHosts,
      updatedAt: now,
      ...(write.updatedBy ? { updatedBy: write.updatedBy } : {}),
    });
    return null;
  }

  delete(name: string): boolean {
    return this.store.delete(name);
  }

  /** A value for a run; null when no such entry. Values under a retired key are sealed again. */
  async resolve(name: string): Promise<ResolvedSecret | null> {
    const row = this.store.get(name);
    if (!row) return null;
    const ring = await keyring(this.env);
    const value = await openValue(ring, this.tenant(), row.name, row.sealed);
    if (isStale(ring, row.sealed)) await this.reseal(row, value, ring);
    return { value, allowedHosts: row.allowedHosts };
  }

  private async reseal(row: SecretRow, value: string, ring: Awaited<ReturnType<typeof keyring>>): Promise<void> {
    const sealed = await sealValue(ring, this.tenant(), row.name, value);
    this.store.reseal(row.name, row.sealed, sealed);
  }

  private tenant(): string {
    const tenantId = this.tenantId();
    if (!tenantId) throw new Error("the secret store needs its tenant id");
    return tenantId;
  }
}

/** Why OpenClaw would refuse a write (its texts), or null. */
export function refusal(write: SecretWrite): string | null {
  if (new TextEncoder().encode(write.value).byteLength > SECRET_VALUE_MAX_BYTES) {
    return `Secret store value exceeds ${SECRET_VALUE_MAX_BYTES} UTF-8 bytes.`;
  }
  if (write.kind === "secret" && write.value.length === 0) {
    return "Secret store value is empty. Secret entries require a value; check the command that produced it.";
  }
  if (write.kind === "env" && write.allowedHosts !== undefined) return "Allowed hosts apply only to secret entries.";
  return null;
}
