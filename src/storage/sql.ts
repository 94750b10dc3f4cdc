/**
 * Small helpers over Durable Object SQLite: typed row reads and versioned migrations
 * (DO SQLite has no PRAGMA user_version, so the version lives in a table).
 */

export type Row = Record<string, SqlStorageValue>;

export function all<T extends Row>(sql: SqlStorage, query: string, ...binds: unknown[]): T[] {
  return sql.exec<T>(query, ...binds).toArray();
}

export function first<T extends Row>(sql: SqlStorage, query: string, ...binds: unknown[]): T | undefined {
  const rows = sql.exec<T>(query, ...binds).toArray();
  return rows[0];
}

/** Applies each migration whose index is past the stored version, all in one transaction. */
export function migrate(storage: DurableObjectStorage, migrations: readonly string[]): void {
  const sql = storage.sql;
  sql.exec("CREATE TABLE IF NOT EXISTS _schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
  const current = first<{ version: number }>(sql, "SELECT version FROM _schema WHERE id = 1")?.version ?? 0;
  if (current >= migrations.length) return;
  storage.transactionSync(() => {
    // One exec for all pending statements: a new object (every new session) pays one call.
    sql.exec(migrations.slice(current).join(";\n"));
    sql.exec(
      "INSERT INTO _schema (id, version) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET version = excluded.version",
      migrations.length,
    );
  });
}
