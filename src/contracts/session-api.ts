import type { Delivery, DeliveryTarget } from "../model/delivery";
import type { Flow, FlowSpec } from "../model/flow";
import type { AppendRejected } from "../model/message-limits";
import type { MessageRecord } from "../model/message-record";
import type { RunInput, RunSnapshot, RunUsage } from "../model/run-types";
import type { SessionRow } from "../model/session-row";
import type { SpawnSpec } from "../model/spawn";
import type { RunnerConfig, SendPolicyConfig } from "../protocol/config";
import type { ImportBody, ImportConflict, ImportResult } from "../protocol/import";
import type { RunView } from "../protocol/runs";
import type { InputProvenance, SessionEntry, SessionPatch, SessionSeed, TranscriptMessage } from "../protocol/session";
import type { SessionUpdate } from "./session-update";

/**
 * The RPC surface of a session object (one per tenant + canonical session key). Callers hold
 * it as a port (`TenantContext.sessions(key)`); the Durable Object class implements it.
 * Results are plain data (RPC copies them); failures that callers handle are results, not throws.
 */

/** A value or a promise of it: the class answers synchronously, its stub asynchronously. */
export type Awaitable<T> = T | Promise<T>;

/** Which session an RPC is about; the caller resolves it before calling. */
export type SessionRef = { tenantId: string; key: string; agentId: string };

export type AppendInput = { messages: TranscriptMessage[]; seed?: SessionSeed; idempotencyKey?: string };
export type AppendedMessage = { seq: number; messageId: string };
export type AppendResult = {
  sessionKey: string;
  sessionId: string;
  appended: AppendedMessage[];
  created: boolean;
  duplicate: boolean;
};

/**
 * `reason` is what `sessions.changed` says (by default `create` when the patch created the
 * session); `parentSessionKey` records the session this one was created from (sessions.create).
 */
export type PatchOptions = { reason?: "create" | "patch"; parentSessionKey?: string };

export type PageQuery = {
  sessionId: string;
  /** Tail pages end just before this seq (exclusive); forward pages start after it. */
  cursorSeq?: number;
  limit: number;
  includeTools: boolean;
  /** Stop once this many JSON bytes are collected (at least one message is returned). */
  maxBytes: number;
};
export type Page = { messages: MessageRecord[]; hasMore: boolean };
/**
 * JSON bytes of one page read whole for a reader that sanitizes or streams it after (chat
 * history, sessions_history, the first page of a follow): well under the 32 MiB RPC limit.
 */
export const HISTORY_READ_MAX_BYTES = 8 * 1024 * 1024;

/** A page of the current transcript, or of an older one by sessionId. */
export type ReadQuery = Omit<PageQuery, "sessionId"> & { sessionId?: string; direction: "tail" | "forward" };

export type TranscriptInfo = { sessionId: string; startedAt: number; endedAt: number | null };

/** A message of the current transcript that matches a search (OpenClaw's `sessions.search` hit). */
export type TranscriptHit = {
  sessionId: string;
  messageId: string;
  seq: number;
  role: "user" | "assistant";
  timestamp: number;
  snippet: string;
};
/** A search of one transcript: its hits, the message bytes looked at, and whether the byte budget stopped it. */
export type TranscriptSearch = { hits: TranscriptHit[]; bytes: number; stopped: boolean };
export type IndexSnapshot = { row: SessionRow; version: number };

/** How a run is configured when it starts (resolved from tenant config by the caller). */
export type StartRun = {
  runId: string;
  input: RunInput;
  runner: RunnerConfig;
  /** Appended as the user message (with provenance) unless the run continues an existing turn. */
  userMessage?: TranscriptMessage;
  /** `/new` or `/reset`: a new transcript first (not when the run id is a retry). */
  resetFirst?: "new" | "reset";
  /** Answer once the run ended or after this long, with its `outcome` (saves the caller a `waitRun`). */
  waitMs?: number;
  /**
   * Admit the run but start it (and append its user message) only when the answer's `gate` is
   * disposed: the gateway answers `chat.send` first, so an abort sent right after it finds the
   * run not started, as with OpenClaw. A fallback timer releases it if the release never comes.
   */
  hold?: boolean;
  /** Open the run's live text (`RunTapLine` JSON lines) before it starts and answer it as `tap`. */
  follow?: boolean;
  /** The pending-entry claim the tenant object made for the session (undefined: not made; the object asks). */
  claimed?: { entry: SessionEntry; version: number } | null;
  /**
   * The model ids the agent's runner offers now (policy/agent-models.ts `agentModels`): a model
   * the session chose that is no longer among them (the config changed) is not sent.
   */
  offeredModels?: string[];
  /** The tenant's transcriptBytesPerSession in force (the session object sets it from its TranscriptQuota). */
  maxSessionBytes?: number;
};

/** A run's live text as JSON lines (`RunTapLine` of runs/run-taps). */
export type RunTap = ReadableStream<Uint8Array>;

/** What starting a run answers; `outcome` when the request asked to wait (`waitMs`) and it started. */
export type StartAnswer = StartResult & { outcome?: RunSnapshot | null };

export type StartResult =
  | { runId: string; status: "started"; userSeq?: number; queued: boolean }
  | { runId: string; status: "blocked" }
  | { runId: string; status: "too_large"; bytes: number; sessionBytes?: number; maxSessionBytes?: number }
  | { runId: string; status: "in_flight" }
  | {
      runId: string;
      status: "ok" | "error" | "timeout" | "aborted";
      summary?: string;
      reply?: string;
      stopReason?: string;
      endedAt?: number;
    };

/** The send policy a session object applies to its own entry (null config = allow). */
export type SendPolicyCheck = { config: SendPolicyConfig | null };

/** Webhook host callbacks for a deferred run. */
export type RunCallback =
  | { kind: "progress"; text?: string; messages?: TranscriptMessage[] }
  | {
      kind: "complete";
      reply?: string;
      error?: string;
      usage?: RunUsage;
      toolMessages?: TranscriptMessage[];
    };

/** The lineage a sub-agent session records about itself when spawned. */
export type SpawnLineage = Pick<
  SessionEntry,
  | "spawnedBy"
  | "spawnDepth"
  | "subagentRole"
  | "subagentControlScope"
  | "sandboxed"
  | "label"
  | "model"
  | "thinkingLevel"
>;

/** The sessions_send follow-up spec as the tool fixes it (the target object adds its own side). */
export type FlowRequest = Omit<FlowSpec, "tenantId" | "primaryRunId" | "targetKey" | "targetAgentId">;

/** What a requester receives from a finished sub-agent: appended (and run) in its session, delivered to its channel. */
export type AnnounceDelivery = {
  runId: string;
  sandboxed: boolean;
  text: string;
  channelText: string;
  provenance: InputProvenance;
  runner: RunnerConfig;
  deliver: boolean;
  fallbackTarget?: DeliveryTarget;
};

export type AbortOutcome = { abortedRunId: string | null; status: "aborted" | "no-active-run" };

/** What chat.inject answers; `update`: the tenant's to apply (the caller asked to deliver it). */
export type InjectResult = AppendRejected | (AppendResult & { update?: SessionUpdate });

export interface SessionApi {
  // Transcript
  append(ref: SessionRef, input: AppendInput): Awaitable<AppendResult | AppendRejected>;
  /**
   * chat.inject: appends a message as the gateway and announces it as a `chat` final; answers
   * once clients have it. With `handOff` (the caller is the tenant object) the answer may carry
   * the `update` for the caller to apply itself instead.
   */
  inject(ref: SessionRef, message: TranscriptMessage, handOff?: boolean): Awaitable<InjectResult>;
  /** A page of another gateway's transcript, written at its source positions. */
  importPage(ref: SessionRef, body: ImportBody): Awaitable<ImportResult | ImportConflict | AppendRejected>;
  entry(): Awaitable<SessionEntry | null>;
  read(query: ReadQuery): Awaitable<(Page & { sessionId: string }) | null>;
  transcripts(): Awaitable<TranscriptInfo[]>;
  /** Messages of the current transcript whose text contains `text` (any case), newest first, within `maxBytes` looked at. */
  search(text: string, limit: number, maxBytes: number): Awaitable<TranscriptSearch>;
  /** Resolves once the transcript has a message past `afterSeq`, or after `timeoutMs` (sessions_wait). */
  waitForMessages(afterSeq: number, timeoutMs: number): Awaitable<{ sessionId: string | null; lastSeq: number }>;
  indexSnapshot(): Awaitable<IndexSnapshot | null>;
  /** Someone began following this session live: its next update goes without a quiet window. */
  listenerJoined(): Awaitable<void>;
  /** SSE follow (`FOLLOW_HEADER` carries the query). */
  fetch(request: Request): Promise<Response>;
  /** Ends the SSE follows opened with `tokenId` (it was revoked); answers how many. */
  endFollows(tokenId: string): Awaitable<number>;
  // Control
  reset(ref: SessionRef, reason?: "new" | "reset"): Awaitable<SessionEntry>;
  patch(ref: SessionRef, patch: SessionPatch, options?: PatchOptions): Awaitable<SessionEntry>;
  /** `tenantDeleting`: the tenant is being deleted, its ledger cleared at the end: the files' deletion is billed to no one. */
  delete(ref: SessionRef, options?: { tenantDeleting?: boolean }): Awaitable<boolean>;
  // Runs
  startRun(
    ref: SessionRef,
    request: StartRun,
    seed?: SessionSeed,
    policy?: SendPolicyCheck,
  ): Awaitable<StartAnswer & { sessionId: string; messageId?: string; gate?: Disposable; tap?: RunTap }>;
  runSnapshot(runId: string): Awaitable<RunSnapshot | null>;
  /** A run as the HTTP API shows it; with `waitMs`, once it ended or after that long. */
  runView(runId: string, waitMs?: number): Awaitable<RunView | null>;
  /** Runs newest first, before `beforeSeq`; null when the session does not exist. */
  runPage(limit: number, beforeSeq?: number): Awaitable<{ runs: RunView[]; nextSeq?: number } | null>;
  waitRun(runId: string, timeoutMs: number): Awaitable<RunSnapshot | null>;
  /**
   * `reason`: how clients see it stopped (`rpc` = chat.abort/sessions.abort, the default);
   * `expected`: run ids the tenant recorded for this session a moment ago (their start may still come).
   */
  abortRun(runId?: string, reason?: "rpc" | "stop", expected?: string[]): Awaitable<AbortOutcome>;
  /**
   * Aborts every unfinished run, and runs whose start is still on its way (`stop` = the /stop
   * command, the default); `expected`: run ids the tenant recorded for this session a moment ago.
   */
  stopRuns(reason?: "rpc" | "stop", expected?: string[]): Awaitable<string[]>;
  runCallback(runId: string, callback: RunCallback): Awaitable<{ ok: boolean; state: string | null }>;
  // Agent-to-agent (sessions_send) and deliveries
  sendInterSession(
    ref: SessionRef,
    request: StartRun,
    flow: FlowRequest,
    policy: SendPolicyCheck,
  ): Awaitable<StartAnswer>;
  deliveries(limit?: number): Awaitable<Delivery[]>;
  flow(id: string): Awaitable<Flow | null>;
  // Sub-agents (sessions_spawn)
  startSpawn(ref: SessionRef, lineage: SpawnLineage, request: StartRun, spec: SpawnSpec): Awaitable<StartResult>;
  receiveAnnounce(ref: SessionRef, announce: AnnounceDelivery): Awaitable<boolean>;
}
