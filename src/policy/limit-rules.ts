/**
 * Per-tenant limits: the deployment sets a default for each (wrangler `[vars]`), the operator
 * may set another per tenant (admin API), and the tenant's own config may only go lower.
 * Pure: the tenant object feeds it the three sources and its counters.
 */

/** Every limit a tenant has, by name. */
export const LIMIT_NAMES = [
  "runsInFlight",
  "runsQueued",
  "runStartsPerMinute",
  "toolsPerMinute",
  "completionsPerMinute",
  "searchesPerMinute",
  "tokensPerDay",
  "sockets",
  "cronJobs",
  "cronMinIntervalMs",
  "sessions",
  "transcriptBytesPerSession",
  "transcriptBytesPerTenant",
  "mediaBytesPerFile",
  "mediaBytesPerTenant",
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export type Limits = Record<LimitName, number>;
/** Some limits (an operator override, a tenant's config): the rest come from elsewhere. */
export type PartialLimits = Partial<Record<LimitName, number>>;

/**
 * Defaults sized to one tenant object (tokensPerDay is a spend cap: a safety net, not a budget): a run start costs the tenant object about three calls
 * (record, slot, release), so 600 starts a minute is ~30 calls/s of its ~1,000/s; 64 runs at
 * the model at once keeps a provider's bill and the object's in-flight RPCs in the tens.
 */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  runsInFlight: 64,
  runsQueued: 256,
  runStartsPerMinute: 600,
  toolsPerMinute: 6000,
  completionsPerMinute: 600,
  searchesPerMinute: 60,
  tokensPerDay: 50_000_000,
  sockets: 10_000,
  cronJobs: 100,
  cronMinIntervalMs: 2_000,
  // 100k rows keep the tenant's index (and a whole-list page walk) well inside one object.
  sessions: 100_000,
  // One session object stops at 10 GB; runs, journals and indexes need room too.
  transcriptBytesPerSession: 8 * 1024 ** 3,
  transcriptBytesPerTenant: 1024 ** 4,
  // OpenClaw's channels.telegram.mediaMaxMb default (100 MB): a chat file larger is not downloaded.
  mediaBytesPerFile: 100 * 1024 ** 2,
  // Chat files kept in R2 (ATTACHMENTS) across the tenant's sessions: 10 GiB is ~$0.15 a month.
  mediaBytesPerTenant: 10 * 1024 ** 3,
});

/** The wrangler var that sets each limit's deployment default. */
export const LIMIT_VARS: Readonly<Record<LimitName, string>> = Object.freeze({
  runsInFlight: "LIMIT_RUNS_IN_FLIGHT",
  runsQueued: "LIMIT_RUNS_QUEUED",
  runStartsPerMinute: "LIMIT_RUN_STARTS_PER_MINUTE",
  toolsPerMinute: "LIMIT_TOOLS_PER_MINUTE",
  completionsPerMinute: "LIMIT_COMPLETIONS_PER_MINUTE",
  searchesPerMinute: "LIMIT_SEARCHES_PER_MINUTE",
  tokensPerDay: "LIMIT_TOKENS_PER_DAY",
  sockets: "LIMIT_SOCKETS",
  // The automations' vars of earlier releases keep their names.
  cronJobs: "CRON_MAX_JOBS_PER_TENANT",
  cronMinIntervalMs: "CRON_MIN_INTERVAL_MS",
  sessions: "LIMIT_SESSIONS",
  transcriptBytesPerSession: "LIMIT_TRANSCRIPT_BYTES_PER_SESSION",
  transcriptBytesPerTenant: "LIMIT_TRANSCRIPT_BYTES_PER_TENANT",
  mediaBytesPerFile: "LIMIT_MEDIA_BYTES_PER_FILE",
  mediaBytesPerTenant: "LIMIT_MEDIA_BYTES_PER_TENANT",
});

/** Floors, not ceilings: the stricter value is the larger one, so a tenant may only raise them. */
const FLOORS: ReadonlySet<LimitName> = new Set(["cronMinIntervalMs"]);

/** The deployment's defaults: each var when it is a positive integer, else the built-in default. */
export function deploymentLimits(vars: Record<string, unknown>): Limits {
  const limits = { ...DEFAULT_LIMITS };
  for (const name of LIMIT_NAMES) {
    const value = Number(vars[LIMIT_VARS[name]]);
    if (Number.isSafeInteger(value) && value > 0) limits[name] = value;
  }
  return limits;
}

/** A tenant's config as far as limits go: its `limits` section and the older `rateLimit` one. */
export type TenantLimitConfig = {
  limits?: PartialLimits | undefined;
  rateLimit?: { toolsPerMinute?: number | undefined; completionsPerMinute?: number | undefined } | undefined;
};

/**
 * The limits in force: min(tenant config, operator override or deployment default). A tenant
 * value above its ceiling is kept in its config but has no effect (it can lower, never raise);
 * for a floor (cronMinIntervalMs) the other way round.
 */
export function effectiveLimits(deployment: Limits, override: PartialLimits, config: TenantLimitConfig): Limits {
  const own: PartialLimits = {
    ...config.limits,
    ...(config.rateLimit?.toolsPerMinute !== undefined ? { toolsPerMinute: config.rateLimit.toolsPerMinute } : {}),
    ...(config.rateLimit?.completionsPerMinute !== undefined
      ? { completionsPerMinute: config.rateLimit.completionsPerMinute }
      : {}),
  };
  const limits = { ...deployment };
  for (const name of LIMIT_NAMES) {
    const ceiling = override[name] ?? deployment[name];
    limits[name] = (FLOORS.has(name) ? Math.max : Math.min)(ceiling, own[name] ?? ceiling);
  }
  return limits;
}

/** What a tenant's runs use now. */
export type RunUsage = {
  /** Runs holding a model slot (a model call in progress). */
  inFlight: number;
  /** Runs admitted and not at the model yet: waiting for a slot, or on their way to one. */
  queued: number;
};

export type Refusal = { limit: LimitName; message: string; retryAfterMs: number };

/** How long a client is told to wait when a run queue is full (runs end in seconds, not minutes). */
export const QUEUE_FULL_RETRY_MS = 5_000;

/**
 * Whether one more run may be admitted: refused when the tenant's runs already fill every
 * model slot and the queue behind them. (The start rate is a window the caller counts.)
 */
export function admitRun(usage: RunUsage, limits: Limits): Refusal | null {
  if (usage.inFlight + usage.queued < limits.runsInFlight + limits.runsQueued) return null;
  return {
    limit: "runsQueued",
    message: `Too many runs: ${usage.inFlight} in flight and ${usage.queued} queued (limits ${limits.runsInFlight} and ${limits.runsQueued})`,
    retryAfterMs: QUEUE_FULL_RETRY_MS,
  };
}

/** The refusal of a start over the per-minute rate, `retryAfterMs` until the window resets. */
export function startRateRefusal(limits: Limits, retryAfterMs: number): Refusal {
  return {
    limit: "runStartsPerMinute",
    message: `Too many run starts: the limit is ${limits.runStartsPerMinute} per minute`,
    retryAfterMs,
  };
}

/** A day in UTC (`YYYY-MM-DD`), the ledger's day. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/**
 * The spend cap: refused once the tenant's runs used `tokensPerDay` tokens today (UTC), until
 * the next UTC midnight. Runs already admitted finish; the ledger's count lags a moment.
 */
export function spendRefusal(tokensToday: number, limits: Limits, now: number): Refusal | null {
  if (tokensToday < limits.tokensPerDay) return null;
  const today = new Date(now);
  const midnight = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1);
  return {
    limit: "tokensPerDay",
    message: `Token limit reached: ${tokensToday} of ${limits.tokensPerDay} tokens used today (UTC)`,
    retryAfterMs: midnight - now,
  };
}

/** How long a client is told to wait when the tenant's sockets are all taken. */
export const SOCKETS_FULL_RETRY_MS = 10_000;

/** A new gateway socket of the tenant, given how many it has (here and in its hub objects). */
export function socketRefusal(sockets: number, limits: Limits): Refusal | null {
  if (sockets < limits.sockets) return null;
  return {
    limit: "sockets",
    message: `Too many gateway connections: the limit is ${limits.sockets} per tenant`,
    retryAfterMs: SOCKETS_FULL_RETRY_MS,
  };
}

/**
 * How long a client is told to wait when the tenant holds all the sessions or transcript bytes
 * it may: only a deletion frees them, so a retry is pointless before a person acts.
 */
export const STORAGE_FULL_RETRY_MS = 60_000;

/** A new session key of the tenant, given how many sessions it has (live index rows and pending ones). */
export function sessionRefusal(sessions: number, limits: Limits): Refusal | null {
  if (sessions < limits.sessions) return null;
  return {
    limit: "sessions",
    message: `Too many sessions: the tenant has ${sessions} and the limit is ${limits.sessions}; delete sessions to create new ones`,
    retryAfterMs: STORAGE_FULL_RETRY_MS,
  };
}

/**
 * An append, given the message bytes of all the tenant's sessions (the index's running total,
 * as recent as the sessions' last updates): refused once the total reached the limit.
 */
export function tenantBytesRefusal(tenantBytes: number, limits: Limits): Refusal | null {
  if (tenantBytes < limits.transcriptBytesPerTenant) return null;
  return {
    limit: "transcriptBytesPerTenant",
    message: `Transcript storage full: the tenant's sessions hold ${tenantBytes} bytes of messages and the limit is ${limits.transcriptBytesPerTenant}; delete sessions to append again`,
    retryAfterMs: STORAGE_FULL_RETRY_MS,
  };
}

/** What a session checks an append against: its own bound, and the tenant's refusal if its bytes are full. */
export type TranscriptLimits = { perSession: number; tenantFull: Refusal | null };

/** Whether a waiting run may take a model slot now. */
export function slotFree(inFlight: number, limits: Limits): boolean {
  return inFlight < limits.runsInFlight;
}

/** An operator override as stored: only known limits with positive integer values. */
export function cleanOverride(input: Record<string, unknown>): PartialLimits {
  const clean: PartialLimits = {};
  for (const name of LIMIT_NAMES) {
    const value = input[name];
    if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) clean[name] = value;
  }
  return clean;
}

/** Each limit with its value and what is used of it (the tenant's and the operator's view). */
export type LimitsView = Record<LimitName, { limit: number; used?: number }>;

export function limitsView(limits: Limits, used: PartialLimits): LimitsView {
  const view = {} as LimitsView;
  for (const name of LIMIT_NAMES) {
    view[name] = { limit: limits[name], ...(used[name] !== undefined ? { used: used[name] } : {}) };
  }
  return view;
}

/** A tenant's limits with what is used of them, and where they come from (the limits views). */
export type LimitsState = {
  limits: LimitsView;
  /** The operator's values for this tenant (admin API); the rest are the deployment's. */
  override: PartialLimits;
  deployment: Limits;
};

/** Meters counted per minute, each against its limit. */
export const METER_LIMITS = Object.freeze({
  tools: "toolsPerMinute",
  completions: "completionsPerMinute",
  search: "searchesPerMinute",
} as const satisfies Record<string, LimitName>);
export type Meter = keyof typeof METER_LIMITS;
