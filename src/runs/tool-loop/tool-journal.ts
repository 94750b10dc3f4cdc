import type { TranscriptMessage } from "../../protocol/session";
import type { Schema } from "../../storage/migrations";
import { all, first } from "../../storage/sql";

/**
 * SQL of the tool loop's journal: per run, each model step that asked for tools (its assistant
 * message, recorded before any of its calls runs) and each call's state and result (recorded
 * when it finished). A run resumed after a crash reads it to run only what is not done and to
 * not ask the model again for a step it answered. Rows of ended runs are pruned.
 */

export const TOOL_JOURNAL_SCHEMA: Schema = {
  module: "tool-loop",
  migrations: [
    {
      name: "create tool_steps",
      sql: `CREATE TABLE tool_steps (
        run_id TEXT NOT NULL,
        step INTEGER NOT NULL,
        message TEXT NOT NULL,
        message_seq INTEGER NOT NULL,
        results_appended INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (run_id, step)
      )`,
    },
    {
      name: "create tool_calls",
      sql: `CREATE TABLE tool_calls (
        run_id TEXT NOT NULL,
        step INTEGER NOT NULL,
        position INTEGER NOT NULL,
        call_id TEXT NOT NULL,
        name TEXT NOT NULL,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        result TEXT,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (run_id, step, position)
      )`,
    },
  ],
};

/** `recorded`: the model asked for it; `started`: it was handed to the tool; `done`: its result is kept. */
export type ToolCallState = "recorded" | "started" | "done";

export type JournalCall = {
  position: number;
  callId: string;
  name: string;
  state: ToolCallState;
  attempts: number;
  result?: TranscriptMessage;
};

export type JournalStep = {
  step: number;
  /** The assistant message with the `toolCall` blocks, as appended to the transcript. */
  message: TranscriptMessage;
  /** Where that message is in the transcript. */
  messageSeq: number;
  /** The step's toolResult messages are in the transcript (the step is over). */
  resultsAppended: boolean;
  calls: JournalCall[];
};

type StepRow = { step: number; message: string; message_seq: number; results_appended: number };
type CallRow = {
  step: number;
  position: number;
  call_id: string;
  name: string;
  state: string;
  attempts: number;
  result: string | null;
};

export class ToolJournal {
  constructor(private readonly sql: SqlStorage) {}

  /** How many calls a run made of each tool, by tool name (one grouped count, no step read). */
  callsByTool(runId: string): Record<string, number> {
    const rows = all<{ name: string; n: number }>(
      this.sql,
      "SELECT name, count(*) AS n FROM tool_calls WHERE run_id = ? GROUP BY name",
      runId,
    );
    return Object.fromEntries(rows.map((row) => [row.name, row.n]));
  }

  /** Every step of a run, oldest first, with its calls in call order. */
  steps(runId: string): JournalStep[] {
    const steps = all<StepRow>(
      this.sql,
      "SELECT step, message, message_seq, results_appended FROM tool_steps WHERE run_id = ? ORDER BY step",
      runId,
    );
    if (steps.length === 0) return [];
    const calls = all<CallRow>(
      this.sql,
      "SELECT step, position, call_id, name, state, attempts, result FROM tool_calls WHERE run_id = ? ORDER BY step, position",
      runId,
    );
    return steps.map((row) => ({
      step: row.step,
      message: JSON.parse(row.message) as TranscriptMessage,
      messageSeq: row.message_seq,
      resultsAppended: row.results_appended === 1,
      calls: calls
        .filter((call) => call.step === row.step)
        .map((call) => ({
          position: call.position,
          callId: call.call_id,
          name: call.name,
          state: call.state as ToolCallState,
          attempts: call.attempts,
          ...(call.result ? { result: JSON.parse(call.result) as TranscriptMessage } : {}),
        })),
    }));
  }

  /** Records a step and its calls (`recorded`), before any of them runs. */
  recordStep(
    runId: string,
    step: number,
    message: TranscriptMessage,
    messageSeq: number,
    calls: Array<{ callId: string; name: string }>,
    at: number,
  ): void {
    this.sql.exec(
      "INSERT INTO tool_steps (run_id, step, message, message_seq, created_at) VALUES (?, ?, ?, ?, ?)",
      runId,
      step,
      JSON.stringify(message),
      messageSeq,
      at,
    );
    calls.forEach((call, position) => {
      this.sql.exec(
        "INSERT INTO tool_calls (run_id, step, position, call_id, name, state, updated_at) VALUES (?, ?, ?, ?, ?, 'recorded', ?)",
        runId,
        step,
        position,
        call.callId,
        call.name,
        at,
      );
    });
  }

  /** The call is handed to its tool now (counted: a call started twice was cut off once). */
  markStarted(runId: string, step: number, position: number, at: number): void {
    this.sql.exec(
      "UPDATE tool_calls SET state = 'started', attempts = attempts + 1, updated_at = ? WHERE run_id = ? AND step = ? AND position = ? AND state <> 'done'",
      at,
      runId,
      step,
      position,
    );
  }

  markDone(runId: string, step: number, position: number, result: TranscriptMessage, at: number): void {
    this.sql.exec(
      "UPDATE tool_calls SET state = 'done', result = ?, updated_at = ? WHERE run_id = ? AND step = ? AND position = ?",
      JSON.stringify(result),
      at,
      runId,
      step,
      position,
    );
  }

  markResultsAppended(runId: string, step: number): void {
    this.sql.exec("UPDATE tool_steps SET results_appended = 1 WHERE run_id = ? AND step = ?", runId, step);
  }

  /** Where the run's first step sits in the transcript (its context ends before it), if it took one. */
  firstStepSeq(runId: string): number | undefined {
    return first<{ seq: number }>(
      this.sql,
      "SELECT message_seq AS seq FROM tool_steps WHERE run_id = ? ORDER BY step LIMIT 1",
      runId,
    )?.seq;
  }

  /** Drops the journal of runs that are no longer queued or running (their transcript has it all). */
  pruneEnded(): void {
    const ended = "SELECT run_id FROM runs WHERE state NOT IN ('queued', 'running')";
    this.sql.exec(`DELETE FROM tool_calls WHERE run_id IN (${ended})`);
    this.sql.exec(`DELETE FROM tool_steps WHERE run_id IN (${ended})`);
  }
}
