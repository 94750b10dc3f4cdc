import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import type { CronRunPort } from "../../../src/features/automations/cron-runs";
import type { CronAddParams } from "../../../src/features/automations/cron-schemas";
import { CRON_SCHEMAS, CronStore } from "../../../src/features/automations/cron-store";
import { type CronTimerKind, Scheduler } from "../../../src/features/automations/scheduler";
import type { RunSnapshot } from "../../../src/model/run-types";
import { migrate } from "../../../src/storage/migrations";
import { Timers } from "../../../src/timers/timers";
import { freshTenant, issueToken, until } from "../support/helpers";
import { GatewayClient } from "../support/ws-helpers";

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);

/** A scheduler on a real object's SQLite with runs faked: what it starts, and outcomes told by the test. */
async function withScheduler(name: string, body: (s: Harness) => Promise<void>) {
  await runInDurableObject(env.SCHEDULER.getByName(`unit-${name}`), async (_instance, state) => {
    migrate(state.storage, CRON_SCHEMAS);
    const store = new CronStore(state.storage.sql);
    const timers = new Timers<CronTimerKind>(state.storage);
    let clock = NOW;
    const started: string[] = [];
    const outcomes = new Map<string, RunSnapshot | "running" | "unknown">();
    const harness: Harness = {
      store,
      started,
      outcomes,
      failStart: false,
      setNow: (ms) => {
        clock = ms;
      },
      scheduler: undefined as unknown as Scheduler,
      timer: (kind, ref) =>
        state.storage.sql
          .exec<{ due_at: number }>("SELECT due_at FROM timers WHERE kind = ? AND ref = ?", kind, ref)
          .toArray()[0]?.due_at,
    };
    const runs: CronRunPort = {
      start: async (job, runId) => {
        if (harness.failStart) throw new Error("session object unreachable");
        started.push(runId);
        if (!outcomes.has(runId)) outcomes.set(runId, "running");
        return { ok: true, sessionKey: `agent:main:cron:${job.id}` };
      },
      outcome: async (runId) => outcomes.get(runId) ?? "unknown",
    };
    harness.scheduler = new Scheduler({
      store,
      timers,
      runs,
      limits: { minIntervalMs: 2_000, maxJobs: 3 },
      config: async () => ({}),
      waitUntil: () => undefined,
      now: () => clock,
    });
    await body(harness);
  });
}

type Harness = {
  store: CronStore;
  scheduler: Scheduler;
  started: string[];
  outcomes: Map<string, RunSnapshot | "running" | "unknown">;
  failStart: boolean;
  setNow(ms: number): void;
  timer(kind: CronTimerKind, ref: string): number | undefined;
};

const okRun = (runId: string): RunSnapshot => ({
  runId,
  status: "ok",
  state: "ok",
  startedAt: NOW,
  endedAt: NOW + 10,
  reply: "done",
});
const every = (everyMs = 5_000): CronAddParams => ({
  name: "tick",
  sessionTarget: "isolated",
  wakeMode: "now",
  schedule: { kind: "every", everyMs },
  payload: { kind: "agentTurn", message: "tick" },
});

describe("the scheduler: one run per due time, never two at once", () => {
  it("claims a due time once: a repeated fire of the same time starts nothing more", async () => {
    await withScheduler("once", async (h) => {
      const added = h.scheduler.add(every(), { config: {} });
      if (!added.ok) throw new Error(added.error);
      const id = added.value.id;
      expect(h.timer("cron-due", id)).toBe(NOW + 5_000);
      h.setNow(NOW + 5_000);
      await h.scheduler.handlers["cron-due"](id, NOW + 5_000);
      expect(h.started).toEqual([`cron:${id}:${NOW + 5_000}`]);
      expect(h.timer("cron-due", id)).toBe(NOW + 10_000);
      // The same due time fired again (a lease retried after a crash): already claimed, nothing starts.
      await h.scheduler.handlers["cron-due"](id, NOW + 5_001);
      expect(h.started).toHaveLength(1);
      // The outcome is recorded once, however many times it is reported.
      h.outcomes.set(h.started[0]!, okRun(h.started[0]!));
      await h.scheduler.handlers["cron-check"](id, NOW + 6_000);
      await h.scheduler.handlers["cron-check"](id, NOW + 6_001);
      const runs = h.scheduler.runs({ id });
      expect(runs.ok && runs.value.entries).toEqual([
        expect.objectContaining({ status: "ok", runId: `cron:${id}:${NOW + 5_000}`, summary: "done" }),
      ]);
      expect(h.scheduler.get(id)?.state).toMatchObject({ lastRunStatus: "ok", nextRunAtMs: NOW + 10_000 });
      expect(h.timer("cron-check", id)).toBeUndefined();
    });
  });

  it("starts a claimed run that never reached its session (crash between claim and start) with the same id", async () => {
    await withScheduler("crash", async (h) => {
      const added = h.scheduler.add(every(), { config: {} });
      if (!added.ok) throw new Error(added.error);
      const id = added.value.id;
      h.failStart = true;
      h.setNow(NOW + 5_000);
      await h.scheduler.handlers["cron-due"](id, NOW + 5_000);
      expect(h.started).toEqual([]);
      expect(h.timer("cron-check", id)).toBeGreaterThan(NOW + 5_000);
      h.failStart = false;
      await h.scheduler.handlers["cron-check"](id, NOW + 20_000);
      expect(h.started).toEqual([`cron:${id}:${NOW + 5_000}`]);
    });
  });

  it("records a due time that comes while the job runs as skipped, and runs the next one", async () => {
    await withScheduler("skip", async (h) => {
      const added = h.scheduler.add(every(), { config: {} });
      if (!added.ok) throw new Error(added.error);
      const id = added.value.id;
      h.setNow(NOW + 5_000);
      await h.scheduler.handlers["cron-due"](id, NOW + 5_000);
      h.setNow(NOW + 10_000);
      await h.scheduler.handlers["cron-due"](id, NOW + 10_000);
      expect(h.started).toHaveLength(1);
      const skipped = h.scheduler.runs({ id });
      expect(skipped.ok && skipped.value.entries[0]).toMatchObject({ status: "skipped", runAtMs: NOW + 10_000 });
      const manual = await h.scheduler.runNow(id, "force", { config: {} });
      expect(manual).toEqual({ ok: true, value: { ok: true, ran: false, reason: "already-running" } });
      h.outcomes.set(h.started[0]!, okRun(h.started[0]!));
      await h.scheduler.handlers["cron-check"](id, NOW + 11_000);
      h.setNow(NOW + 15_000);
      await h.scheduler.handlers["cron-due"](id, NOW + 15_000);
      expect(h.started).toEqual([`cron:${id}:${NOW + 5_000}`, `cron:${id}:${NOW + 15_000}`]);
    });
  });

  it("runs a missed due time once after downtime, then keeps the cadence from then", async () => {
    await withScheduler("missed", async (h) => {
      const added = h.scheduler.add(every(), { config: {} });
      if (!added.ok) throw new Error(added.error);
      const id = added.value.id;
      // Down for 4 intervals: the alarm fires late once.
      h.setNow(NOW + 23_000);
      await h.scheduler.handlers["cron-due"](id, NOW + 23_000);
      expect(h.started).toEqual([`cron:${id}:${NOW + 5_000}`]);
      expect(h.timer("cron-due", id)).toBe(NOW + 25_000);
    });
  });

  it("deletes a one-shot after its successful run; pausing clears its timer; bounds the number of jobs", async () => {
    await withScheduler("at", async (h) => {
      const at = h.scheduler.add(
        { ...every(), schedule: { kind: "at", at: new Date(NOW + 3_000).toISOString() } },
        { config: {} },
      );
      if (!at.ok) throw new Error(at.error);
      h.setNow(NOW + 3_000);
      await h.scheduler.handlers["cron-due"](at.value.id, NOW + 3_000);
      h.outcomes.set(h.started[0]!, okRun(h.started[0]!));
      await h.scheduler.handlers["cron-check"](at.value.id, NOW + 4_000);
      expect(h.scheduler.get(at.value.id)).toBeNull();

      const job = h.scheduler.add(every(), { config: {} });
      if (!job.ok) throw new Error(job.error);
      expect(h.timer("cron-due", job.value.id)).toBeDefined();
      const paused = h.scheduler.update(job.value.id, { enabled: false }, { config: {} });
      expect(paused.ok && paused.value.state.nextRunAtMs).toBeUndefined();
      expect(h.timer("cron-due", job.value.id)).toBeUndefined();
      expect(h.scheduler.status()).toMatchObject({ enabled: true, jobs: 1, nextWakeAtMs: null });
      h.scheduler.add(every(), { config: {} });
      h.scheduler.add(every(), { config: {} });
      expect(h.scheduler.add(every(), { config: {} })).toMatchObject({
        ok: false,
        error: "a tenant can have at most 3 automations",
      });
    });
  });
});

describe("automations over the gateway (cron.*)", () => {
  const open: GatewayClient[] = [];
  afterEach(() => {
    for (const client of open.splice(0)) client.ws.close();
  });

  it("gives each job OpenClaw's configRevision and refuses an update made against a stale one", async () => {
    const t = await freshTenant("cron-rev");
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    open.push(client);
    const added = await client.request("cron.add", {
      name: "Revised",
      enabled: true,
      sessionTarget: "isolated",
      wakeMode: "now",
      schedule: { kind: "every", everyMs: 1_800_000 },
      payload: { kind: "agentTurn", message: "hello" },
    });
    const job = added.payload;
    expect(job.configRevision).toMatch(/^sha256:[A-Za-z0-9_-]{43}$/);
    const listed = await client.request("cron.list", {});
    expect(listed.payload.jobs[0].configRevision).toBe(job.configRevision);
    // The Control UI's pause: the revision it loaded, then the change.
    const paused = await client.request("cron.update", {
      id: job.id,
      expectedConfigRevision: job.configRevision,
      patch: { enabled: false },
    });
    expect(paused.ok, JSON.stringify(paused.error)).toBe(true);
    expect(paused.payload.configRevision).not.toBe(job.configRevision);
    // A second window still holding the first revision is refused, in OpenClaw's words.
    const stale = await client.request("cron.update", {
      id: job.id,
      expectedConfigRevision: job.configRevision,
      patch: { name: "Overwritten" },
    });
    expect(stale.ok).toBe(false);
    expect(stale.error).toEqual({
      code: "INVALID_REQUEST",
      message: "cron job definition no longer matches the loaded version; review the latest version before retrying",
      details: {
        code: "CRON_JOB_CHANGED",
        expectedConfigRevision: job.configRevision,
        actualConfigRevision: paused.payload.configRevision,
      },
    });
    expect((await client.request("cron.get", { id: job.id })).payload).toMatchObject({
      name: "Revised",
      enabled: false,
    });
  });

  it("creates a job as the Control UI does, runs it now into its cron session, lists, pauses and removes it", async () => {
    const t = await freshTenant("cron-gw");
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    open.push(client);
    const added = await client.request("cron.add", {
      name: "Digest",
      description: "every half hour",
      agentId: "main",
      enabled: true,
      sessionTarget: "isolated",
      wakeMode: "now",
      delivery: { mode: "none" },
      schedule: { kind: "every", everyMs: 1_800_000 },
      payload: { kind: "agentTurn", message: "summarize" },
    });
    expect(added.ok).toBe(true);
    const job = added.payload;
    expect(job).toMatchObject({ name: "Digest", enabled: true, sessionTarget: "isolated", state: {} });
    expect(job.nextRunAtMs).toBe(job.state.nextRunAtMs);
    const status = await client.request("cron.status", {});
    expect(status.payload).toMatchObject({ enabled: true, jobs: 1, nextWakeAtMs: job.nextRunAtMs });

    const run = await client.request("cron.run", { id: job.id, mode: "force" });
    expect(run.payload).toMatchObject({ ok: true, enqueued: true });
    const runs = await until(
      () => client.request("cron.runs", { id: job.id, runId: run.payload.runId }),
      (res) => res.payload.entries.length === 1,
    );
    expect(runs.payload.entries[0]).toMatchObject({
      jobId: job.id,
      status: "ok",
      sessionKey: `agent:main:cron:${job.id}`,
      summary: "ECHO: summarize",
    });
    const history = await t.call(`/sessions/${encodeURIComponent(`agent:main:cron:${job.id}`)}/history`);
    expect(history.text).toContain("ECHO: summarize");

    const list = await client.request("cron.list", {
      includeDisabled: true,
      limit: 50,
      offset: 0,
      sortBy: "nextRunAtMs",
    });
    expect(list.payload).toMatchObject({ total: 1, hasMore: false, nextOffset: null });
    expect(list.payload.jobs[0]).toMatchObject({ id: job.id, effectiveAgentId: "main", lastRunStatus: "ok" });
    const paused = await client.request("cron.update", { id: job.id, patch: { enabled: false } });
    expect(paused.payload).toMatchObject({ enabled: false });
    expect(paused.payload.state.nextRunAtMs).toBeUndefined();
    expect((await client.request("cron.list", {})).payload.jobs).toEqual([]);
    expect((await client.request("cron.remove", { id: job.id })).payload).toEqual({ ok: true, removed: true });
    const gone = await client.request("cron.remove", { id: job.id });
    expect(gone.ok).toBe(false);
    expect(gone.error.message).toContain(`Automation not found: ${job.id}`);
  });

  it("refuses bad jobs with OpenClaw's words and needs admin to change them", async () => {
    const t = await freshTenant("cron-bad");
    const client = await GatewayClient.connect({ path: t.prefix, token: t.token });
    open.push(client);
    const base = {
      name: "x",
      sessionTarget: "isolated",
      wakeMode: "now",
      schedule: { kind: "every", everyMs: 60_000 },
      payload: { kind: "agentTurn", message: "m" },
    };
    const fast = await client.request("cron.add", { ...base, schedule: { kind: "every", everyMs: 500 } });
    expect(fast.error.message).toBe(
      "invalid cron.add params: schedule.everyMs must be at least 2000 ms on this deployment",
    );
    const main = await client.request("cron.add", { ...base, sessionTarget: "main" });
    expect(main.error.message).toBe('invalid cron.add params: main cron jobs require payload.kind="systemEvent"');
    const noId = await client.request("cron.run", {});
    expect(noId.error.message).toBe("invalid cron.run params: missing id");
    const missing = await client.request("cron.add", { name: "x" });
    expect(missing.ok).toBe(false);
    expect(missing.error.message).toMatch(/^invalid cron.add params: /);

    const reader = await issueToken(t.id, ["operator.read", "operator.write"]);
    const weak = await GatewayClient.connect({ path: t.prefix, token: reader.token });
    open.push(weak);
    expect((await weak.request("cron.list", {})).ok).toBe(true);
    const refused = await weak.request("cron.add", base);
    expect(refused.error.message).toBe("missing scope: operator.admin");
  });

  it("serves the same automations over HTTP", async () => {
    const t = await freshTenant("cron-http");
    const created = await t.call("/v1/automations", {
      method: "POST",
      json: {
        name: "Morning",
        sessionTarget: "isolated",
        wakeMode: "now",
        schedule: { kind: "cron", expr: "0 9 * * 1-5", tz: "Europe/Vienna" },
        payload: { kind: "agentTurn", message: "plan the day" },
      },
    });
    expect(created.status).toBe(201);
    const id = created.data.job.id;
    expect((await t.call("/v1/automations")).data.jobs.map((j: { id: string }) => j.id)).toEqual([id]);
    expect((await t.call(`/v1/automations/${id}`)).data.job.schedule.tz).toBe("Europe/Vienna");
    const patched = await t.call(`/v1/automations/${id}`, { method: "PATCH", json: { name: "Morning plan" } });
    expect(patched.data.job.name).toBe("Morning plan");
    const run = await t.call(`/v1/automations/${id}/run`, { method: "POST" });
    expect(run.status).toBe(202);
    await until(
      () => t.call(`/v1/automations/${id}/runs`),
      (res) => res.data.entries?.[0]?.status === "ok",
    );
    expect((await t.call("/v1/automations/status")).data).toMatchObject({ ok: true, enabled: true, jobs: 1 });
    expect((await t.call(`/v1/automations/${id}`, { method: "DELETE" })).data).toEqual({ ok: true, removed: true });
    expect((await t.call(`/v1/automations/${id}`)).status).toBe(404);
    const bad = await t.call("/v1/automations", { method: "POST", json: { name: "x" } });
    expect(bad.status).toBe(400);
  });
});
