import { mintRunToken } from "../auth/run-token";
import { sessionToolsAllowed } from "../policy/tools";
import type { RunnerConfig } from "../protocol/config";
import type { ResolvedSecret } from "../protocol/secrets";
import type { SessionEntry } from "../protocol/session";
import { parseMessage } from "../session/message-record";
import type { SessionStore } from "../session/session-store";
import type { RunRecord } from "./run-types";
import { echoRunner } from "./runners/echo";
import { openaiRunner } from "./runners/openai";
import {
  type ContextMessage,
  contentText,
  type Runner,
  RunnerError,
  type RunnerOutcome,
  type RunnerRequest,
} from "./runners/runner";
import { runnerCredential } from "./runners/runner-keys";
import { webhookRunner } from "./runners/webhook";

/** Messages of transcript handed to a runner as context (unless its config says otherwise). */
const CONTEXT_MESSAGES = 40;
/** Bytes of transcript read for one run's context. */
const CONTEXT_READ_MAX_BYTES = 2 * 1024 * 1024;
/** Without a timeout, a deferred (webhook) run is failed after this long. */
export const DEFAULT_DEFERRED_TIMEOUT_MS = 30 * 60_000;
/** Run tokens outlive the run's deadline by this much (a late callback still authenticates). */
export const RUN_TOKEN_GRACE_MS = 60_000;
/** Runners may read worker secrets with this prefix only, never the deployment's own. */
const MODEL_KEY_PREFIX = "MODEL_KEY_";

export type ExecutorDeps = {
  env: Pick<Env, "RUN_TOKEN_SECRET" | "ATTACHMENTS">;
  store: SessionStore;
  runnerSecret(tenantId: string): Promise<string>;
  /** An entry of the tenant's secret store (runner keys referenced from config). */
  storeSecret(tenantId: string, id: string): Promise<ResolvedSecret | null>;
};

/**
 * Runs one attempt of a run: picks the runner, builds its context from the transcript, hands
 * it model keys and attachments, and for webhook runners mints the run token. Knows nothing of
 * run states; the lifecycle decides what the outcome means.
 */
export class RunExecutor {
  constructor(private readonly deps: ExecutorDeps) {}

  async execute(run: RunRecord, controls: { signal: AbortSignal; onText(text: string): void }): Promise<RunnerOutcome> {
    const { input } = run;
    const request: RunnerRequest = {
      runId: run.runId,
      tenantId: input.tenantId,
      sessionKey: run.sessionKey,
      agentId: input.agentId,
      input,
      config: input.runner,
      context: this.context(run),
      deadline: runDeadline(run),
      signal: controls.signal,
      onText: controls.onText,
      secret: (name) => this.secret(name),
      storeSecret: (id) => this.deps.storeSecret(input.tenantId, id),
      readAttachment: async (key) => {
        const object = await this.deps.env.ATTACHMENTS?.get(key);
        return object ? new Uint8Array(await object.arrayBuffer()) : null;
      },
      ...(await this.webhookExtras(run)),
    };
    return this.runnerOf(run)(request);
  }

  private runnerOf(run: RunRecord): Runner {
    if (run.input.fixedReply !== undefined) return fixedReplyRunner(run.input.fixedReply);
    switch (run.input.runner.type) {
      case "echo":
        return echoRunner;
      case "openai":
        return openaiRunner;
      case "webhook": {
        const config = run.input.runner;
        const tenantId = run.input.tenantId;
        // A store secret named in config signs instead of the tenant's generated runner secret.
        const signingSecret = async () =>
          (await runnerCredential(
            { secret: () => undefined, storeSecret: (id) => this.deps.storeSecret(tenantId, id) },
            { ref: config.secret, field: "secret" },
            config.url,
          )) ?? this.deps.runnerSecret(tenantId);
        return webhookRunner(signingSecret);
      }
    }
  }

  private secret(name: string): string | undefined {
    const value = (this.deps.env as Record<string, unknown>)[name];
    return name.startsWith(MODEL_KEY_PREFIX) && typeof value === "string" ? value : undefined;
  }

  private async webhookExtras(run: RunRecord): Promise<{ runToken?: string; callbackBase?: string }> {
    if (run.input.runner.type !== "webhook") return {};
    const secret = this.deps.env.RUN_TOKEN_SECRET;
    if (!secret) throw new RunnerError("RUN_TOKEN_SECRET is not configured; webhook runs need it to mint run tokens");
    const entry: SessionEntry | undefined = this.deps.store.loadEntry()?.entry;
    const runToken = await mintRunToken(secret, {
      tenantId: run.input.tenantId,
      agentId: run.input.agentId,
      sessionKey: run.sessionKey,
      runId: run.runId,
      sandboxed: run.input.sandboxed === true || entry?.sandboxed === true,
      spawnDepth: entry?.spawnDepth ?? 0,
      sessionTools: sessionToolsAllowed(entry),
      exp: runDeadline(run) + RUN_TOKEN_GRACE_MS,
    });
    return { runToken, ...(run.input.callbackBase ? { callbackBase: run.input.callbackBase } : {}) };
  }

  /** The transcript up to the run's user message, as chat messages. */
  private context(run: RunRecord): ContextMessage[] {
    const store = this.deps.store;
    const entry = store.loadEntry()?.entry;
    if (!entry) return [];
    const page = store.tail({
      sessionId: entry.sessionId,
      ...(run.userSeq !== undefined ? { cursorSeq: run.userSeq + 1 } : {}),
      limit: contextLimit(run.input.runner),
      includeTools: false,
      maxBytes: CONTEXT_READ_MAX_BYTES,
    });
    const context: ContextMessage[] = [];
    for (const record of page.messages) {
      const message = parseMessage(record);
      if (message.role !== "user" && message.role !== "assistant" && message.role !== "system") continue;
      context.push({ role: message.role, content: contentText(message.content) });
    }
    if (run.userSeq === undefined) context.push({ role: "user", content: run.input.message });
    return context;
  }
}

/** When a run must have ended: its timeout, else the deferred default, from when it started. */
export function runDeadline(run: RunRecord): number {
  const started = run.startedAt ?? run.createdAt;
  const timeoutMs = (run.input.timeoutSeconds ?? 0) * 1000;
  return started + (timeoutMs > 0 ? timeoutMs : DEFAULT_DEFERRED_TIMEOUT_MS);
}

function contextLimit(config: RunnerConfig): number {
  return config.type === "openai" && config.maxContextMessages ? config.maxContextMessages : CONTEXT_MESSAGES;
}

/** A reply fixed in advance (chat commands such as /send): no model is called. */
function fixedReplyRunner(text: string): Runner {
  return async (request) => {
    request.onText(text);
    return {
      kind: "reply",
      text,
      stopReason: "stop",
      provider: "openclaw",
      model: "gateway-injected",
      api: "openai-responses",
    };
  };
}
