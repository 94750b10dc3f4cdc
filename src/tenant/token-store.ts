import type { OperatorScope } from "../protocol/http";
import type { Schema } from "../storage/migrations";
import { first } from "../storage/sql";
import { toHex } from "../util/encoding";

export const TOKEN_SCHEMAS: Schema[] = [
  {
    module: "tokens",
    migrations: [
      {
        name: "create tokens",
        sql: "CREATE TABLE tokens (token_id TEXT PRIMARY KEY, hash TEXT NOT NULL, scopes TEXT NOT NULL, label TEXT, created_at INTEGER NOT NULL)",
      },
    ],
  },
  {
    module: "secrets",
    migrations: [
      {
        name: "create secrets",
        sql: "CREATE TABLE secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at INTEGER NOT NULL)",
      },
    ],
  },
];

/** A tenant's credentials: operator token hashes (never the tokens) and named secrets. */
export class TokenStore {
  /** Tokens are read on every request; cached and dropped on change. */
  private readonly cached = new Map<string, { hash: string; scopes: OperatorScope[] } | null>();

  constructor(private readonly sql: SqlStorage) {}

  insertToken(tokenId: string, hash: string, scopes: OperatorScope[], label: string | undefined, at: number): void {
    this.sql.exec(
      "INSERT INTO tokens (token_id, hash, scopes, label, created_at) VALUES (?, ?, ?, ?, ?)",
      tokenId,
      hash,
      JSON.stringify(scopes),
      label ?? null,
      at,
    );
  }

  token(tokenId: string): { hash: string; scopes: OperatorScope[] } | undefined {
    const cached = this.cached.get(tokenId);
    if (cached !== undefined) return cached ?? undefined;
    const row = first<{ hash: string; scopes: string }>(
      this.sql,
      "SELECT hash, scopes FROM tokens WHERE token_id = ?",
      tokenId,
    );
    const token = row ? { hash: row.hash, scopes: JSON.parse(row.scopes) as OperatorScope[] } : null;
    // Unknown ids are not cached: random ids must not grow the map.
    if (token) this.cached.set(tokenId, token);
    return token ?? undefined;
  }

  deleteToken(tokenId: string): boolean {
    this.cached.delete(tokenId);
    return this.sql.exec("DELETE FROM tokens WHERE token_id = ?", tokenId).rowsWritten > 0;
  }

  /** A named tenant secret, created (random) on first use. */
  secret(name: string, at: number, rotate = false): string {
    const existing = rotate
      ? undefined
      : first<{ value: string }>(this.sql, "SELECT value FROM secrets WHERE name = ?", name)?.value;
    if (existing) return existing;
    const value = toHex(crypto.getRandomValues(new Uint8Array(32)));
    this.sql.exec(
      "INSERT INTO secrets (name, value, created_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value, created_at = excluded.created_at",
      name,
      value,
      at,
    );
    return value;
  }
}
