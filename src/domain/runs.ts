import { hasScope } from "../auth/principal";
import type { RunCallback, RunTap, StartResult } from "../contracts/session-api";
import { agentIdOf } from "../keys/session-key";
import { mediaBlock } from "../model/inbound-media";
import { tooLargeMessage } from "../model/message-limits";
import type { RunInput, RunSnapshot } from "../model/run-types";
import { defaultAgentId, isKnownAgent, runnerOf } from "../policy/agent-config";
import { agentModels } from "../policy/agent-models";
import type { Refusal } from "../policy/limit-rules";
import { isSandboxedSession } from "../policy/sandbox";
import { parseSendCommand, SEND_BLOCKED_TEXT } from "../policy/send-policy";
import type { InputProvenance, SessionSeed, TranscriptMessage } from "../protocol/session";
import { terminalReply } from "../runs/run-payloads";
import { existingRunResult } from "../runs/run-snapshot";
import { dropUndefined } from "../util/encoding";
import { type ChatCommand, parseChatCommand, runChatCommand } from "./chat-commands";
import type { TenantContext } from "./context";
import { DomainError, rateLimited, refusalsRestored } from "./errors";
import { agentIdParam, canonicalKey, mainKeyOf, sessionRef } from "./keys";
import { patchSession } from "./session-index";
import type { CommandSpeaker } from "./whoami";

/** Agent runs as the transports start them: chat.send, agent, agent.wait, aborts, ingest with run. */

/** A run as a transport asks for it: the run input's own fields, where, and how to treat it. */
export type RunRequest = Omit<RunInput, "callbackBase" | "sandboxed" | "attachments"> & {
  key: string;
  runId: string;
  /** Skips the send policy (internal steps that are not sends, e.g. the /send command's confirmation). */
  ignoreSendPolicy?: boolean;
  /** Origin and delivery fields for a session the run creates (ingest). */
  seed?: SessionSeed;
  /** `/new` or `/reset` before the message: the session starts a new transcript first. */
  resetFirst?: "new" | "reset";
  /** The run's live text comes with the answer as `tap` (see `StartRun.follow`). */
  follow?: boolean;
};

type Started = Exclude<StartResult, { status: "blocked" | "too_large" }>;

/**
 * Starts a run in a session; the session object applies the send policy to its own entry.
 * The run id is recorded in the tenant's run index first, so `agent.wait` finds it from its
 * id alone, and a run id already used by another session answers from that run.
 */
export async function startRun(ctx: TenantContext<"runs">, request: RunRequest): Promise<StartedRun> {
  // Run ids are tenant-wide (as OpenClaw's dedupe is gateway-wide): a reused id answers from its run.
  return startRecordedRun(ctx, request, await ctx.tenant.recordRunStart(request.runId, request.key));
}

type StartedRun = Started & {
  sessionKey: string;
  sessionId: string;
  messageId?: string;
  gate?: Disposable;
  tap?: RunTap;
};

/** `startRun` once the tenant answered `recordRunStart` (a door that asks it with more in one call). */
export async function startRecordedRun(
  ctx: TenantContext<"runs">,
  request: RunRequest,
  recorded: { owner: string } | { refused: Refusal },
): Promise<StartedRun> {
  const { key, runId, ignoreSendPolicy, seed, resetFirst, follow, ...fields } = request;
  const ref = sessionRef(ctx, key);
  if ("refused" in recorded) throw rateLimited(recorded.refused.message, recorded.refused.retryAfterMs);
  const owner = recorded.owner;
  if (owner !== key) {
    const snapshot = await ctx.sessions(owner).runSnapshot(runId);
    const existing = snapshot
      ? existingRunResult(snapshot)
      : { runId, status: "error" as const, summary: `run id ${runId} is already used by another session` };
    return { ...(existing as Started), sessionKey: owner, sessionId: "" };
  }
  const timeoutSeconds = fields.timeoutSeconds ?? ctx.config.agents?.defaults?.timeoutSeconds;
  const input: RunInput = dropUndefined({
    ...fields,
    timeoutSeconds,
    callbackBase: ctx.origin ? `${ctx.origin}/t/${ctx.tenantId}` : undefined,
    sandboxed: isSandboxedSession(ctx.config, { key, agentId: ref.agentId }),
  });
  const userMessage: TranscriptMessage = {
    role: "user",
    // A chat message's files are referenced after its text (src/model/inbound-media.ts).
    content: fields.media?.length
      ? [{ type: "text", text: fields.message }, ...fields.media.map(mediaBlock)]
      : fields.message,
    provenance: fields.provenance ?? { kind: "external_user" },
    idempotencyKey: `${runId}:user`,
  };
  const result = await refusalsRestored(
    ctx.sessions(key).startRun(
      ref,
      {
        runId,
        input,
        runner: runnerOf(ctx.config, ref.agentId),
        offeredModels: agentModels(ctx.config, ref.agentId).map((model) => model.id),
        userMessage,
        ...(resetFirst ? { resetFirst } : {}),
        ...(follow ? { follow } : {}),
      },
      seed,
      ignoreSendPolicy ? undefined : { config: ctx.config.session?.sendPolicy ?? null },
    ),
  );
  if (result.status === "blocked" || result.status === "too_large") {
    void result.tap?.cancel().catch(() => undefined);
    if (result.status === "blocked") throw new DomainError("invalid", SEND_BLOCKED_TEXT);
    throw new DomainError("too_large", tooLargeMessage(result));
  }
  return { ...result, sessionKey: key };
}

export type ChatSendParams = {
  sessionKey: string;
  message: string;
  idempotencyKey: string;
  originatingChannel?: string;
  originatingTo?: string;
  originatingAccountId?: string;
  originatingThreadId?: string;
  thinking?: string;
  deliver?: boolean;
  attachments?: unknown[];
  timeoutMs?: number;
  systemInputProvenance?: InputProvenance;
  suppressCommandInterpretation?: boolean;
};

/**
 * OpenClaw's `chat.send`: `{ runId, status: "started" }` at once; dedupe by idempotencyKey;
 * /stop and /send commands. A session port that admits the run without starting it (the
 * gateway's, gateway/gated-runs.ts) answers with a `gate` the caller disposes to start it;
 * otherwise there is no gate.
 */
export async function chatSend(
  ctx: TenantContext<"index" | "runs">,
  params: ChatSendParams,
): Promise<{ payload: Record<string, unknown>; gate?: Disposable }> {
  const routed = params.originatingChannel || params.originatingTo || params.originatingAccountId;
  if ((routed || params.originatingThreadId) && !(params.originatingChannel && params.originatingTo)) {
    throw new DomainError("invalid", "originatingChannel and originatingTo are required when routing fields are set");
  }
  const text = params.message.trim();
  if (text === "" && (params.attachments?.length ?? 0) === 0)
    throw new DomainError("invalid", "message or attachment required");
  const key = canonicalKey(ctx, params.sessionKey);
  if (/^\/stop\b/i.test(text)) {
    const runIds = await ctx.sessions(key).stopRuns("stop", await ctx.tenant.recentRunIds(key));
    return { payload: { ok: true, aborted: runIds.length > 0, runIds } };
  }
  const command = parseSendCommand(text);
  if (command) return sendCommand(ctx, key, params.idempotencyKey, params.message, command);
  const chatCommand = params.suppressCommandInterpretation ? null : parseChatCommand(text);
  if (chatCommand) {
    const result = await startChatCommandRun(ctx, chatCommand, {
      key,
      runId: params.idempotencyKey,
      message: params.message,
      origin: "chat.send",
    });
    return chatSendResult(result);
  }
  if (params.systemInputProvenance && !hasScope(ctx.principal, "operator.admin")) {
    throw new DomainError("invalid", "missing scope: operator.admin");
  }
  const message =
    params.thinking && !text.startsWith("/") ? `/think ${params.thinking} ${params.message}` : params.message;
  const result = await startRun(ctx, {
    key,
    runId: params.idempotencyKey,
    message,
    origin: "chat.send",
    provenance: params.systemInputProvenance,
    timeoutSeconds: params.timeoutMs ? Math.ceil(params.timeoutMs / 1000) : undefined,
    deliver: params.deliver,
  });
  return chatSendResult(result);
}

/**
 * Runs a chat command (not /stop or /send) as a run with a fixed reply, the one way every door
 * runs them (chat.send, channel turns): the reply is the run's, so it lands in the transcript and
 * goes to the run's reply target through the outbox, and the run id makes it happen once. `/new`
 * and `/reset` reset the transcript in the session object with the run; `/new <message>` makes
 * the message the new session's first turn (a model run).
 */
export async function startChatCommandRun(
  ctx: TenantContext<"index" | "runs">,
  command: ChatCommand,
  request: RunRequest,
  /** Who typed it (a channel turn's sender); `chat.send` is OpenClaw's `webchat` with no sender. */
  speaker: CommandSpeaker = { channel: request.replyTarget?.channel ?? "webchat" },
): Promise<StartedRun> {
  // A chat's `/stop` stops the session's runs first (its own run, on a repeat, is already done).
  if (command.name === "stop")
    await ctx.sessions(request.key).stopRuns("stop", await ctx.tenant.recentRunIds(request.key));
  const outcome = await runChatCommand(ctx, request.key, command, speaker);
  const firstTurn = outcome.resetFirst && command.args ? command.args : undefined;
  return startRun(ctx, {
    ...request,
    message: firstTurn ?? request.message,
    ...(firstTurn === undefined ? { fixedReply: outcome.reply, ignoreSendPolicy: true } : {}),
    ...(firstTurn === undefined && outcome.replyBlocks ? { replyBlocks: outcome.replyBlocks } : {}),
    ...(outcome.resetFirst ? { resetFirst: outcome.resetFirst } : {}),
  });
}

function chatSendResult(result: Started & { gate?: Disposable }): {
  payload: Record<string, unknown>;
  gate?: Disposable;
} {
  const gate = result.gate ? { gate: result.gate } : {};
  return { payload: chatSendPayload(result), ...gate };
}

function chatSendPayload(result: Started): Record<string, unknown> {
  switch (result.status) {
    case "started":
      return {
        runId: result.runId,
        status: "started",
        ...(result.userSeq !== undefined ? { messageSeq: result.userSeq } : {}),
      };
    case "in_flight":
      return { runId: result.runId, status: "in_flight" };
    case "ok":
      return { runId: result.runId, status: "ok" };
    case "aborted":
      // OpenClaw answers a send whose run was aborted (before or after it started) this way.
      return {
        runId: result.runId,
        status: "timeout",
        summary: "aborted",
        stopReason: result.stopReason ?? "rpc",
        ...(result.endedAt !== undefined ? { endedAt: result.endedAt } : {}),
      };
    default:
      return { runId: result.runId, status: "error", summary: result.summary ?? result.status };
  }
}

/** The owner-only `/send on|off|inherit` command: sets the override and confirms in the chat. */
async function sendCommand(
  ctx: TenantContext<"index" | "runs">,
  key: string,
  runId: string,
  text: string,
  command: NonNullable<ReturnType<typeof parseSendCommand>>,
): Promise<{ payload: Record<string, unknown> }> {
  if (!hasScope(ctx.principal, "operator.admin")) throw new DomainError("invalid", "unauthorized");
  if (command.kind === "set") await patchSession(ctx, key, { sendPolicy: command.value });
  const result = await startRun(ctx, {
    key,
    runId,
    message: text,
    origin: "chat.send",
    fixedReply: command.reply,
    ignoreSendPolicy: true,
  });
  return chatSendResult(result);
}

export type AgentParams = {
  message: string;
  idempotencyKey: string;
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
  thinking?: string;
  deliver?: boolean;
  timeout?: number;
  extraSystemPrompt?: string;
  inputProvenance?: InputProvenance;
  label?: string;
  lane?: string;
  provider?: string;
  model?: string;
};

/** The `agent` method: validates, handles `/new` and `/reset`, starts the run. */
export async function agentRun(
  ctx: TenantContext<"index" | "runs">,
  params: AgentParams,
): Promise<Started & { sessionKey: string; agentId: string }> {
  if ((params.provider !== undefined || params.model !== undefined) && !hasScope(ctx.principal, "operator.admin")) {
    throw new DomainError("invalid", "provider/model overrides are not authorized for this caller.");
  }
  const requestedAgent = params.agentId !== undefined ? agentIdParam(params.agentId) : undefined;
  if (requestedAgent !== undefined && !isKnownAgent(ctx.config, requestedAgent))
    throw new DomainError("invalid", `unknown agent id "${params.agentId}"`);
  let key: string;
  if (params.sessionKey !== undefined) {
    key = canonicalKey(ctx, params.sessionKey, requestedAgent);
    const keyAgent = agentIdOf(key, defaultAgentId(ctx.config));
    if (requestedAgent !== undefined && keyAgent !== requestedAgent) {
      throw new DomainError("invalid", `session key agent "${keyAgent}" does not match agentId "${requestedAgent}"`);
    }
  } else if (params.sessionId !== undefined) {
    const owner = await ctx.tenant.keyForSessionId(params.sessionId);
    if (!owner) throw new DomainError("invalid", `unknown session id "${params.sessionId}"`);
    key = owner.key;
  } else {
    key = mainKeyOf(ctx, requestedAgent ?? defaultAgentId(ctx.config));
  }
  let message = params.message;
  const reset = /^\/(new|reset)\b\s*/i.exec(message);
  if (reset) {
    if (!hasScope(ctx.principal, "operator.admin")) throw new DomainError("invalid", "missing scope: operator.admin");
    message = message.slice(reset[0].length);
    if (message.trim() === "") message = reset[0].trim();
  }
  // The reset happens in the session object with the run (a blocked send or a retry resets nothing).
  const result = await startRun(ctx, {
    key,
    runId: params.idempotencyKey,
    message,
    origin: "agent",
    provenance: params.inputProvenance,
    extraSystemPrompt: params.extraSystemPrompt,
    timeoutSeconds: params.timeout || undefined,
    thinking: params.thinking,
    label: params.label,
    lane: params.lane,
    deliver: params.deliver,
    ...(reset ? { resetFirst: reset[1]!.toLowerCase() as "new" | "reset" } : {}),
  });
  return { ...result, agentId: agentIdOf(key, defaultAgentId(ctx.config)) };
}

/**
 * agent.wait: the run's outcome, or `status: "timeout"` (a successful answer) after timeoutMs.
 * A run id not known yet is waited for (a client may wait before its `agent` request arrived).
 */
export async function agentWait(ctx: TenantContext<"runs">, runId: string, timeoutMs: number): Promise<RunSnapshot> {
  const deadline = Date.now() + timeoutMs;
  const notYet: RunSnapshot = { runId, status: "timeout", state: "queued" };
  const key = await ctx.tenant.waitForRunKey(runId, timeoutMs);
  if (!key) return notYet;
  const snapshot = await ctx.sessions(key).waitRun(runId, Math.max(0, deadline - Date.now()));
  return snapshot ?? notYet;
}

/** The wire shape of agent.wait's answer. */
export function waitPayload(snapshot: RunSnapshot): Record<string, unknown> {
  return {
    runId: snapshot.runId,
    status: snapshot.status === "pending" ? "timeout" : snapshot.status,
    ...(snapshot.startedAt !== undefined ? { startedAt: snapshot.startedAt } : {}),
    ...(snapshot.endedAt !== undefined ? { endedAt: snapshot.endedAt } : {}),
    ...(snapshot.stopReason ? { stopReason: snapshot.stopReason } : {}),
    // OpenClaw reports no error for an aborted run, only its stopReason.
    ...(snapshot.error && snapshot.status !== "ok" && snapshot.state !== "aborted" ? { error: snapshot.error } : {}),
    // OpenClaw summarises the reply of a run that answered (visible text, silent or empty).
    ...(snapshot.state === "ok" || snapshot.reply !== undefined
      ? { terminalReply: terminalReply(snapshot.reply) }
      : {}),
  };
}

export async function chatAbort(ctx: TenantContext<"runs">, params: { sessionKey: string; runId?: string }) {
  const key = canonicalKey(ctx, params.sessionKey);
  const expected = await ctx.tenant.recentRunIds(key);
  const runIds = params.runId
    ? [(await ctx.sessions(key).abortRun(params.runId, "rpc", expected)).abortedRunId].filter(
        (id): id is string => id !== null,
      )
    : await ctx.sessions(key).stopRuns("rpc", expected);
  return { ok: true, aborted: runIds.length > 0, runIds };
}

export async function sessionsAbort(
  ctx: TenantContext<"runs">,
  params: { key?: string | undefined; runId?: string | undefined },
) {
  const named = params.key?.trim() ? canonicalKey(ctx, params.key) : null;
  const key = named ?? (params.runId ? await ctx.tenant.runKey(params.runId) : null);
  if (!key) {
    if (!params.runId) throw new DomainError("invalid", "key required");
    return { ok: true, abortedRunId: null, status: "no-active-run" };
  }
  const expected = await ctx.tenant.recentRunIds(key);
  const result = await ctx.sessions(key).abortRun(params.runId, "rpc", expected);
  return { ok: true, ...result };
}

/**
 * A webhook host's callback for its run: only with the run token minted for exactly this run,
 * which also names the session. Late and repeated callbacks are answered without effect.
 */
export async function runCallback(
  ctx: TenantContext<never>,
  runId: string,
  callback: RunCallback,
): Promise<{ ok: boolean; state: string }> {
  const principal = ctx.principal;
  if (principal.kind !== "run" || principal.claims.runId !== runId) {
    throw new DomainError("forbidden", "run callbacks need this run's run token");
  }
  const result = await ctx.sessions(principal.claims.sessionKey).runCallback(runId, callback);
  if (result.state === null) throw new DomainError("not_found", `Run not found: ${runId}`);
  return { ok: result.ok, state: result.state };
}
