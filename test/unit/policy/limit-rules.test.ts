import { describe, expect, it } from "vitest";
import {
  admitRun,
  cleanOverride,
  DEFAULT_LIMITS,
  deploymentLimits,
  effectiveLimits,
  LIMIT_NAMES,
  limitsView,
  sessionRefusal,
  slotFree,
  socketRefusal,
  spendRefusal,
  startRateRefusal,
  tenantBytesRefusal,
} from "../../../src/policy/limit-rules";

describe("deploymentLimits: the operator's wrangler vars", () => {
  it("takes positive whole numbers and keeps the built-in default otherwise", () => {
    expect(deploymentLimits({})).toEqual(DEFAULT_LIMITS);
    const vars = { LIMIT_RUNS_IN_FLIGHT: "16", LIMIT_RUNS_QUEUED: "0", LIMIT_RUN_STARTS_PER_MINUTE: "1.5" };
    expect(deploymentLimits(vars)).toEqual({ ...DEFAULT_LIMITS, runsInFlight: 16 });
    expect(deploymentLimits({ LIMIT_TOOLS_PER_MINUTE: "abc", LIMIT_COMPLETIONS_PER_MINUTE: "-3" })).toEqual(
      DEFAULT_LIMITS,
    );
  });
});

describe("effectiveLimits: min(tenant config, operator override or deployment default)", () => {
  const deployment = { ...DEFAULT_LIMITS };

  it("lets a tenant lower a limit and never raise it", () => {
    const limits = effectiveLimits(deployment, {}, { limits: { runsInFlight: 8, runStartsPerMinute: 1e9 } });
    expect(limits.runsInFlight).toBe(8);
    expect(limits.runStartsPerMinute).toBe(DEFAULT_LIMITS.runStartsPerMinute);
  });

  it("caps the older rateLimit section by the same ceilings (1e9 tool calls a minute is 6000)", () => {
    const limits = effectiveLimits(deployment, {}, { rateLimit: { toolsPerMinute: 1e9, completionsPerMinute: 5 } });
    expect(limits.toolsPerMinute).toBe(6000);
    expect(limits.completionsPerMinute).toBe(5);
  });

  it("treats the automation interval as a floor: a tenant may only raise it", () => {
    expect(effectiveLimits(deployment, {}, { limits: { cronMinIntervalMs: 60_000 } }).cronMinIntervalMs).toBe(60_000);
    expect(effectiveLimits(deployment, {}, { limits: { cronMinIntervalMs: 10 } }).cronMinIntervalMs).toBe(2_000);
    expect(deploymentLimits({ CRON_MIN_INTERVAL_MS: "30000", CRON_MAX_JOBS_PER_TENANT: "5" })).toMatchObject({
      cronMinIntervalMs: 30_000,
      cronJobs: 5,
    });
  });

  it("puts the operator's override in place of the deployment default, above or below it", () => {
    const override = { runsInFlight: 200, runsQueued: 4 };
    expect(effectiveLimits(deployment, override, {})).toMatchObject({ runsInFlight: 200, runsQueued: 4 });
    expect(effectiveLimits(deployment, override, { limits: { runsInFlight: 300, runsQueued: 2 } })).toMatchObject({
      runsInFlight: 200,
      runsQueued: 2,
    });
  });
});

describe("admitRun and slots", () => {
  const limits = { ...DEFAULT_LIMITS, runsInFlight: 2, runsQueued: 3 };

  it("admits while the runs fill fewer than every slot and queue place", () => {
    expect(admitRun({ inFlight: 0, queued: 0 }, limits)).toBeNull();
    expect(admitRun({ inFlight: 2, queued: 2 }, limits)).toBeNull();
    const refusal = admitRun({ inFlight: 2, queued: 3 }, limits);
    expect(refusal).toMatchObject({ limit: "runsQueued", retryAfterMs: 5000 });
    expect(refusal?.message).toBe("Too many runs: 2 in flight and 3 queued (limits 2 and 3)");
  });

  it("gives a slot only under runsInFlight", () => {
    expect(slotFree(1, limits)).toBe(true);
    expect(slotFree(2, limits)).toBe(false);
  });

  it("says the start rate and the wait", () => {
    expect(startRateRefusal({ ...limits, runStartsPerMinute: 9 }, 1234)).toEqual({
      limit: "runStartsPerMinute",
      message: "Too many run starts: the limit is 9 per minute",
      retryAfterMs: 1234,
    });
  });
});

describe("spendRefusal: tokens per UTC day", () => {
  const limits = { ...DEFAULT_LIMITS, tokensPerDay: 1000 };

  it("refuses from the limit on, until the next UTC midnight", () => {
    const now = Date.UTC(2026, 10, 26, 23, 59, 0);
    expect(spendRefusal(999, limits, now)).toBeNull();
    expect(spendRefusal(1000, limits, now)).toEqual({
      limit: "tokensPerDay",
      message: "Token limit reached: 1000 of 1000 tokens used today (UTC)",
      retryAfterMs: 60_000,
    });
  });
});

describe("socketRefusal: gateway sockets per tenant", () => {
  it("refuses the socket that would pass the limit", () => {
    const limits = { ...DEFAULT_LIMITS, sockets: 2 };
    expect(socketRefusal(1, limits)).toBeNull();
    expect(socketRefusal(2, limits)).toEqual({
      limit: "sockets",
      message: "Too many gateway connections: the limit is 2 per tenant",
      retryAfterMs: 10_000,
    });
  });
});

describe("sessions and transcript bytes", () => {
  it("defaults to 100k sessions, 8 GiB per session and 1 TiB per tenant, set by LIMIT_* vars", () => {
    expect(DEFAULT_LIMITS).toMatchObject({
      sessions: 100_000,
      transcriptBytesPerSession: 8 * 1024 ** 3,
      transcriptBytesPerTenant: 1024 ** 4,
    });
    const vars = {
      LIMIT_SESSIONS: "50",
      LIMIT_TRANSCRIPT_BYTES_PER_SESSION: "4096",
      LIMIT_TRANSCRIPT_BYTES_PER_TENANT: "8192",
    };
    expect(deploymentLimits(vars)).toMatchObject({
      sessions: 50,
      transcriptBytesPerSession: 4096,
      transcriptBytesPerTenant: 8192,
    });
  });

  it("lets a tenant lower them and never raise them", () => {
    const deployment = { ...DEFAULT_LIMITS };
    const limits = effectiveLimits(
      deployment,
      { sessions: 10 },
      { limits: { sessions: 1e6, transcriptBytesPerSession: 2048, transcriptBytesPerTenant: 2 ** 50 } },
    );
    expect(limits).toMatchObject({
      sessions: 10,
      transcriptBytesPerSession: 2048,
      transcriptBytesPerTenant: 1024 ** 4,
    });
  });

  it("refuses a new session at the limit and an append once the tenant's bytes reached theirs", () => {
    const limits = { ...DEFAULT_LIMITS, sessions: 3, transcriptBytesPerTenant: 1000 };
    expect(sessionRefusal(2, limits)).toBeNull();
    expect(sessionRefusal(3, limits)).toEqual({
      limit: "sessions",
      message: "Too many sessions: the tenant has 3 and the limit is 3; delete sessions to create new ones",
      retryAfterMs: 60_000,
    });
    expect(tenantBytesRefusal(999, limits)).toBeNull();
    expect(tenantBytesRefusal(1000, limits)).toMatchObject({
      limit: "transcriptBytesPerTenant",
      message: expect.stringMatching(/^Transcript storage full: .* 1000 bytes .* limit is 1000/),
      retryAfterMs: 60_000,
    });
  });
});

describe("views and stored overrides", () => {
  it("keeps only known limits with positive whole values", () => {
    expect(cleanOverride({ runsInFlight: 4, runsQueued: 0, widgets: 3, toolsPerMinute: 2.5 })).toEqual({
      runsInFlight: 4,
    });
  });

  it("shows every limit with its use where one is counted", () => {
    const view = limitsView(DEFAULT_LIMITS, { runsInFlight: 3 });
    expect(Object.keys(view)).toEqual([...LIMIT_NAMES]);
    expect(view.runsInFlight).toEqual({ limit: 64, used: 3 });
    expect(view.toolsPerMinute).toEqual({ limit: 6000 });
  });
});
