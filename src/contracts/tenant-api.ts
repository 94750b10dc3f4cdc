import type { SessionRow } from "../model/session-row";
import type { FlowStep } from "../policy/flow-steps";
import type { LimitsState, Meter, Refusal, TranscriptLimits } from "../policy/limit-rules";
import type { RunnerConfig, TenantConfig } from "../protocol/config";
import type { OperatorScope } from "../protocol/http";
import type {
  DeploymentKeyGrant,
  DeploymentKeyGrantChange,
  ResolvedSecret,
  SecretStoreEntry,
  SecretWrite,
} from "../protocol/secrets";
import type { SessionEntry, SessionPatch } from "../protocol/session";
import type { StreamTicketGrant } from "../protocol/stream-ticket";
import type { HubInterest } from "./hub-api";
import type { Awaitable, PatchOptions, SessionRef } from "./session-api";
import type { ChangeReason, LiveEvent, SessionUpdate } from "./session-update";

/** What a meter granted: `granted` calls (0: refused until `retryAfterMs` from now), counted in the window ending at `windowEndsAt` (ms). */
export type MeterGrant = { granted: number; retryAfterMs: number; windowEndsAt: number };

export type { ChangeReason, LiveEvent, SessionUpdate };

/** `previous_response_id`: the run whose session a new run continues, if its key has one of these prefixes. */
export type ContinuedRun = { runId: string; keyPrefixes: string[] };

/** A run start's admission: its session (the owner of the run id), or the limit that refused it. */
export type RunStartAnswer = { owner: string } | { refused: Refusal };
/** A flow step's admission: stopped by the config, refused by a limit, or admitted with its runner. */
export type FlowStepAnswer = { owner: string; runner: RunnerConfig } | { refused: Refusal } | { stopped: string };

/** `admitCompletion`'s answer: over the meter, or the run's session and its `recordRunStart` answer. */
export type CompletionAdmission =
  | { limited: MeterGrant & { perMinute: number } }
  | { key: string; recorded: RunStartAnswer };

export type IssuedToken = { tokenId: string; token: string; scopes: OperatorScope[] };
export type TenantAccess = { scopes: OperatorScope[]; config: TenantConfig };

/** Why a session object claims a pending entry: a write may create the session, a read never does. */
export type ClaimIntent = "read" | "write";

/** A new session key refused over the tenant's `sessions` limit (a result: it crosses RPC). */
export type SessionRefused = { refused: { message: string; retryAfterMs: number } };

/** Visibility as SQL: one key, a key and its spawned children, some agents, or everything. */
export type ListScope =
  | { kind: "all" }
  | { kind: "self"; key: string }
  | { kind: "tree"; key: string; agentId: string }
  | { kind: "agents"; agentIds: string[] };

export type ListFilter = {
  limit?: number;
  /** sessions.list paging only (listSessionsPage): a position in the list. */
  offset?: number;
  activeMinutes?: number;
  includeGlobal?: boolean;
  includeUnknown?: boolean;
  includeArchived?: boolean;
  archivedOnly?: boolean;
  label?: string;
  agentId?: string;
  spawnedBy?: string;
  search?: string;
  kinds?: string[];
  /** Only sessions with a run in progress. */
  activeOnly?: boolean;
  /** Leave out sub-agent sessions / automation (`cron:`) sessions. */
  excludeSubagents?: boolean;
  excludeCron?: boolean;
  /** Which sessions the caller may see (decided by the visibility policy). */
  scope?: ListScope;
};

/** A page of the session list: `total` only where it is cheap to know exactly. */
export type ListPage = {
  rows: SessionRow[];
  hasMore: boolean;
  /** Rows matching the filter in all pages; absent when counting would read too many rows. */
  total?: number;
  /** A `search` stopped at its scan budget (the page may be short or empty). */
  scanLimited?: boolean;
};

/*
 * The RPC surface of a tenant object (one per tenant), split by the role a caller needs: a
 * caller's context (domain/context.ts) names the roles it uses, so a reader sees what it may
 * touch. The object itself implements them all (`TenantApi`).
 */

/** Who may act for the tenant: the tenant record, operator tokens, follows and stream tickets. */
export interface TenantAccessApi {
  create(tenantId: string): Awaitable<boolean>;
  exists(): Awaitable<boolean>;
  openDefault(tenantId: string): Awaitable<TenantConfig>;
  issueToken(scopes: OperatorScope[], label?: string): Awaitable<IssuedToken | null>;
  tokenExists(tokenId: string): Awaitable<boolean>;
  /** Records an open SSE follow of `key` by `tokenId`; false when the token is gone. */
  followWith(tokenId: string, key: string): Awaitable<boolean>;
  revokeToken(tokenId: string): Awaitable<boolean>;
  authenticate(tokenId: string, hash: string): Awaitable<TenantAccess | null>;
  /** A bearer token's access for a hub's `connect` (scopes, and the token id when it is one). */
  authenticateGateway(token: string): Awaitable<{ scopes: readonly OperatorScope[]; tokenId?: string } | null>;
  // Stream tickets (EventSource follows)
  issueStreamTicket(hash: string, grant: StreamTicketGrant, expiresAt: number): Awaitable<boolean>;
  redeemStreamTicket(hash: string): Awaitable<{ grant: StreamTicketGrant; config: TenantConfig } | null>;
}

/** The tenant's gateway: WebSocket upgrades, and what its hub objects' connections would receive. */
export interface TenantHubsApi {
  /** WebSocket upgrades of the tenant's gateway (the object's name is the tenant id). */
  fetch(request: Request): Promise<Response>;
  /** A hub's connections changed: what they would receive, for routing events to it (src/gateway-hub-object.ts). */
  hubInterest(hub: number, interest: HubInterest): Awaitable<void>;
}

/** The tenant's config and its runner secret. */
export interface TenantConfigApi {
  config(): Awaitable<TenantConfig>;
  /** Replaces the config; with `baseHash`, only while the stored one still has that hash. */
  putConfig(config: TenantConfig, baseHash?: string): Awaitable<ConfigWrite>;
  runnerSecret(rotate?: boolean): Awaitable<string>;
}

/** The secret store (src/secrets/): values sealed at rest, never listed for `secret` entries. */
export interface TenantSecretsApi {
  secretsList(): Awaitable<SecretStoreEntry[]>;
  /** Why the write was refused, or null when stored. */
  secretsSet(write: SecretWrite): Awaitable<string | null>;
  secretsDelete(name: string): Awaitable<boolean>;
  /** Deployment keys granted to this tenant, after an operator's change (src/secrets/deployment-keys.ts). */
  deploymentKeyGrants(change?: DeploymentKeyGrantChange): Awaitable<{ grants: DeploymentKeyGrant[]; changed: boolean }>;
  /** A value for a run of this tenant; null when there is no such entry. */
  resolveSecret(name: string): Awaitable<ResolvedSecret | null>;
}

/** The run index (run id → session), model-call slots, and the tenant's limits and meters. */
export interface TenantRunsApi {
  /**
   * Every run start — the doors (chat.send, agent, ingest, OpenAI routes), hooks, channels,
   * automations, spawn children and sessions_send targets: refused over the tenant's run limits,
   * else its run id recorded with its session (answering the owner) and abortable on its way to
   * the session (an abort without a run id catches it). A run id recorded before is never refused.
   */
  recordRunStart(runId: string, key: string): Awaitable<RunStartAnswer>;
  /**
   * A sessions_send flow step (ping-pong turn, announce): stopped when the config now ends the
   * chain (src/policy/flow-steps.ts), else admitted as recordRunStart does, with its agent's runner now.
   */
  recordFlowStep(runId: string, key: string, step: FlowStep): Awaitable<FlowStepAnswer>;
  /**
   * The run that takes a finished sub-agent's announce into its requester: recorded (so
   * agent.wait finds it) without admission, since its spawn was admitted (recordRunStart) and
   * each child announces once.
   */
  recordAnnounceRun(runId: string, key: string): Awaitable<string>;
  /**
   * An OpenAI route's run before it starts, in one call: the `completions` meter (`limited` when
   * used up: nothing recorded), then its session (the run `continues` names, when that run's key
   * has one of its prefixes; else `key`), then `recordRunStart` there.
   */
  admitCompletion(runId: string, key: string, continues?: ContinuedRun): Awaitable<CompletionAdmission>;
  /** A slot for one model call of a run, once one is free (FIFO); disposing it gives it back. */
  acquireModelSlot(runId: string): Promise<Disposable>;
  /** The tenant's limits and what is used of them; `override` replaces the operator's values (null clears). */
  limits(override?: Record<string, unknown> | null): Awaitable<LimitsState>;
  /** The transcript byte limits a session object checks its appends against. */
  transcriptLimits(): Awaitable<TranscriptLimits>;
  runKey(runId: string): Awaitable<string | null>;
  /** The run's session once its id is recorded, waiting up to `timeoutMs`; null when it is not by then. */
  waitForRunKey(runId: string, timeoutMs: number): Awaitable<string | null>;
  /** Abortable run ids recorded for `key` a moment ago (their start may still be on its way to the session). */
  recentRunIds(key: string): Awaitable<string[]>;
  /** Up to `want` calls of a per-minute meter and the limit in force (src/tenant/minute-meters.ts). */
  admit(meter: Meter, want?: number): Awaitable<MeterGrant & { perMinute: number }>;
}

/** The session index: rows the session objects publish, pending sessions, lookups and lists. */
export interface TenantIndexApi {
  /** Applies a session's update; answers who would receive its next one (src/session/publish-window.ts). */
  publish(update: SessionUpdate): Awaitable<{ hot: boolean; listening: boolean }>;
  /**
   * `sessions.patch` of a key no session object holds: the entry is created (or, still
   * unclaimed, patched) here alone and announced. Null: the session object owns the key.
   */
  createSession(
    ref: SessionRef,
    patch: SessionPatch,
    options?: PatchOptions,
  ): Awaitable<SessionEntry | SessionRefused | null>;
  /**
   * A session object without an entry claims the pending one created here (see
   * src/pending/pending-sessions.ts). `write`: it may create the session now, so a create
   * arriving meanwhile goes to it. `start`: the tenant object itself asks before it starts a run
   * there (so the object need not ask). Undefined when the key's session is published (its
   * object has its entry) and nothing was claimed.
   */
  claimPendingSession(
    key: string,
    intent: ClaimIntent | "start",
  ): Awaitable<{ entry: SessionEntry; version: number } | SessionRefused | null | undefined>;
  removeSession(key: string, at: number): Awaitable<boolean>;
  session(key: string, withChildren?: boolean): Awaitable<SessionRow | null>;
  keyForSessionId(sessionId: string): Awaitable<{ key: string; agentId: string } | null>;
  listSessions(filter: ListFilter): Awaitable<SessionRow[]>;
  /** One page at `filter.offset` (SessionDirectory.page): O(page) when it continues a served page. */
  listSessionsPage(filter: ListFilter & { limit: number }): Awaitable<ListPage>;
  /** Every indexed key (archived, cron runs, global included), a page at a time in key order. */
  sessionKeysAfter(afterKey: string, limit: number): Awaitable<string[]>;
  /** An import's transcript id: null when it may be used for `key`, else the key holding it. */
  claimSessionId(sessionId: string, key: string, agentId: string): Awaitable<string | null>;
  keysWithLabel(label: string, agentId?: string): Awaitable<string[]>;
  agentIds(): Awaitable<string[]>;
  countActiveChildren(key: string): Awaitable<number>;
  rebuildIndex(): Awaitable<{ sessions: number }>;
}

/** The operator's view of a tenant: its tokens, its size, and its deletion. */
export interface TenantAdminApi {
  tokenList(limit: number, after?: { createdAt: number; tokenId: string }): Awaitable<TokenInfo[] | null>;
  info(): Awaitable<{ createdAt: number; deletingAt?: number; sessions: number; tokens: number } | null>;
  deletionStep(batch: number): Awaitable<{ deletingSince: number; keys: string[]; remaining: number } | null>;
  finishDeletion(): Awaitable<void>;
}

/** Every role: the tenant object's whole surface (its class implements it; its stub speaks it). */
export type TenantApi = TenantAccessApi &
  TenantHubsApi &
  TenantConfigApi &
  TenantSecretsApi &
  TenantRunsApi &
  TenantIndexApi &
  TenantAdminApi;

/** A token as the admin API lists it: never the hash. */
export type TokenInfo = {
  tokenId: string;
  scopes: OperatorScope[];
  label?: string;
  createdAt: number;
  lastUsedAt?: number;
};

/** A config write: stored (with its new hash), or refused because it changed meanwhile. */
export type ConfigWrite = { ok: true; config: TenantConfig; hash: string } | { ok: false; reason: "changed" };
