import type { Flow, FlowSpec, FlowState } from "../model/flow";
import type { Schema } from "../storage/migrations";
import { all, first } from "../storage/sql";

/** SQL of the agent-to-agent flows a session drives (it is the sessions_send target). */

export const FLOW_SCHEMA: Schema = {
  module: "flows",
  migrations: [
    {
      name: "create flows",
      sql: `CREATE TABLE flows (
        id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        spec TEXT NOT NULL,
        turn INTEGER NOT NULL DEFAULT 0,
        round1_reply TEXT,
        latest_reply TEXT,
        outcome TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`,
    },
    { name: "index flows_by_state", sql: "CREATE INDEX flows_by_state ON flows (state)" },
  ],
};

type Row = {
  id: string;
  state: string;
  spec: string;
  turn: number;
  round1_reply: string | null;
  latest_reply: string | null;
  outcome: string | null;
};

export class FlowStore {
  constructor(private readonly sql: SqlStorage) {}

  insert(id: string, spec: FlowSpec, at: number): void {
    this.sql.exec(
      "INSERT OR IGNORE INTO flows (id, state, spec, created_at, updated_at) VALUES (?, 'primary', ?, ?, ?)",
      id,
      JSON.stringify(spec),
      at,
      at,
    );
  }

  get(id: string): Flow | undefined {
    const row = first<Row>(
      this.sql,
      "SELECT id, state, spec, turn, round1_reply, latest_reply, outcome FROM flows WHERE id = ?",
      id,
    );
    return row && toFlow(row);
  }

  unfinished(): Flow[] {
    return all<Row>(
      this.sql,
      "SELECT id, state, spec, turn, round1_reply, latest_reply, outcome FROM flows WHERE state <> 'done'",
    ).map(toFlow);
  }

  update(
    id: string,
    change: { state: FlowState; turn?: number; round1Reply?: string; latestReply?: string; outcome?: string },
    at: number,
  ): void {
    this.sql.exec(
      `UPDATE flows SET state = ?, turn = coalesce(?, turn), round1_reply = coalesce(?, round1_reply),
         latest_reply = coalesce(?, latest_reply), outcome = coalesce(?, outcome), updated_at = ? WHERE id = ?`,
      change.state,
      change.turn ?? null,
      change.round1Reply ?? null,
      change.latestReply ?? null,
      change.outcome ?? null,
      at,
      id,
    );
  }
}

function toFlow(row: Row): Flow {
  return {
    id: row.id,
    state: row.state as FlowState,
    spec: JSON.parse(row.spec) as FlowSpec,
    turn: row.turn,
    ...(row.round1_reply !== null ? { round1Reply: row.round1_reply } : {}),
    ...(row.latest_reply !== null ? { latestReply: row.latest_reply } : {}),
    ...(row.outcome !== null ? { outcome: row.outcome } : {}),
  };
}
