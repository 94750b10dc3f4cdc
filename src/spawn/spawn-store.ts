import type { Spawn, SpawnSpec, SpawnState } from "../model/spawn";
import type { Schema } from "../storage/migrations";
import { all, first } from "../storage/sql";

/** SQL of the spawn record a sub-agent session keeps about itself (who to announce to, cleanup). */

export const SPAWN_SCHEMA: Schema = {
  module: "spawn",
  migrations: [
    {
      name: "create spawns",
      sql: `CREATE TABLE spawns (
        run_id TEXT PRIMARY KEY,
        spec TEXT NOT NULL,
        state TEXT NOT NULL,
        outcome TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`,
    },
  ],
};

export class SpawnStore {
  constructor(private readonly sql: SqlStorage) {}

  insert(runId: string, spec: SpawnSpec, at: number): void {
    this.sql.exec(
      "INSERT OR IGNORE INTO spawns (run_id, spec, state, created_at, updated_at) VALUES (?, ?, 'running', ?, ?)",
      runId,
      JSON.stringify(spec),
      at,
      at,
    );
  }

  get(runId: string): Spawn | undefined {
    const row = first<SpawnRow>(
      this.sql,
      "SELECT run_id, spec, state, outcome, updated_at FROM spawns WHERE run_id = ?",
      runId,
    );
    return row && toSpawn(row);
  }

  /** Spawns with work left (not archived): announce, cleanup or archive. */
  unfinished(): Spawn[] {
    return all<SpawnRow>(
      this.sql,
      "SELECT run_id, spec, state, outcome, updated_at FROM spawns WHERE state <> 'archived'",
    ).map(toSpawn);
  }

  mark(runId: string, state: SpawnState, at: number, outcome?: string): void {
    this.sql.exec(
      "UPDATE spawns SET state = ?, outcome = coalesce(?, outcome), updated_at = ? WHERE run_id = ?",
      state,
      outcome ?? null,
      at,
      runId,
    );
  }
}

type SpawnRow = { run_id: string; spec: string; state: string; outcome: string | null; updated_at: number };

function toSpawn(row: SpawnRow): Spawn {
  return {
    runId: row.run_id,
    spec: JSON.parse(row.spec) as SpawnSpec,
    state: row.state as SpawnState,
    ...(row.outcome ? { outcome: row.outcome } : {}),
    updatedAt: row.updated_at,
  };
}
