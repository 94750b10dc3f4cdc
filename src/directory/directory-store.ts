import type { DirectoryEntry } from "../contracts/directory-api";
import { migrate, type Schema } from "../storage/migrations";
import { all, first } from "../storage/sql";

/** SQL of the deployment's tenant directory: which tenant ids exist, for listing them. */

const DIRECTORY_SCHEMA: Schema = {
  module: "directory",
  migrations: [
    {
      name: "create tenants",
      sql: "CREATE TABLE tenants (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, deleting_at INTEGER)",
    },
  ],
};

type Row = { id: string; created_at: number; deleting_at: number | null };

export class DirectoryStore {
  private readonly sql: SqlStorage;

  constructor(storage: DurableObjectStorage) {
    this.sql = storage.sql;
    migrate(storage, [DIRECTORY_SCHEMA]);
  }

  /** Records a tenant id (idempotent: the first createdAt is kept). */
  add(id: string, at: number): void {
    this.sql.exec("INSERT OR IGNORE INTO tenants (id, created_at) VALUES (?, ?)", id, at);
  }

  markDeleting(id: string, at: number): void {
    this.sql.exec("UPDATE tenants SET deleting_at = coalesce(deleting_at, ?) WHERE id = ?", at, id);
  }

  remove(id: string): boolean {
    return this.sql.exec("DELETE FROM tenants WHERE id = ?", id).rowsWritten > 0;
  }

  get(id: string): DirectoryEntry | undefined {
    const row = first<Row>(this.sql, "SELECT * FROM tenants WHERE id = ?", id);
    return row && toEntry(row);
  }

  /** Tenants by id, `limit` of them after `afterId` (exclusive). */
  page(limit: number, afterId?: string): DirectoryEntry[] {
    return all<Row>(this.sql, "SELECT * FROM tenants WHERE id > ? ORDER BY id LIMIT ?", afterId ?? "", limit).map(
      toEntry,
    );
  }
}

function toEntry(row: Row): DirectoryEntry {
  return {
    id: row.id,
    createdAt: row.created_at,
    ...(row.deleting_at !== null ? { deletingAt: row.deleting_at } : {}),
  };
}
