import { PENDING_SESSION_SCHEMAS } from "../pending/pending-store";
import type { PartialLimits } from "../policy/limit-rules";
import type { TenantConfig } from "../protocol/config";
import { DEPLOYMENT_KEY_GRANT_SCHEMAS } from "../secrets/deployment-key-grant-store";
import { SECRET_STORE_SCHEMAS } from "../secrets/secret-store";
import { type LegacyLayout, migrate, type Schema } from "../storage/migrations";
import { first } from "../storage/sql";
import { HUB_SCHEMAS } from "./hub-store";
import { INDEX_SCHEMAS } from "./index-schemas";
import { TOKEN_SCHEMAS } from "./token-store";

const RECORD_SCHEMAS: Schema[] = [
  {
    module: "tenant",
    migrations: [
      {
        name: "create tenant",
        sql: "CREATE TABLE tenant (id INTEGER PRIMARY KEY CHECK (id = 1), tenant_id TEXT NOT NULL, created_at INTEGER NOT NULL)",
      },
      // Admin API: a tenant being deleted (deletion runs in retry-safe steps).
      { name: "add tenant.deleting_at", sql: "ALTER TABLE tenant ADD COLUMN deleting_at INTEGER" },
    ],
  },
  {
    module: "config",
    migrations: [
      {
        name: "create config",
        sql: "CREATE TABLE config (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL, updated_at INTEGER NOT NULL)",
      },
    ],
  },
  // The operator's limits for this tenant (admin API; src/policy/limit-rules.ts).
  {
    module: "limits",
    migrations: [
      {
        name: "create limit_override",
        sql: "CREATE TABLE limit_override (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)",
      },
    ],
  },
  // Broadcast counters of earlier releases (event seqs are per connection now, in memory).
  {
    module: "counters",
    migrations: [
      { name: "create counters", sql: "CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)" },
    ],
  },
];

/** Every module a tenant object's database holds. */
export const TENANT_SCHEMAS: Schema[] = [
  ...RECORD_SCHEMAS,
  ...TOKEN_SCHEMAS,
  ...INDEX_SCHEMAS,
  ...PENDING_SESSION_SCHEMAS,
  ...SECRET_STORE_SCHEMAS,
  ...HUB_SCHEMAS,
  ...DEPLOYMENT_KEY_GRANT_SCHEMAS,
];

/** The single-counter list tenant objects used before per-module migrations (16 statements). */
const LEGACY_TENANT_LAYOUT: LegacyLayout = [
  ["tenant", "create tenant"],
  ["tokens", "create tokens"],
  ["config", "create config"],
  ["index", "create sessions"],
  ["index", "index sessions_by_updated"],
  ["index", "index sessions_by_agent"],
  ["index", "index sessions_by_label"],
  ["index", "index sessions_by_spawner"],
  ["index", "index sessions_by_parent"],
  ["index", "index sessions_by_session_id"],
  ["index", "create session_ids"],
  ["index", "index session_ids_by_key"],
  ["index", "create delivered"],
  ["counters", "create counters"],
  ["secrets", "create secrets"],
  ["runs", "create runs_index"],
];

/** Opens (creates or upgrades) a tenant object's database. */
export function openTenantDatabase(storage: DurableObjectStorage): void {
  migrate(storage, TENANT_SCHEMAS, LEGACY_TENANT_LAYOUT);
}

/** The tenant record and its config (OpenClaw key names, validated by the caller). */
export class TenantStore {
  /** The config is read on every request; cached (frozen, so no caller can change the cache) and replaced on change. */
  private cachedConfig: Readonly<TenantConfig> | undefined;

  /** The operator's limits, read once per object life (they change only through saveLimitOverride). */
  private cachedOverride: Readonly<PartialLimits> | undefined;

  /** Once the record is known to exist it stays so until forget() (every upgrade asks). */
  private known = false;

  constructor(private readonly sql: SqlStorage) {}

  exists(): boolean {
    this.known ||= first(this.sql, "SELECT 1 AS one FROM tenant WHERE id = 1") !== undefined;
    return this.known;
  }

  /** Creates the tenant record; false when it already exists. */
  create(tenantId: string, at: number): boolean {
    if (this.exists()) return false;
    this.sql.exec("INSERT INTO tenant (id, tenant_id, created_at) VALUES (1, ?, ?)", tenantId, at);
    this.known = true;
    return true;
  }

  tenantId(): string | undefined {
    return first<{ tenant_id: string }>(this.sql, "SELECT tenant_id FROM tenant WHERE id = 1")?.tenant_id;
  }

  record(): { tenantId: string; createdAt: number; deletingAt?: number } | undefined {
    const row = first<{ tenant_id: string; created_at: number; deleting_at: number | null }>(
      this.sql,
      "SELECT tenant_id, created_at, deleting_at FROM tenant WHERE id = 1",
    );
    return (
      row && {
        tenantId: row.tenant_id,
        createdAt: row.created_at,
        ...(row.deleting_at !== null ? { deletingAt: row.deleting_at } : {}),
      }
    );
  }

  /** Marks the tenant as being deleted (once); returns when that started. */
  markDeleting(at: number): number {
    this.sql.exec("UPDATE tenant SET deleting_at = coalesce(deleting_at, ?) WHERE id = 1", at);
    return this.record()?.deletingAt ?? at;
  }

  /** Drops the cached config (the database was wiped). */
  forget(): void {
    this.cachedConfig = undefined;
    this.cachedOverride = undefined;
    this.known = false;
  }

  config(): Readonly<TenantConfig> {
    if (this.cachedConfig) return this.cachedConfig;
    const row = first<{ json: string }>(this.sql, "SELECT json FROM config WHERE id = 1");
    this.cachedConfig = deepFreeze(row ? (JSON.parse(row.json) as TenantConfig) : {});
    return this.cachedConfig;
  }

  saveConfig(config: TenantConfig, at: number): void {
    this.sql.exec(
      "INSERT INTO config (id, json, updated_at) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json, updated_at = excluded.updated_at",
      JSON.stringify(config),
      at,
    );
    this.cachedConfig = deepFreeze(structuredClone(config));
  }

  limitOverride(): Readonly<PartialLimits> {
    if (this.cachedOverride) return this.cachedOverride;
    const row = first<{ json: string }>(this.sql, "SELECT json FROM limit_override WHERE id = 1");
    this.cachedOverride = deepFreeze(row ? (JSON.parse(row.json) as PartialLimits) : {});
    return this.cachedOverride;
  }

  saveLimitOverride(override: PartialLimits): void {
    this.sql.exec(
      "INSERT INTO limit_override (id, json) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET json = excluded.json",
      JSON.stringify(override),
    );
    this.cachedOverride = deepFreeze({ ...override });
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
