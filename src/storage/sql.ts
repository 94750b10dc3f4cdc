/** Typed row reads over Durable Object SQLite (every value bound, never interpolated). */

export type Row = Record<string, SqlStorageValue>;

/** What a store runs statements through: a database, or one that does something first. */
export type SqlExec = Pick<SqlStorage, "exec">;

export function all<T extends Row>(sql: SqlExec, query: string, ...binds: unknown[]): T[] {
  return sql.exec<T>(query, ...binds).toArray();
}

export function first<T extends Row>(sql: SqlExec, query: string, ...binds: unknown[]): T | undefined {
  const rows = sql.exec<T>(query, ...binds).toArray();
  return rows[0];
}
