import type { TokenInfo } from "../contracts/tenant-api";
import type { OperatorScope } from "../protocol/http";
import type { Schema } from "../storage/migrations";
import { all, first } from "../storage/sql";
import { toHex } from "../util/encoding";

export const TOKEN_SCHEMAS: Schema[] = [
  {
    module: "tokens",
    migrations: [
      {
        name: "create tokens",
        sql: "CREATE TABLE tokens (token_id TEXT PRIMARY KEY, hash TEXT NOT NULL, scopes TEXT NOT NULL, label TEXT, created_at INTEGER NOT NULL)",
      },
      // Admin API: when a token was last used (at most one write a minute per token), listed newest first.
      { name: "add tokens.last_used_at", sql: "ALTER TABLE tokens ADD COLUMN last_used_at INTEGER" },
      {
        name: "index tokens_by_created",
        sql: "CREATE INDEX tokens_by_created ON tokens (created_at DESC, token_id DESC)",
      },
    ],
  },
  {
    // Single-use tickets for EventSource history follows (only their SHA-256 is stored).
    module: "stream_tickets",
    migrations: [
      {
        name: "create stream_tickets",
        sql: "CREATE TABLE stream_tickets (hash TEXT PRIMARY KEY, grant_json TEXT NOT NULL, expires_at INTEGER NOT NULL)",
      },
    ],
  },
  {
    // Open SSE history follows per token, so that revoking the token ends them at once. Rows are
    // refreshed by the follower's keepalive and dropped once stale.
    module: "token_follows",
    migrations: [
      {
        name: "create token_follows",
        sql: "CREATE TABLE token_follows (token_id TEXT NOT NULL, session_key TEXT NOT NULL, seen_at INTEGER NOT NULL, PRIMARY KEY (token_id, session_key)) WITHOUT ROWID",
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

/** A follow not refreshed for this long is forgotten (followers refresh every KEEPALIVE_MS, 15 s). */
export const FOLLOW_STALE_MS = 5 * 60_000;

/** A tenant's credentials: operator token hashes (never the tokens), named secrets, stream tickets. */
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

  /** Tokens newest first, `limit` of them after the cursor `<createdAt>:<tokenId>` (exclusive). */
  tokenPage(limit: number, after?: { createdAt: number; tokenId: string }): TokenInfo[] {
    const rows = all<{
      token_id: string;
      scopes: string;
      label: string | null;
      created_at: number;
      last_used_at: number | null;
    }>(
      this.sql,
      `SELECT token_id, scopes, label, created_at, last_used_at FROM tokens
       WHERE created_at < ? OR (created_at = ? AND token_id < ?)
       ORDER BY created_at DESC, token_id DESC LIMIT ?`,
      after?.createdAt ?? Number.MAX_SAFE_INTEGER,
      after?.createdAt ?? Number.MAX_SAFE_INTEGER,
      after?.tokenId ?? "",
      limit,
    );
    return rows.map((row) => ({
      tokenId: row.token_id,
      scopes: JSON.parse(row.scopes) as OperatorScope[],
      ...(row.label !== null ? { label: row.label } : {}),
      createdAt: row.created_at,
      ...(row.last_used_at !== null ? { lastUsedAt: row.last_used_at } : {}),
    }));
  }

  touchToken(tokenId: string, at: number): void {
    this.sql.exec("UPDATE tokens SET last_used_at = ? WHERE token_id = ?", at, tokenId);
  }

  deleteAllTokens(): string[] {
    this.cached.clear();
    return all<{ token_id: string }>(this.sql, "DELETE FROM tokens RETURNING token_id").map((r) => r.token_id);
  }

  /**
   * Records that a token follows a session (or still does); false, and nothing recorded, when
   * the token no longer exists.
   */
  recordFollow(tokenId: string, sessionKey: string, at: number): boolean {
    if (!this.token(tokenId)) return false;
    this.sql.exec(
      "INSERT INTO token_follows (token_id, session_key, seen_at) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET seen_at = excluded.seen_at",
      tokenId,
      sessionKey,
      at,
    );
    this.sql.exec("DELETE FROM token_follows WHERE seen_at < ?", at - FOLLOW_STALE_MS);
    return true;
  }

  /** Forgets the follows of one token (or of every token) and answers them. */
  takeFollows(tokenId?: string): { tokenId: string; sessionKey: string }[] {
    const rows =
      tokenId === undefined
        ? all<{ token_id: string; session_key: string }>(
            this.sql,
            "DELETE FROM token_follows RETURNING token_id, session_key",
          )
        : all<{ token_id: string; session_key: string }>(
            this.sql,
            "DELETE FROM token_follows WHERE token_id = ? RETURNING token_id, session_key",
            tokenId,
          );
    return rows.map((row) => ({ tokenId: row.token_id, sessionKey: row.session_key }));
  }

  tokenCount(): number {
    return first<{ n: number }>(this.sql, "SELECT count(*) AS n FROM tokens")?.n ?? 0;
  }

  /** Drops the cached tokens (the database was wiped). */
  forget(): void {
    this.cached.clear();
  }

  // ── Stream tickets ──────────────────────────────────────────────────────

  /** Stores a ticket (by hash) until `expiresAt`; expired ones are dropped on the way. */
  insertTicket(hash: string, grantJson: string, expiresAt: number, now: number): void {
    this.sql.exec("DELETE FROM stream_tickets WHERE expires_at <= ?", now);
    this.sql.exec(
      "INSERT INTO stream_tickets (hash, grant_json, expires_at) VALUES (?, ?, ?)",
      hash,
      grantJson,
      expiresAt,
    );
  }

  /** Removes a ticket and answers its grant if it had not expired (single use either way). */
  takeTicket(hash: string, now: number): string | undefined {
    const row = first<{ grant_json: string; expires_at: number }>(
      this.sql,
      "DELETE FROM stream_tickets WHERE hash = ? RETURNING grant_json, expires_at",
      hash,
    );
    return row && row.expires_at > now ? row.grant_json : undefined;
  }
}
