import type { z } from "zod";
import type { StartAnswer } from "../contracts/session-api";
import type { TenantContext } from "../domain/context";
import { DomainError, rateLimited, restoreRefusal } from "../domain/errors";
import { agentIdParam, mainKeyOf, sessionRef } from "../domain/keys";
import { resolveSession } from "../domain/session-index";
import { agentToAgentContext } from "../flows/a2a-prompts";
import { agentIdOf, deriveChannel, toDisplayKey } from "../keys/session-key";
import { tooLargeMessage } from "../model/message-limits";
import type { SessionRow } from "../model/session-row";
import { defaultAgentId, isKnownAgent, runnerOf } from "../policy/agent-config";
import { agentModels } from "../policy/agent-models";
import { a2aDepthRefusal, clampPingPongTurns } from "../policy/flow-steps";
import { isSandboxedSession } from "../policy/sandbox";
import { SEND_BLOCKED_TEXT } from "../policy/send-policy";
import {
  agentToAgentDeniedText,
  agentToAgentDisabledText,
  crossAgentVisibilityText,
  matchesAgentToAgentAllow,
  noSessionFoundText,
  noSessionWithLabelText,
  SANDBOX_LABEL_LOOKUP_TEXT,
  SANDBOX_LABEL_NOT_VISIBLE_TEXT,
  SEND_TARGET_BOTH_TEXT,
  SEND_TARGET_MISSING_TEXT,
} from "../policy/visibility";
import { type sessionsSendArgsSchema, sessionsSendDeclaration } from "../protocol/tool-specs/sessions-send-declaration";
import { uuidFrom } from "../util/encoding";
import type { Requester } from "./requester";
import { jsonResult, type ToolCall, type ToolResult } from "./result";
import { defineTool } from "./tool-spec";
import { type AccessPolicy, accessPolicy, checkTarget, resolveReference } from "./visible-targets";

type Args = z.infer<typeof sessionsSendArgsSchema>;

/** OpenClaw's default wait, and the longest a tool call may wait server-side. */
const DEFAULT_TIMEOUT_SECONDS = 30;
const MAX_TIMEOUT_SECONDS = 600;

/**
 * `sessions_send`: message another session and optionally wait for its reply. The primary
 * run and the follow-up flow (ping-pong, announce) are created together in the target's
 * object, so a timed-out wait never loses the reply or the announce.
 */
export async function sessionsSend(
  ctx: TenantContext<"index" | "runs">,
  requester: Requester,
  args: Args,
  call: ToolCall = {},
): Promise<ToolResult> {
  // A repeated call (the tool loop resuming after a crash) starts the same target run, which
  // the target dedupes: the message is delivered once and the wait answers its outcome.
  const runId = call.idempotencyKey ? await uuidFrom(`sessions_send:${call.idempotencyKey}`) : crypto.randomUUID();
  const fail = (status: "error" | "forbidden", error: string, sessionKey?: string) =>
    jsonResult({ runId, status, error, ...(sessionKey ? { sessionKey } : {}) });
  if (args.sessionKey && args.label) return fail("error", SEND_TARGET_BOTH_TEXT);
  if (!args.sessionKey && !args.label) return fail("error", SEND_TARGET_MISSING_TEXT);

  const policy = accessPolicy(ctx, requester);
  const target = args.label
    ? await byLabel(ctx, requester, policy, args.label, args.agentId)
    : await resolveReference(ctx, requester, policy, args.sessionKey!);
  if (!("key" in target)) return fail(target.status, target.error);
  const key = target.key;
  const display = toDisplayKey(key, ctx.config.session, requester.agentId);
  const tenant = ctx.tenant;
  // Both rows in one round: the target's decides visibility, both give the channels (an
  // operator's requester row came with the requester).
  const [targetRow, requesterRow] = await Promise.all([
    tenant.session(key),
    requester.row !== undefined ? requester.row : tenant.session(requester.key),
  ]);
  const denied = await checkTarget(ctx, requester, policy, key, "send", targetRow);
  if (denied) return fail(denied.status, denied.error, display);
  // Only an agent's main session is created by a send; any other key must name a session.
  if (!targetRow && args.sessionKey && !("sessionId" in target) && !mayCreateTarget(ctx, args.sessionKey, key)) {
    return fail("error", noSessionFoundText(key), args.sessionKey);
  }
  const targetChannel = channelOf(targetRow);
  const requesterChannel = channelOf(requesterRow);
  const stub = ctx.sessions(key);
  const ref = sessionRef(ctx, key);
  const targetSandboxed = isSandboxedSession(ctx.config, {
    key,
    agentId: ref.agentId,
    recordedSandboxed: targetRow?.sandboxed === true,
  });
  const requesterKnown = requester.key !== key;
  const sessions = {
    ...(requesterKnown ? { requesterKey: requester.key } : {}),
    ...(requesterChannel ? { requesterChannel } : {}),
    targetKey: display,
    ...(targetChannel ? { targetChannel } : {}),
  };
  const provenance = {
    kind: "inter_session" as const,
    sourceSessionKey: requester.key,
    ...(requesterChannel ? { sourceChannel: requesterChannel } : {}),
    sourceTool: "sessions_send",
  };
  const timeoutSeconds = Math.min(
    MAX_TIMEOUT_SECONDS,
    Math.max(0, Math.floor(args.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS)),
  );
  // The target's run is admitted under the tenant's run limits as every run start is (a model
  // answering each turn with a sessions_send cannot outrun them), refused as sessions_spawn is
  // (a tool error with retryAfterSeconds, 429 over HTTP). A repeated call's run id was admitted
  // before and is not counted again.
  const tooDeep = a2aDepthRefusal(requester.a2aDepth ?? 0);
  if (tooDeep) return fail("error", tooDeep, display);
  const a2aDepth = (requester.a2aDepth ?? 0) + 1;
  const admitted = await tenant.recordRunStart(runId, key);
  if ("refused" in admitted) throw rateLimited(admitted.refused.message, admitted.refused.retryAfterMs);
  const started = await Promise.resolve(
    stub.sendInterSession(
      ref,
      {
        runId,
        waitMs: timeoutSeconds * 1000,
        input: {
          message: args.message,
          origin: "tool",
          provenance,
          extraSystemPrompt: agentToAgentContext(sessions),
          deliver: false,
          lane: "nested",
          sandboxed: targetSandboxed,
          a2aDepth,
        },
        runner: runnerOf(ctx.config, ref.agentId),
        offeredModels: agentModels(ctx.config, ref.agentId).map((model) => model.id),
        userMessage: { role: "user", content: args.message, provenance },
      },
      {
        originalMessage: args.message,
        ...(requesterKnown
          ? {
              requesterKey: requester.key,
              requesterAgentId: requester.agentId,
            }
          : {}),
        ...(requesterChannel ? { requesterChannel } : {}),
        targetDisplayKey: display,
        ...(targetChannel ? { targetChannel } : {}),
        requesterSandboxed: requester.sandboxed,
        targetSandboxed,
        maxTurns: clampPingPongTurns(ctx.config.session?.agentToAgent?.maxPingPongTurns),
        a2aDepth,
      },
      { config: ctx.config.session?.sendPolicy ?? null },
    ),
  ).catch((error: unknown) => {
    throw restoreRefusal(error); // the target's tenant-bytes refusal, as the other doors give it
  });
  if (started.status === "blocked") return fail("error", SEND_BLOCKED_TEXT, display);
  if (started.status === "too_large") return fail("error", tooLargeMessage(started), display);
  const repeated = call.idempotencyKey !== undefined && started.status !== "started";
  if (started.status !== "started" && !repeated) return fail("error", `run ${started.status}`, display);

  const delivery = { status: "pending", mode: "announce" };
  if (timeoutSeconds === 0) return jsonResult({ runId, status: "accepted", sessionKey: display, delivery });
  const outcome = repeated ? (started.outcome ?? endedOutcome(started)) : started.outcome;
  if (!outcome || outcome.status === "pending") {
    return jsonResult({
      runId,
      status: "timeout",
      error: `No reply within ${timeoutSeconds}s; the run continues and its reply will land in the session history.`,
      sessionKey: display,
    });
  }
  if (outcome.status !== "ok")
    return jsonResult({ runId, status: "error", error: outcome.error ?? "agent error", sessionKey: display });
  return jsonResult({
    runId,
    status: "ok",
    ...(outcome.reply ? { reply: outcome.reply } : {}),
    sessionKey: display,
    delivery,
  });
}

/** How a repeated call's run ended, from the dedupe answer (null while it is in flight). */
function endedOutcome(started: StartAnswer): { status: string; reply?: string; error?: string } | null {
  if (
    started.status !== "ok" &&
    started.status !== "error" &&
    started.status !== "timeout" &&
    started.status !== "aborted"
  )
    return null;
  return {
    status: started.status === "ok" ? "ok" : "error",
    ...(started.reply !== undefined ? { reply: started.reply } : {}),
    error: started.summary ?? started.status,
  };
}

/** Label lookup (+ agentId), with the cross-agent and sandbox rules OpenClaw applies first. */
async function byLabel(
  ctx: TenantContext<"index" | "runs">,
  requester: Requester,
  policy: AccessPolicy,
  label: string,
  rawAgentId: string | undefined,
): Promise<{ key: string } | { status: "error" | "forbidden"; error: string }> {
  const agentId = rawAgentId !== undefined ? agentIdParam(rawAgentId) : undefined;
  if (agentId !== undefined && agentId !== requester.agentId) {
    if (policy.restrictToSpawned) return { status: "forbidden", error: SANDBOX_LABEL_LOOKUP_TEXT };
    if (policy.visibility !== "all") return { status: "forbidden", error: crossAgentVisibilityText("send") };
    const a2a = ctx.config.tools?.agentToAgent;
    if (a2a?.enabled !== true) return { status: "forbidden", error: agentToAgentDisabledText("send") };
    if (!matchesAgentToAgentAllow(requester.agentId, a2a.allow) || !matchesAgentToAgentAllow(agentId, a2a.allow)) {
      return { status: "forbidden", error: agentToAgentDeniedText("send") };
    }
  }
  try {
    const key = await resolveSession(ctx, {
      label,
      ...(agentId !== undefined ? { agentId } : {}),
      ...(policy.restrictToSpawned ? { spawnedBy: requester.key } : {}),
    });
    return { key };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    if (policy.restrictToSpawned && error.code === "not_found")
      return { status: "forbidden", error: SANDBOX_LABEL_NOT_VISIBLE_TEXT };
    return { status: "error", error: error.code === "not_found" ? noSessionWithLabelText(label) : error.message };
  }
}

/**
 * Whether a send may create its missing target (OpenClaw: the aliases `main`, `current`,
 * `global`, `unknown`, and a configured agent's main key as written).
 */
function mayCreateTarget(ctx: TenantContext<never>, input: string, key: string): boolean {
  const raw = input.trim();
  if (["main", "current", "global", "unknown"].includes(raw)) return true;
  const agentId = agentIdOf(key, defaultAgentId(ctx.config));
  return isKnownAgent(ctx.config, agentId) && key === mainKeyOf(ctx, agentId) && raw.toLowerCase() === key;
}

function channelOf(row: SessionRow | null): string | undefined {
  if (!row) return undefined;
  const channel = deriveChannel({
    key: row.key,
    kind: "other",
    ...(row.channel ? { channel: row.channel } : {}),
    ...(row.origin?.provider ? { originProvider: row.origin.provider } : {}),
    ...(row.lastChannel ? { lastChannel: row.lastChannel } : {}),
    ...(row.deliveryContext?.channel ? { deliveryChannel: row.deliveryContext.channel } : {}),
  });
  return channel === "unknown" ? undefined : channel;
}

export const sessionsSendTool = defineTool(sessionsSendDeclaration, ["index", "runs"], sessionsSend);
