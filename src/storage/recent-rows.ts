import type { SqlExec } from "./sql";

/**
 * Keeps a "recently seen" table bounded (the bot's Slack threads, the bot's messages): rows whose
 * `atColumn` is at or before `cutoff` go, then the oldest past `maxRows`. Table and column are the
 * caller's constants (never input), so they are written into the statement; values are bound.
 */
export function boundRecentRows(
  sql: SqlExec,
  bounds: { table: string; atColumn: string; cutoff: number; maxRows: number },
): void {
  const { table, atColumn } = bounds;
  sql.exec(`DELETE FROM ${table} WHERE ${atColumn} <= ?`, bounds.cutoff);
  sql.exec(
    `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} ORDER BY ${atColumn} DESC LIMIT -1 OFFSET ?)`,
    bounds.maxRows,
  );
}
