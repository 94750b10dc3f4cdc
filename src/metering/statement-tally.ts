/**
 * Rows read and written per SQL statement, for the cost bench's `--by-statement` breakdown
 * (docs/benchmarks.md): which table and statement a workload's rows come from. Off unless the
 * deployment var METER_ROWS_BY_STATEMENT is "1" (the bench sets it); when on, each object logs its
 * burst's tally as one JSON line when the meter takes its units. Costs nothing when off.
 */

/** The log line's key: `{"rowsByStatement":{"objectClass":…,"statements":{…}}}`. */
export const ROWS_BY_STATEMENT = "rowsByStatement";

/** Statement texts longer than this are cut (the tally's keys; the start names the table). */
const STATEMENT_CHARS = 200;

export type StatementRows = { calls: number; rowsRead: number; rowsWritten: number };

export class StatementTally {
  private pending: Array<{ query: string; cursor: SqlStorageCursor<Record<string, SqlStorageValue>> }> = [];

  /** A statement was run; its cursor's counts are read when the burst is taken (its rows are consumed by then). */
  note(query: string, cursor: SqlStorageCursor<Record<string, SqlStorageValue>>): void {
    this.pending.push({ query, cursor });
  }

  /** The burst's rows per statement (statements that touched no row left out), and a fresh start. */
  take(): Record<string, StatementRows> {
    const out: Record<string, StatementRows> = {};
    for (const { query, cursor } of this.pending) {
      const key = query.replace(/\s+/g, " ").trim().slice(0, STATEMENT_CHARS);
      const rows = out[key] ?? { calls: 0, rowsRead: 0, rowsWritten: 0 };
      out[key] = rows;
      rows.calls++;
      rows.rowsRead += cursor.rowsRead;
      rows.rowsWritten += cursor.rowsWritten;
    }
    this.pending = [];
    return out;
  }
}

/** A tally when the deployment asks for one (METER_ROWS_BY_STATEMENT = "1"), else none. */
export function statementTallyFor(env: { METER_ROWS_BY_STATEMENT?: string }): StatementTally | null {
  return env.METER_ROWS_BY_STATEMENT === "1" ? new StatementTally() : null;
}

/** The tally's log line of one burst of `objectClass` (nothing when no statement ran). */
export function logStatementRows(objectClass: string, statements: Record<string, StatementRows>): void {
  if (Object.keys(statements).length === 0) return;
  console.log(JSON.stringify({ [ROWS_BY_STATEMENT]: { objectClass, statements } }));
}
