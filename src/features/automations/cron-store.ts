import type { Schema } from "../../storage/migrations";
import { all, first } from "../../storage/sql";
import { TIMER_SCHEMA } from "../../timers/timer-schema";
import type { CronJob, CronRunEntry } from "./cron-schemas";

/** A scheduler object's database: its jobs, their run in progress, run history, and its timers. */
export const CRON_SCHEMAS: Schema[] = [
  {
    module: "cron",
    migrations: [
      {
        name: "create cron_jobs",
        // `running_*`: the run a due time (or a manual run) claimed, until its outcome is recorded.
        sql: `CREATE TABLE cron_jobs (
          id TEXT PRIMARY KEY,
          json TEXT NOT NULL,
          origin TEXT,
          running_run_id TEXT,
          running_started_at INTEGER,
          running_due_at INTEGER,
          created_at INTEGER NOT NULL
        )`,
      },
      {
        name: "create cron_runs",
        sql: `CREATE TABLE cron_runs (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          job_id TEXT NOT NULL,
          run_id TEXT NOT NULL UNIQUE,
          ts INTEGER NOT NULL,
          status TEXT NOT NULL,
          json TEXT NOT NULL
        )`,
      },
      { name: "index cron_runs_by_job", sql: "CREATE INDEX cron_runs_by_job ON cron_runs (job_id, seq)" },
      {
        name: "create cron_meta",
        sql: "CREATE TABLE cron_meta (id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL)",
      },
    ],
  },
  TIMER_SCHEMA,
];

/** The run a job has in progress. */
export type RunningRun = { runId: string; startedAt: number; dueAt?: number };

export type StoredJob = { job: CronJob; origin?: string; running?: RunningRun };

type JobRaw = {
  json: string;
  origin: string | null;
  running_run_id: string | null;
  running_started_at: number | null;
  running_due_at: number | null;
};

/** Run history kept per job (oldest dropped first). */
export const RUNS_KEPT_PER_JOB = 200;

export class CronStore {
  constructor(private readonly sql: SqlStorage) {}

  get(id: string): StoredJob | undefined {
    const raw = first<JobRaw>(
      this.sql,
      "SELECT json, origin, running_run_id, running_started_at, running_due_at FROM cron_jobs WHERE id = ?",
      id,
    );
    return raw && toStored(raw);
  }

  all(): StoredJob[] {
    return all<JobRaw>(
      this.sql,
      "SELECT json, origin, running_run_id, running_started_at, running_due_at FROM cron_jobs ORDER BY created_at",
    ).map(toStored);
  }

  count(): number {
    return first<{ n: number }>(this.sql, "SELECT count(*) AS n FROM cron_jobs")?.n ?? 0;
  }

  insert(job: CronJob, origin: string | undefined): void {
    this.sql.exec(
      "INSERT INTO cron_jobs (id, json, origin, created_at) VALUES (?, ?, ?, ?)",
      job.id,
      JSON.stringify(job),
      origin ?? null,
      job.createdAtMs,
    );
    this.bump();
  }

  /** Writes the job's definition and state; `running` replaces the run in progress when given (null clears it). */
  save(job: CronJob, running?: RunningRun | null): void {
    if (running === undefined) {
      this.sql.exec("UPDATE cron_jobs SET json = ? WHERE id = ?", JSON.stringify(job), job.id);
    } else {
      this.sql.exec(
        "UPDATE cron_jobs SET json = ?, running_run_id = ?, running_started_at = ?, running_due_at = ? WHERE id = ?",
        JSON.stringify(job),
        running?.runId ?? null,
        running?.startedAt ?? null,
        running?.dueAt ?? null,
        job.id,
      );
    }
    this.bump();
  }

  /** Removes a job with its run history. */
  remove(id: string): boolean {
    this.sql.exec("DELETE FROM cron_runs WHERE job_id = ?", id);
    const removed = this.sql.exec("DELETE FROM cron_jobs WHERE id = ?", id).rowsWritten > 0;
    if (removed) this.bump();
    return removed;
  }

  /** Records a finished run once (a repeated outcome of the same run id is ignored); false if already there. */
  addRun(entry: CronRunEntry): boolean {
    const added =
      this.sql.exec(
        "INSERT OR IGNORE INTO cron_runs (job_id, run_id, ts, status, json) VALUES (?, ?, ?, ?, ?)",
        entry.jobId,
        entry.runId,
        entry.ts,
        entry.status,
        JSON.stringify(entry),
      ).rowsWritten > 0;
    if (added) {
      this.sql.exec(
        `DELETE FROM cron_runs WHERE job_id = ? AND seq <= (
           SELECT seq FROM cron_runs WHERE job_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
        entry.jobId,
        entry.jobId,
        RUNS_KEPT_PER_JOB,
      );
    }
    return added;
  }

  /** Run history, filtered; newest first unless `asc`. */
  runs(filter: { jobId?: string; runId?: string; statuses?: string[]; limit: number; offset: number; asc: boolean }): {
    entries: CronRunEntry[];
    total: number;
  } {
    const where: string[] = [];
    const binds: unknown[] = [];
    if (filter.jobId) {
      where.push("job_id = ?");
      binds.push(filter.jobId);
    }
    if (filter.runId) {
      where.push("run_id = ?");
      binds.push(filter.runId);
    }
    if (filter.statuses?.length) {
      where.push(`status IN (${filter.statuses.map(() => "?").join(", ")})`);
      binds.push(...filter.statuses);
    }
    const clause = where.length ? `WHERE ${where.join(" AND ")}` : "";
    const total = first<{ n: number }>(this.sql, `SELECT count(*) AS n FROM cron_runs ${clause}`, ...binds)?.n ?? 0;
    const entries = all<{ json: string }>(
      this.sql,
      `SELECT json FROM cron_runs ${clause} ORDER BY seq ${filter.asc ? "ASC" : "DESC"} LIMIT ? OFFSET ?`,
      ...binds,
      filter.limit,
      filter.offset,
    ).map((row) => JSON.parse(row.json) as CronRunEntry);
    return { entries, total };
  }

  /** Changes with every job write: the list's snapshot revision. */
  revision(): number {
    return first<{ revision: number }>(this.sql, "SELECT revision FROM cron_meta WHERE id = 1")?.revision ?? 0;
  }

  private bump(): void {
    this.sql.exec(
      "INSERT INTO cron_meta (id, revision) VALUES (1, 1) ON CONFLICT(id) DO UPDATE SET revision = revision + 1",
    );
  }
}

function toStored(raw: JobRaw): StoredJob {
  return {
    job: JSON.parse(raw.json) as CronJob,
    ...(raw.origin ? { origin: raw.origin } : {}),
    ...(raw.running_run_id
      ? {
          running: {
            runId: raw.running_run_id,
            startedAt: raw.running_started_at ?? 0,
            ...(raw.running_due_at !== null ? { dueAt: raw.running_due_at } : {}),
          },
        }
      : {}),
  };
}
