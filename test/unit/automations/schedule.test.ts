import { describe, expect, it } from "vitest";
import type { CronAddParams } from "../../../src/features/automations/cron-schemas";
import { createJob, jobSessionKey } from "../../../src/features/automations/jobs";
import { firstRunAt, nextRunAfter, parseAt, scheduleProblem } from "../../../src/features/automations/schedule";

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);

describe("schedules (pure)", () => {
  it("parses at times: ISO with or without offset (UTC), epoch ms; refuses the rest", () => {
    expect(parseAt("2027-02-01T16:00:00Z")).toBe(Date.UTC(2027, 1, 1, 16));
    expect(parseAt("2027-02-01T16:00")).toBe(Date.UTC(2027, 1, 1, 16));
    expect(parseAt("2027-02-01T16:00:00+02:00")).toBe(Date.UTC(2027, 1, 1, 14));
    expect(parseAt("2027-02-01")).toBe(Date.UTC(2027, 1, 1));
    expect(parseAt(String(NOW))).toBe(NOW);
    for (const bad of ["tomorrow", "2027-02-30T10:00", "2027-13-01", "20m", ""]) expect(parseAt(bad)).toBeNull();
  });

  it("steps every-schedules from their anchor and cron expressions in their time zone", () => {
    const every = { kind: "every" as const, everyMs: 5_000, anchorMs: NOW };
    expect(nextRunAfter(every, NOW, "j")).toBe(NOW + 5_000);
    expect(nextRunAfter(every, NOW + 12_345, "j")).toBe(NOW + 15_000);
    expect(nextRunAfter(every, NOW - 1_000, "j")).toBe(NOW);
    // 09:00 in New York is 14:00 UTC in November (EST).
    const ny = { kind: "cron" as const, expr: "0 9 * * *", tz: "America/New_York" };
    expect(nextRunAfter(ny, NOW, "j")).toBe(Date.UTC(2026, 10, 24, 14));
    expect(nextRunAfter({ kind: "cron", expr: "0 9 * * *" }, NOW, "j")).toBe(Date.UTC(2026, 10, 25, 9));
    // A stagger moves a job by a fixed amount within the window.
    const staggered = nextRunAfter({ kind: "cron", expr: "0 * * * *", staggerMs: 60_000 }, NOW, "job-1")!;
    // (12:00 plus this job's offset is still ahead of 12:00:00.)
    expect(staggered).toBeGreaterThan(NOW);
    expect(staggered).toBeLessThanOrEqual(NOW + 60_000);
    expect(nextRunAfter({ kind: "cron", expr: "0 * * * *", staggerMs: 60_000 }, staggered, "job-1")).toBe(
      staggered + 3_600_000,
    );
    // A one-shot: due at its time even when past (it runs once), then never again.
    const at = { kind: "at" as const, at: new Date(NOW - 1000).toISOString() };
    expect(firstRunAt(at, NOW, "j")).toBe(NOW - 1000);
    expect(nextRunAfter(at, NOW, "j")).toBeUndefined();
  });

  it("refuses intervals under the floor, bad expressions and zones, with the reason", () => {
    const options = { nowMs: NOW, minIntervalMs: 2_000, jobId: "j" };
    expect(scheduleProblem({ kind: "every", everyMs: 1_999 }, options)).toBe(
      "schedule.everyMs must be at least 2000 ms on this deployment",
    );
    expect(scheduleProblem({ kind: "every", everyMs: 2_000 }, options)).toBeNull();
    expect(scheduleProblem({ kind: "cron", expr: "* * * * * *" }, options)).toContain(
      "fires more often than every 2000 ms",
    );
    expect(scheduleProblem({ kind: "cron", expr: "*/5 * * * * *" }, options)).toBeNull();
    expect(scheduleProblem({ kind: "cron", expr: "not a cron" }, options)).toContain(
      'invalid cron expression "not a cron"',
    );
    expect(scheduleProblem({ kind: "cron", expr: "0 9 * * *", tz: "Mars/Base" }, options)).toContain(
      'invalid cron tz "Mars/Base"',
    );
    expect(scheduleProblem({ kind: "at", at: "soon" }, options)).toBe(
      "cron at schedule must contain a Date-valid absolute timestamp",
    );
  });
});

describe("jobs (pure)", () => {
  const base: CronAddParams = {
    name: "n",
    sessionTarget: "isolated",
    wakeMode: "now",
    schedule: { kind: "every", everyMs: 60_000 },
    payload: { kind: "agentTurn", message: "hi" },
  };
  const make = (params: Partial<CronAddParams>) =>
    createJob({ ...base, ...params } as CronAddParams, {
      id: "job-1",
      nowMs: NOW,
      config: {},
      limits: { minIntervalMs: 2_000 },
    });

  it("pairs targets and payloads as OpenClaw does and knows the agents", () => {
    expect(make({ sessionTarget: "main" })).toEqual({
      ok: false,
      error: 'main cron jobs require payload.kind="systemEvent"',
    });
    expect(make({ payload: { kind: "systemEvent", text: "x" } })).toEqual({
      ok: false,
      error: 'isolated/current/session cron jobs require payload.kind="agentTurn"',
    });
    expect(make({ agentId: "ghost" })).toEqual({ ok: false, error: 'unknown agent id "ghost"' });
    expect(make({ sessionTarget: "current" }).ok).toBe(false);
  });

  it("anchors every-schedules at creation, deletes one-shots after running by default", () => {
    const every = make({});
    expect(every.ok && every.job.schedule).toEqual({ kind: "every", everyMs: 60_000, anchorMs: NOW });
    expect(every.ok && every.job.state.nextRunAtMs).toBe(NOW + 60_000);
    const at = make({ schedule: { kind: "at", at: "2027-01-01T00:00:00Z" } });
    expect(at.ok && at.job.deleteAfterRun).toBe(true);
    const paused = make({ enabled: false });
    expect(paused.ok && paused.job.state.nextRunAtMs).toBeUndefined();
  });

  it("sends runs to the job's own cron session, the main session, or a named one", () => {
    const job = make({});
    if (!job.ok) throw new Error(job.error);
    expect(jobSessionKey(job.job, {})).toBe("agent:main:cron:job-1");
    expect(jobSessionKey({ ...job.job, sessionTarget: "main" }, {})).toBe("agent:main:main");
    expect(jobSessionKey({ ...job.job, sessionTarget: "session:agent:main:ops" }, {})).toBe("agent:main:ops");
  });
});
