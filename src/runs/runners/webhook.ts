import { z } from "zod";
import { signatureHeader } from "../../auth/webhook-signature";
import { guardedFetch } from "../../policy/guarded-fetch";
import type { RunnerConfig } from "../../protocol/config";
import type { TranscriptMessage } from "../../protocol/session";
import type { WebhookRunRequest } from "../../protocol/webhooks";
import { type ModelToolCall, type Runner, RunnerError, type RunnerPorts } from "./runner";
import { runnerCredential } from "./runner-keys";
import { upstreamFailureDetail } from "./upstream-failure";

/**
 * The tenant's own agent host. It answers 200 with `{ reply, toolMessages?, usage? }`, or 202
 * and later calls `POST …/v1/runs/{runId}/events` and `/complete` with the run token.
 */
export function webhookRunner(runnerSecret: () => Promise<string>): Runner {
  return async (request) => {
    const config = request.config;
    if (config.type !== "webhook") throw new RunnerError("webhook runner misconfigured");
    const payload: WebhookRunRequest = {
      type: "run",
      runId: request.runId,
      tenantId: request.tenantId,
      sessionKey: request.sessionKey,
      agentId: request.agentId,
      input: {
        message: request.input.message,
        ...(request.input.provenance ? { provenance: request.input.provenance } : {}),
        ...(request.input.extraSystemPrompt ? { extraSystemPrompt: request.input.extraSystemPrompt } : {}),
        ...(request.input.thinking ? { thinking: request.input.thinking } : {}),
      },
      context: request.context,
      ...(request.tools ? { tools: request.tools } : {}),
      ...(request.input.attachments ? { attachments: await attachmentsPayload(request) } : {}),
      deadline: request.deadline,
      runToken: request.runToken,
      callbacks: request.callbackBase
        ? {
            events: `${request.callbackBase}/v1/runs/${request.runId}/events`,
            complete: `${request.callbackBase}/v1/runs/${request.runId}/complete`,
          }
        : undefined,
    };
    const body = JSON.stringify(payload);
    const signingSecret = await runnerSecret();
    let response: Response;
    try {
      response = await guardedFetch(
        config.url,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(await signatureHeader(signingSecret, body)),
          },
          body,
          signal: request.signal,
        },
        request.outbound,
      );
    } catch (error) {
      if (request.signal.aborted) throw error;
      throw new RunnerError(`webhook unreachable: ${(error as Error).message}`);
    }
    if (response.status === 202) {
      await response.body?.cancel();
      return { kind: "deferred" };
    }
    if (!response.ok) {
      const detail = await upstreamFailureDetail(response, [signingSecret]);
      throw new RunnerError(`webhook answered ${response.status}${detail ? `: ${detail}` : ""}`);
    }
    let reply: {
      reply?: unknown;
      toolCalls?: unknown;
      toolMessages?: unknown;
      usage?: { input?: number; output?: number; totalTokens?: number };
    };
    try {
      reply = await response.json();
    } catch {
      throw new RunnerError("webhook answered 200 without a JSON body");
    }
    const toolCalls = request.tools ? webhookToolCalls(reply?.toolCalls) : [];
    if (typeof reply?.reply !== "string" && !(toolCalls.length > 0 && reply.reply === undefined))
      throw new RunnerError("webhook reply must be { reply: string } or { toolCalls: [...] }");
    const text = typeof reply.reply === "string" ? reply.reply : "";
    if (text) request.onText(text);
    const input = Number(reply.usage?.input ?? 0);
    const output = Number(reply.usage?.output ?? 0);
    return {
      kind: "reply",
      text,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
      usage: { input, output, totalTokens: Number(reply.usage?.totalTokens ?? input + output) },
      ...(Array.isArray(reply.toolMessages) ? { toolMessages: reply.toolMessages as TranscriptMessage[] } : {}),
      stopReason: toolCalls.length > 0 ? "toolUse" : "stop",
      provider: "webhook",
      api: "webhook",
    };
  };
}

/** Signs with the store secret the config names, else with the tenant's generated runner secret. */
export function webhookSigningSecret(
  config: Extract<RunnerConfig, { type: "webhook" }>,
  ports: RunnerPorts,
): () => Promise<string> {
  return async () => {
    const secret =
      (await runnerCredential(ports.keys, { ref: config.secret, field: "secret" }, config.url)) ??
      (await ports.runnerSecret());
    ports.keys.credentials.add(secret);
    return secret;
  };
}

/**
 * The host's `toolCalls` (only when it was offered tools): `{ id, name, arguments }` each, as
 * the request's context shows them; a malformed list is refused, not half-run.
 */
function webhookToolCalls(raw: unknown): ModelToolCall[] {
  if (raw === undefined) return [];
  const parsed = z
    .array(
      z.object({
        id: z.string().min(1).max(256),
        name: z.string().min(1).max(128),
        arguments: z.record(z.string(), z.unknown()).optional(),
      }),
    )
    .max(64)
    .safeParse(raw);
  if (!parsed.success) throw new RunnerError("webhook toolCalls must be [{ id, name, arguments }] (at most 64)");
  return parsed.data.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments ?? {} }));
}

/** The run's attachments with their content (base64), as the host needs them. */
async function attachmentsPayload(request: Parameters<Runner>[0]) {
  const attachments = request.input.attachments!;
  const files = await Promise.all(
    attachments.files.map(async (file, i) => {
      const bytes = await request.readAttachment(attachments.keys[i]!);
      let binary = "";
      for (const b of bytes ?? new Uint8Array()) binary += String.fromCharCode(b);
      return { ...file, contentBase64: btoa(binary) };
    }),
  );
  return { relDir: attachments.relDir, files };
}
