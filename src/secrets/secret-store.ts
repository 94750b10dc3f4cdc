import type { SecretKind } from "../protocol/secrets";
import type { Schema } from "../storage/migrations";
import { all, first } from "../storage/sql";
import type { SealedValue } from "./secret-crypto";

/** The tenant's secret store table (in the tenant object's database): ciphertext only. */
export const SECRET_STORE_SCHEMAS: Schema[] = [
  {
    module: "secret-store",
    migrations: [
      {
        name: "create secret_store",
        sql: `CREATE TABLE secret_store (
          name TEXT PRIMARY KEY,
          kind TEXT NOT NULL,
          key_id TEXT NOT NULL,
          iv TEXT NOT NULL,
          ciphertext TEXT NOT NULL,
          allowed_hosts TEXT NOT NULL DEFAULT '[]',
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          updated_by TEXT
        )`,
      },
    ],
  },
];

export type SecretRow = {
  name: string;
  kind: SecretKind;
  sealed: SealedValue;
  allowedHosts: string[];
  createdAt: number;
  updatedAt: number;
  updatedBy?: string;
};

type Raw = {
  name: string;
  kind: string;
  key_id: string;
  iv: string;
  ciphertext: string;
  allowed_hosts: string;
  created_at: number;
  updated_at: number;
  updated_by: string | null;
};

const COLUMNS = "name, kind, key_id, iv, ciphertext, allowed_hosts, created_at, updated_at, updated_by";

export class SecretStore {
  constructor(private readonly sql: SqlStorage) {}

  list(): SecretRow[] {
    return all<Raw>(this.sql, `SELECT ${COLUMNS} FROM secret_store ORDER BY name`).map(toRow);
  }

  get(name: string): SecretRow | undefined {
    const raw = first<Raw>(this.sql, `SELECT ${COLUMNS} FROM secret_store WHERE name = ?`, name);
    return raw && toRow(raw);
  }

  count(): number {
    return first<{ n: number }>(this.sql, "SELECT count(*) AS n FROM secret_store")?.n ?? 0;
  }

  /** Creates or replaces an entry (its creation time is kept). */
  put(row: Omit<SecretRow, "createdAt">): void {
    this.sql.exec(
      `INSERT INTO secret_store (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET kind = excluded.kind, key_id = excluded.key_id, iv = excluded.iv,
         ciphertext = excluded.ciphertext, allowed_hosts = excluded.allowed_hosts,
         updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      row.name,
      row.kind,
      row.sealed.keyId,
      row.sealed.iv,
      row.sealed.ciphertext,
      JSON.stringify(row.allowedHosts),
      row.updatedAt,
      row.updatedAt,
      row.updatedBy ?? null,
    );
  }

  /** Replaces the ciphertext only if the row is still the one read (a rotation's re-seal). */
  reseal(name: string, from: SealedValue, to: SealedValue): void {
    this.sql.exec(
      "UPDATE secret_store SET key_id = ?, iv = ?, ciphertext = ? WHERE name = ? AND key_id = ? AND iv = ?",
      to.keyId,
      to.iv,
      to.ciphertext,
      name,
      from.keyId,
      from.iv,
    );
  }

  delete(name: string): boolean {
    return this.sql.exec("DELETE FROM secret_store WHERE name = ?", name).rowsWritten > 0;
  }
}

function toRow(raw: Raw): SecretRow {
  return {
    name: raw.name,
    kind: raw.kind === "env" ? "env" : "secret",
    sealed: { keyId: raw.key_id, iv: raw.iv, ciphertext: raw.ciphertext },
    allowedHosts: JSON.parse(raw.allowed_hosts) as string[],
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
    ...(raw.updated_by ? { updatedBy: raw.updated_by } : {}),
  };
}
