/** Typed row reads over Durable Object SQLite (every value bound, never interpolated). */

export type Row = Record<string, SqlStorageValue>;

export function all<T extends Row>(sql: SqlStorage, query: string, ...binds: unknown[]): T[] {
  return sql.exec<T>(query, ...binds).toArray();
}

export function first<T extends Row>(sql: SqlStorage, query: string, ...binds: unknown[]): T | undefined {
  const rows = sql.exec<T>(query, ...binds).toArray();
  return rows[0];
}
