import type { z } from "zod";
import { deliveryTargetOf } from "../delivery/delivery-target";
import type { TenantContext } from "../domain/context";
import { DomainError, rateLimited, refusalsRestored } from "../domain/errors";
import { agentIdParam } from "../domain/keys";
import { isValidAgentId, normalizeAgentId } from "../keys/session-key";
import { tooLargeMessage } from "../model/message-limits";
import { findAgent, runnerOf, spawnAllowlist } from "../policy/agent-config";
import { isSandboxedSession } from "../policy/sandbox";
import { runnerDeclarationOf } from "../protocol/runner-specs/runner-declarations";
import {
  SPAWN_ROUTING_PARAMS,
  type sessionsSpawnArgsSchema,
  sessionsSpawnDeclaration,
} from "../protocol/tool-specs/sessions-spawn-declaration";
import { childTaskMessage } from "../spawn/announce";
import {
  attachmentsPromptLine,
  DEFAULT_ATTACHMENT_LIMITS,
  deleteStoredAttachments,
  type Receipt,
  sessionAttachmentPrefix,
  storeAttachments,
  validateAttachments,
} from "../spawn/spawn-attachments";
import { uuidFrom } from "../util/encoding";
import type { Requester } from "./requester";
import { jsonResult, type ToolCall, ToolInputError, type ToolResult } from "./result";
import { defineTool } from "./tool-spec";

type Args = z.infer<typeof sessionsSpawnArgsSchema>;

const MODEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,255}$/;
const RUN_NOTE =
  "The sub-agent runs in the background; its result is announced to this session when it finishes. Do not poll for status.";
const SESSION_NOTE = "thread-bound session stays active after this task; continue in-thread for follow-ups.";

/** Rejects OpenClaw's channel-routing params before anything else (a thrown tool input error). */
export function assertNoRoutingParams(args: unknown): void {
  if (typeof args !== "object" || args === null) return;
  for (const param of SPAWN_ROUTING_PARAMS) {
    if (param in args)
      throw new ToolInputError(
        `sessions_spawn does not support "${param}". Use "message" or "sessions_send" for channel delivery.`,
      );
  }
}

/**
 * `sessions_spawn`: a sub-agent run in an isolated child session
 * (`agent:<agentId>:subagent:<uuid>`), returned at once; the child announces its outcome to
 * the requester when it ends. Every OpenClaw rule (depth, fan-out, allowlist, sandbox,
 * attachments) is checked before anything is created.
 */
export async function sessionsSpawn(
  ctx: TenantContext<"index" | "runs">,
  requester: Requester,
  args: Args,
  call: ToolCall = {},
): Promise<ToolResult> {
  const forbidden = (error: string) => jsonResult({ status: "forbidden", error });
  const failed = (error: string) => jsonResult({ status: "error", error });
  const subagents = ctx.config.agents?.defaults?.subagents ?? {};
  const maxDepth = subagents.maxSpawnDepth ?? 1;

  const mode = args.mode ?? (args.thread ? "session" : "run");
  if (mode === "session" && args.thread !== true) {
    throw new ToolInputError('mode="session" requires thread=true so the sub-agent can stay bound to a thread.');
  }
  const cleanup = mode === "session" ? "keep" : (args.cleanup ?? "keep");
  if (args.agentId !== undefined && !isValidAgentId(args.agentId)) {
    throw new ToolInputError(
      `Invalid agentId "${args.agentId}". Agent IDs must match [a-z0-9][a-z0-9_-]{0,63}. Use agents_list to discover valid targets.`,
    );
  }
  if (args.model !== undefined && !MODEL_PATTERN.test(args.model))
    throw new ToolInputError(`Invalid model "${args.model}".`);

  if (requester.spawnDepth >= maxDepth) {
    return forbidden(
      `sessions_spawn is not allowed at this depth (current depth: ${requester.spawnDepth}, max: ${maxDepth})`,
    );
  }
  // A repeated call (the tool loop resuming after a crash) names the same child and run: when
  // the first call made them, its answer is given again and nothing new is created.
  const fixedId = call.idempotencyKey ? await uuidFrom(`sessions_spawn:${call.idempotencyKey}`) : undefined;
  const targetAgentId = args.agentId !== undefined ? agentIdParam(args.agentId) : requester.agentId;
  if (fixedId) {
    const childKey = `agent:${targetAgentId}:subagent:${fixedId}`;
    if (await ctx.sessions(childKey).runSnapshot(fixedId)) return accepted(childKey, fixedId, args, mode);
  }
  const maxChildren = subagents.maxChildrenPerAgent ?? 5;
  const active = await ctx.tenant.countActiveChildren(requester.key);
  if (active >= maxChildren)
    return forbidden(`sessions_spawn has reached max active children for this session (${active}/${maxChildren})`);

  const agentEntry = findAgent(ctx.config, requester.agentId);
  if ((agentEntry?.subagents?.requireAgentId ?? subagents.requireAgentId) && args.agentId === undefined) {
    return forbidden("sessions_spawn requires agentId for this agent. Use agents_list to discover valid targets.");
  }
  const targetAgent = targetAgentId;
  const runtime = args.runtime ?? "subagent";
  const runner = runnerOf(ctx.config, targetAgent);
  if (runtime === "acp") {
    if (args.attachments?.length) return failed("attachments are not supported for runtime=acp");
    const allowed = (ctx.config.acp?.allowedAgents ?? []).map(normalizeAgentId);
    if (!allowed.includes(targetAgent)) {
      return failed(
        `ACP harness "${targetAgent}" is not allowed (acp.allowedAgents: ${allowed.length ? allowed.join(", ") : "none configured"})`,
      );
    }
    if (!runnerDeclarationOf(runner)?.acpHarness)
      return failed(`ACP harness "${targetAgent}" needs a webhook runner in agents.list`);
  } else if (targetAgent !== requester.agentId) {
    const { allowAny, allowed } = spawnAllowlist(ctx.config, requester.agentId);
    if (!allowAny && !allowed.includes(targetAgent)) {
      return forbidden(
        `agentId is not allowed for sessions_spawn (allowed: ${allowed.length ? allowed.join(", ") : "none"})`,
      );
    }
  }

  const childKey = `agent:${targetAgent}:subagent:${fixedId ?? crypto.randomUUID()}`;
  const childSandboxed = isSandboxedSession(ctx.config, { key: childKey, agentId: targetAgent });
  if (requester.sandboxed && !childSandboxed) {
    return forbidden(
      "Sandboxed sessions cannot spawn unsandboxed subagents. Configure a sandboxed target agent or spawn from an unsandboxed session.",
    );
  }
  if (args.sandbox === "require" && !childSandboxed) {
    return forbidden(
      'sessions_spawn sandbox="require" needs a sandboxed target runtime. Configure sandbox.mode for the target agent or use sandbox="inherit".',
    );
  }

  let receipt: (Receipt & { keys: string[] }) | undefined;
  const childPrefix = sessionAttachmentPrefix(ctx.tenantId, childKey);
  if (args.attachments && args.attachments.length > 0) {
    const settings = ctx.config.tools?.sessions_spawn?.attachments;
    if (settings?.enabled !== true)
      return forbidden("attachments are disabled for sessions_spawn (enable tools.sessions_spawn.attachments.enabled)");
    const checked = validateAttachments(args.attachments, {
      maxFiles: settings.maxFiles ?? DEFAULT_ATTACHMENT_LIMITS.maxFiles,
      maxFileBytes: settings.maxFileBytes ?? DEFAULT_ATTACHMENT_LIMITS.maxFileBytes,
      maxTotalBytes: settings.maxTotalBytes ?? DEFAULT_ATTACHMENT_LIMITS.maxTotalBytes,
    });
    if ("error" in checked) return failed(checked.error);
    receipt = await storeAttachments(ctx.attachments, childPrefix, checked.files, checked.totalBytes);
  }

  const depth = requester.spawnDepth + 1;
  const runId = fixedId ?? crypto.randomUUID();
  const timeoutSeconds = Math.max(
    0,
    Math.floor(args.runTimeoutSeconds ?? args.timeoutSeconds ?? subagents.runTimeoutSeconds ?? 0),
  );
  const tenant = ctx.tenant;
  const requesterRow = await tenant.session(requester.key);
  const fallbackKey = requesterRow?.spawnedBy;
  const fallbackRow = fallbackKey ? await tenant.session(fallbackKey) : null;
  const fallbackTarget = fallbackRow ? deliveryTargetOf(fallbackRow) : null;
  try {
    // A spawn is a run start like any door's (MCP, /tools/invoke, a model's tool call): over the
    // tenant's run limits it is refused before anything is made.
    const recorded = await tenant.recordRunStart(runId, childKey);
    if ("refused" in recorded) throw rateLimited(recorded.refused.message, recorded.refused.retryAfterMs);
    const started = await refusalsRestored(
      ctx.sessions(childKey).startSpawn(
        { tenantId: ctx.tenantId, key: childKey, agentId: targetAgent },
        {
          spawnedBy: requester.key,
          spawnDepth: depth,
          subagentRole: depth < maxDepth ? "orchestrator" : "leaf",
          subagentControlScope: depth < maxDepth ? "children" : "none",
          sandboxed: childSandboxed,
          ...(args.label ? { label: args.label } : {}),
          ...(args.model ? { model: args.model } : {}),
          ...(args.thinking ? { thinkingLevel: args.thinking } : {}),
        },
        {
          runId,
          input: {
            message: childTaskMessage(args.task, depth, maxDepth, mode),
            origin: "tool",
            provenance: { kind: "internal_system", sourceSessionKey: requester.key, sourceTool: "sessions_spawn" },
            deliver: false,
            lane: "subagent",
            ...(timeoutSeconds > 0 ? { timeoutSeconds } : {}),
            ...(args.thinking ? { thinking: args.thinking } : {}),
            ...(args.label ? { label: args.label } : {}),
            ...(receipt
              ? {
                  extraSystemPrompt: attachmentsPromptLine(receipt, args.attachAs?.mountPath),
                  attachments: { relDir: receipt.relDir, keys: receipt.keys, files: receipt.files },
                }
              : {}),
            ...(ctx.origin ? { callbackBase: `${ctx.origin}/t/${ctx.tenantId}` } : {}),
          },
          runner,
          userMessage: {
            role: "user",
            content: childTaskMessage(args.task, depth, maxDepth, mode),
            provenance: { kind: "internal_system", sourceSessionKey: requester.key, sourceTool: "sessions_spawn" },
          },
        },
        {
          tenantId: ctx.tenantId,
          task: args.task,
          ...(args.label ? { label: args.label } : {}),
          mode,
          cleanup,
          requesterKey: requester.key,
          requesterAgentId: requester.agentId,
          requesterIsSubagent: requester.spawnDepth > 0,
          requesterSandboxed: requester.sandboxed,
          requesterRunner: runnerOf(ctx.config, requester.agentId),
          ...(fallbackKey ? { fallbackKey, fallbackAgentId: fallbackRow?.agentId ?? requester.agentId } : {}),
          ...(fallbackTarget ? { fallbackTarget } : {}),
          archiveAfterMinutes: subagents.archiveAfterMinutes ?? 60,
          retainAttachments: ctx.config.tools?.sessions_spawn?.attachments?.retainOnSessionKeep === true,
          transcriptBase: `/t/${ctx.tenantId}/v1/transcripts`,
        },
      ),
    );
    if (started.status === "too_large") throw new DomainError("too_large", tooLargeMessage(started));
  } catch (error) {
    // Nothing half-made stays behind: the whole attachments folder, manifest included.
    if (receipt) await deleteStoredAttachments(ctx.attachments, childPrefix, receipt.relDir);
    throw error;
  }
  return accepted(childKey, runId, args, mode, receipt);
}

/** The spawn's answer: the child and its run, at once (the result is announced later). */
function accepted(
  childKey: string,
  runId: string,
  args: Args,
  mode: "run" | "session",
  receipt?: Receipt & { keys: string[] },
): ToolResult {
  return jsonResult({
    status: "accepted",
    childSessionKey: childKey,
    runId,
    mode,
    note: mode === "session" ? SESSION_NOTE : RUN_NOTE,
    ...(args.model ? { modelApplied: true } : {}),
    ...(receipt
      ? {
          attachments: {
            count: receipt.count,
            totalBytes: receipt.totalBytes,
            files: receipt.files,
            relDir: receipt.relDir,
          },
        }
      : {}),
  });
}

export const sessionsSpawnTool = defineTool(
  sessionsSpawnDeclaration,
  ["index", "runs"],
  sessionsSpawn,
  assertNoRoutingParams,
);
