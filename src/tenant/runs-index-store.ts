import { first, type SqlExec } from "../storage/sql";

/** The `runs_index` table of the tenant index: which session each run id belongs to. */
export class RunsIndexStore {
  constructor(private readonly sql: SqlExec) {}

  /** Records which session a run id belongs to; returns the owner (the first one wins). */
  recordRun(runId: string, key: string, at: number): string {
    this.sql.exec("INSERT OR IGNORE INTO runs_index (run_id, key, created_at) VALUES (?, ?, ?)", runId, key, at);
    return this.runKey(runId) ?? key;
  }

  runKey(runId: string): string | undefined {
    return first<{ key: string }>(this.sql, "SELECT key FROM runs_index WHERE run_id = ?", runId)?.key;
  }
}
