import { hasScope } from "../auth/principal";
import type { StartResult } from "../contracts/session-api";
import { agentIdOf, normalizeAgentId } from "../keys/session-key";
import { defaultAgentId, isKnownAgent, runnerOf } from "../policy/agents";
import { isSandboxedSession } from "../policy/sandbox";
import { entrySendPolicy, parseSendCommand, SEND_BLOCKED_TEXT } from "../policy/send-policy";
import type { InputProvenance, SessionEntry, SessionSeed, TranscriptMessage } from "../protocol/session";
import type { RunInput, RunSnapshot } from "../runs/run-types";
import { MAX_MESSAGE_BYTES } from "../session/message-limits";
import type { TenantContext } from "./context";
import { DomainError } from "./errors";
import { canonicalKey, mainKeyOf, sessionRef } from "./keys";
import { patchSession } from "./registry";

/** Agent runs as the transports start them: chat.send, agent, agent.wait, aborts, ingest with run. */

export type RunRequest = {
  key: string;
  runId: string;
  message: string;
  origin: RunInput["origin"];
  provenance?: InputProvenance;
  extraSystemPrompt?: string;
  timeoutSeconds?: number;
  thinking?: string;
  label?: string;
  lane?: string;
  deliver?: boolean;
  fixedReply?: string;
  /** Skips the send policy (internal steps that are not sends, e.g. announce prompts). */
  ignoreSendPolicy?: boolean;
  /** Origin and delivery fields for a session the run creates (ingest). */
  seed?: SessionSeed;
};

/**
 * Starts a run in a session after the send policy allows it. The run is recorded in the
 * tenant's run index first, so `agent.wait` finds it from its runId alone.
 */
export async function startRun(
  ctx: TenantContext,
  request: RunRequest,
): Promise<
  Exclude<StartResult, { status: "blocked" | "too_large" }> & {
    sessionKey: string;
    sessionId: string;
    messageId?: string;
  }
> {
  const ref = sessionRef(ctx, request.key);
  const stub = ctx.sessions(request.key);
  // Run ids are tenant-wide (as OpenClaw's dedupe is gateway-wide): a reused id answers from its run.
  const owner = await ctx.tenant.recordRun(request.runId, request.key);
  if (owner !== request.key)
    return { ...(await existingRunResult(ctx, owner, request.runId)), sessionKey: owner, sessionId: "" };
  const input: RunInput = {
    message: request.message,
    origin: request.origin,
    ...(request.provenance ? { provenance: request.provenance } : {}),
    ...(request.extraSystemPrompt ? { extraSystemPrompt: request.extraSystemPrompt } : {}),
    ...(request.timeoutSeconds ? { timeoutSeconds: request.timeoutSeconds } : {}),
    ...(request.thinking ? { thinking: request.thinking } : {}),
    ...(request.label ? { label: request.label } : {}),
    ...(request.lane ? { lane: request.lane } : {}),
    ...(request.deliver !== undefined ? { deliver: request.deliver } : {}),
    ...(request.fixedReply !== undefined ? { fixedReply: request.fixedReply } : {}),
    ...(ctx.origin ? { callbackBase: `${ctx.origin}/t/${ctx.tenantId}` } : {}),
    sandboxed: isSandboxedSession(ctx.config, { key: request.key, agentId: ref.agentId }),
  };
  const userMessage: TranscriptMessage = {
    role: "user",
    content: request.message,
    provenance: request.provenance ?? { kind: "external_user" },
    idempotencyKey: `${request.runId}:user`,
  };
  const timeoutSeconds = request.timeoutSeconds ?? ctx.config.agents?.defaults?.timeoutSeconds;
  const result = await stub.startRun(
    ref,
    {
      runId: request.runId,
      input: timeoutSeconds ? { ...input, timeoutSeconds } : input,
      runner: runnerOf(ctx.config, ref.agentId),
      userMessage,
    },
    request.seed,
    // The session object applies the send policy to its own entry (no extra round trip).
    request.ignoreSendPolicy ? undefined : { config: ctx.config.session?.sendPolicy ?? null },
  );
  if (result.status === "blocked") throw new DomainError("invalid", SEND_BLOCKED_TEXT);
  if (result.status === "too_large") {
    throw new DomainError(
      "too_large",
      `message is ${result.bytes} bytes of JSON; the limit is ${MAX_MESSAGE_BYTES} bytes per message`,
    );
  }
  return { ...result, sessionKey: request.key };
}

/** The dedupe answer for a run id already used in another session. */
async function existingRunResult(
  ctx: TenantContext,
  key: string,
  runId: string,
): Promise<Exclude<StartResult, { status: "blocked" | "too_large" }>> {
  const snapshot = await ctx.sessions(key).runSnapshot(runId);
  if (!snapshot) return { runId, status: "error", summary: `run id ${runId} is already used by another session` };
  if (snapshot.status === "pending") return { runId, status: "in_flight" };
  const status =
    snapshot.state === "ok"
      ? "ok"
      : snapshot.state === "timeout"
        ? "timeout"
        : snapshot.state === "aborted"
          ? "aborted"
          : "error";
  return {
    runId,
    status,
    ...(snapshot.error ? { summary: snapshot.error } : {}),
    ...(snapshot.reply !== undefined ? { reply: snapshot.reply } : {}),
  };
}

/** Throws "send blocked by session policy" when the send policy denies sending to `key`. */
export function assertSendAllowed(ctx: TenantContext, key: string, entry: SessionEntry | null): void {
  const config = ctx.config.session?.sendPolicy;
  if (entrySendPolicy({ sessionKey: key, entry, ...(config ? { config } : {}) }) === "deny") {
    throw new DomainError("invalid", SEND_BLOCKED_TEXT);
  }
}

export type ChatSendParams = {
  sessionKey: string;
  message: string;
  idempotencyKey: string;
  thinking?: string;
  deliver?: boolean;
  attachments?: unknown[];
  timeoutMs?: number;
  systemInputProvenance?: InputProvenance;
};

/** chat.send: `{ runId, status: "started" }` at once; dedupe by idempotencyKey; /stop and /send commands. */
export async function chatSend(ctx: TenantContext, params: ChatSendParams): Promise<Record<string, unknown>> {
  const text = params.message.trim();
  if (text === "" && (params.attachments?.length ?? 0) === 0)
    throw new DomainError("invalid", "message or attachment required");
  const key = canonicalKey(ctx, params.sessionKey);
  if (/^\/stop\b/i.test(text)) {
    const runIds = await ctx.sessions(key).stopRuns();
    return { ok: true, aborted: runIds.length > 0, runIds };
  }
  const command = parseSendCommand(text);
  if (command) return sendCommand(ctx, key, params.idempotencyKey, params.message, command);
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
    ...(params.systemInputProvenance ? { provenance: params.systemInputProvenance } : {}),
    ...(params.timeoutMs ? { timeoutSeconds: Math.ceil(params.timeoutMs / 1000) } : {}),
    ...(params.deliver !== undefined ? { deliver: params.deliver } : {}),
  });
  return chatSendResult(result);
}

function chatSendResult(result: Exclude<StartResult, { status: "blocked" | "too_large" }>): Record<string, unknown> {
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
    default:
      return { runId: result.runId, status: "error", summary: result.summary ?? result.status };
  }
}

/** The owner-only `/send on|off|inherit` command: sets the override and confirms in the chat. */
async function sendCommand(
  ctx: TenantContext,
  key: string,
  runId: string,
  text: string,
  command: NonNullable<ReturnType<typeof parseSendCommand>>,
): Promise<Record<string, unknown>> {
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
  ctx: TenantContext,
  params: AgentParams,
): Promise<Exclude<StartResult, { status: "blocked" | "too_large" }> & { sessionKey: string; agentId: string }> {
  if ((params.provider !== undefined || params.model !== undefined) && !hasScope(ctx.principal, "operator.admin")) {
    throw new DomainError("invalid", "provider/model overrides are not authorized for this caller.");
  }
  const requestedAgent = params.agentId !== undefined ? normalizeAgentId(params.agentId) : undefined;
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
  // A retried request (same idempotencyKey) must not reset again; a blocked send resets nothing.
  const retried = reset ? (await ctx.tenant.runKey(params.idempotencyKey)) !== null : false;
  if (reset && !retried) {
    if (!hasScope(ctx.principal, "operator.admin")) throw new DomainError("invalid", "missing scope: operator.admin");
    assertSendAllowed(ctx, key, await ctx.sessions(key).entry());
    await ctx.sessions(key).reset(sessionRef(ctx, key), reset[1]!.toLowerCase() as "new" | "reset");
    message = message.slice(reset[0].length);
    if (message.trim() === "") message = reset[0].trim();
  }
  const result = await startRun(ctx, {
    key,
    runId: params.idempotencyKey,
    message,
    origin: "agent",
    ...(params.inputProvenance ? { provenance: params.inputProvenance } : {}),
    ...(params.extraSystemPrompt ? { extraSystemPrompt: params.extraSystemPrompt } : {}),
    ...(params.timeout ? { timeoutSeconds: params.timeout } : {}),
    ...(params.thinking ? { thinking: params.thinking } : {}),
    ...(params.label ? { label: params.label } : {}),
    ...(params.lane ? { lane: params.lane } : {}),
    ...(params.deliver !== undefined ? { deliver: params.deliver } : {}),
  });
  return { ...result, agentId: agentIdOf(key, defaultAgentId(ctx.config)) };
}

/** agent.wait: the run's outcome, or `status: "timeout"` (a successful answer) after timeoutMs. */
export async function agentWait(ctx: TenantContext, runId: string, timeoutMs: number): Promise<RunSnapshot> {
  const key = await ctx.tenant.runKey(runId);
  if (!key) throw new DomainError("invalid", `unknown runId: ${runId}`);
  const snapshot = await ctx.sessions(key).waitRun(runId, timeoutMs);
  if (!snapshot) throw new DomainError("invalid", `unknown runId: ${runId}`);
  return snapshot;
}

/** The wire shape of agent.wait's answer. */
export function waitPayload(snapshot: RunSnapshot): Record<string, unknown> {
  return {
    runId: snapshot.runId,
    status: snapshot.status === "pending" ? "timeout" : snapshot.status,
    ...(snapshot.startedAt !== undefined ? { startedAt: snapshot.startedAt } : {}),
    ...(snapshot.endedAt !== undefined ? { endedAt: snapshot.endedAt } : {}),
    ...(snapshot.stopReason ? { stopReason: snapshot.stopReason } : {}),
    ...(snapshot.error && snapshot.status !== "ok" ? { error: snapshot.error } : {}),
  };
}

export async function chatAbort(ctx: TenantContext, params: { sessionKey: string; runId?: string }) {
  const key = canonicalKey(ctx, params.sessionKey);
  const stub = ctx.sessions(key);
  const runIds = params.runId
    ? [(await stub.abortRun(params.runId)).abortedRunId].filter((id): id is string => id !== null)
    : await stub.stopRuns();
  return { ok: true, aborted: runIds.length > 0, runIds };
}

export async function sessionsAbort(ctx: TenantContext, params: { key: string; runId?: string }) {
  const key = canonicalKey(ctx, params.key);
  const result = await ctx.sessions(key).abortRun(params.runId);
  return { ok: true, ...result };
}
