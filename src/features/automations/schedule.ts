import { Cron } from "croner";
import type { CronSchedule } from "./cron-schemas";

/**
 * When a job is due, for OpenClaw's three time schedules. Pure: every answer depends only on
 * the schedule, the job id (its stagger offset) and the instant asked about.
 * - `at`: one instant (ISO 8601; without an offset it is UTC; or epoch milliseconds). A time
 *   already past when the job is created is due at once (it runs once), as OpenClaw's catch-up does.
 * - `every`: `anchorMs + k·everyMs`, the anchor defaulting to the creation time.
 * - `cron`: a 5- or 6-field expression evaluated by croner (the parser OpenClaw uses, same
 *   version) in `tz` (IANA), UTC when absent (Workers run in UTC; OpenClaw uses its host's zone).
 */

const MAX_CACHED_CRONS = 256;
const crons = new Map<string, Cron>();

/** A parsed cron expression (cached); throws croner's error for a bad expression or zone. */
function cronOf(expr: string, tz: string | undefined): Cron {
  const key = `${tz ?? ""}\u0000${expr}`;
  let cron = crons.get(key);
  if (!cron) {
    if (crons.size >= MAX_CACHED_CRONS) crons.clear();
    cron = new Cron(expr.trim(), { timezone: tz || "UTC", paused: true });
    crons.set(key, cron);
  }
  return cron;
}

/** The instant of an `at` schedule, or null when it is not a valid absolute time. */
export function parseAt(at: string): number | null {
  const raw = at.trim();
  if (/^\d+$/.test(raw)) {
    const ms = Number(raw);
    return Number.isSafeInteger(ms) && Number.isFinite(new Date(ms).getTime()) ? ms : null;
  }
  // Calendar date with optional time; no offset means UTC (OpenClaw's rule).
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(
    raw,
  );
  if (!iso) return null;
  const [, y, mo, d, h = "00", mi = "00", s = "00", zone] = iso;
  const probe = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  // Reject calendar overflow (2026-02-30 would roll into March).
  if (probe.getUTCMonth() !== Number(mo) - 1 || probe.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59) {
    return null;
  }
  const text = raw.replace(" ", "T");
  const ms = Date.parse(zone ? text : `${iso[4] ? text : `${text}T00:00:00`}Z`);
  return Number.isFinite(ms) ? ms : null;
}

/** A deterministic offset in [0, staggerMs] per job, so jobs sharing an expression spread out. */
function staggerOffset(jobId: string, staggerMs: number | undefined): number {
  if (!staggerMs) return 0;
  let hash = 0;
  for (const char of jobId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % (staggerMs + 1);
}

/** The first due time after `afterMs` (strictly later); undefined when none (an `at` past its time). */
export function nextRunAfter(schedule: CronSchedule, afterMs: number, jobId: string): number | undefined {
  switch (schedule.kind) {
    case "at": {
      const at = parseAt(schedule.at);
      return at !== null && at > afterMs ? at : undefined;
    }
    case "every": {
      const anchor = schedule.anchorMs ?? afterMs;
      if (afterMs < anchor) return anchor;
      return anchor + (Math.floor((afterMs - anchor) / schedule.everyMs) + 1) * schedule.everyMs;
    }
    case "cron": {
      const offset = staggerOffset(jobId, schedule.staggerMs);
      const next = cronOf(schedule.expr, schedule.tz).nextRun(new Date(afterMs - offset));
      return next ? next.getTime() + offset : undefined;
    }
  }
}

/** When a new (or re-enabled) job is first due: an `at` job at its time even if past (it runs once). */
export function firstRunAt(schedule: CronSchedule, nowMs: number, jobId: string): number | undefined {
  if (schedule.kind === "at") return parseAt(schedule.at) ?? undefined;
  return nextRunAfter(schedule, nowMs, jobId);
}

/**
 * Why a schedule cannot be accepted (OpenClaw's texts where it has them), or null. Intervals
 * shorter than the deployment's floor are refused, for cron expressions by their two next runs.
 */
export function scheduleProblem(
  schedule: CronSchedule,
  options: { nowMs: number; minIntervalMs: number; jobId: string },
): string | null {
  switch (schedule.kind) {
    case "at":
      return parseAt(schedule.at) === null ? "cron at schedule must contain a Date-valid absolute timestamp" : null;
    case "every":
      if (schedule.everyMs < options.minIntervalMs) {
        return `schedule.everyMs must be at least ${options.minIntervalMs} ms on this deployment`;
      }
      return null;
    case "cron": {
      let runs: Date[];
      try {
        if (schedule.tz) new Intl.DateTimeFormat("en-US", { timeZone: schedule.tz });
        runs = cronOf(schedule.expr, schedule.tz).nextRuns(2, new Date(options.nowMs));
      } catch (error) {
        if (error instanceof RangeError && schedule.tz)
          return `invalid cron tz "${schedule.tz}": not an IANA time zone`;
        return `invalid cron expression "${schedule.expr}": ${(error as Error).message}`;
      }
      if (runs.length === 0) return `cron expression "${schedule.expr}" has no upcoming run time and would never fire`;
      const [a, b] = runs;
      if (a && b && b.getTime() - a.getTime() < options.minIntervalMs) {
        return `cron expression "${schedule.expr}" fires more often than every ${options.minIntervalMs} ms, this deployment's floor`;
      }
      return null;
    }
  }
}
