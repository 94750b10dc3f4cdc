import { mintRunToken, runClaims } from "../auth/run-token";
import { attachmentsOf } from "../metering/metered-env";
import type { ClientTool, RunRecord } from "../model/run-types";
import { logWarning } from "../observability/log";
import { findAgent } from "../policy/agent-config";
import { type OutboundEnv, outboundPolicy } from "../policy/outbound-url";
import type { RunnerConfig, TenantConfig } from "../protocol/config";
import { runnerDeclarationOf, runnerFacts } from "../protocol/runner-specs/runner-declarations";
import type { DeploymentKeyGrant, ResolvedSecret } from "../protocol/secrets";
import type { SessionEntry, TranscriptMessage } from "../protocol/session";
import { type DeploymentKey, type DeploymentKeyEnv, deploymentKeyHosts } from "../secrets/deployment-keys";
import { redactCredentials } from "../secrets/redact-credentials";
import { urlSecrets } from "../secrets/url-secrets";
import { readAttachmentWithin } from "./attachment-reader";
import { withModelSlot } from "./model-slot";
import { type ModelFiles, modelFiles } from "./runners/media-parts";
import {
  type ContextMessage,
  type ModelToolCall,
  type Runner,
  RunnerError,
  type RunnerOutcome,
  type RunnerRequest,
  type ToolSpec,
} from "./runners/runner";
import { runnerFor } from "./runners/runners";
import { modelContext } from "./tool-loop/model-context";
import type { ToolJournal } from "./tool-loop/tool-journal";
import { runToolLoop, type ToolLoopEvents, type ToolOutcome } from "./tool-loop/tool-loop";
import type { TranscriptPort } from "./transcript-port";

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
/** Tool rounds per run unless the agent's `maxToolRounds` says otherwise. */
export const DEFAULT_MAX_TOOL_ROUNDS = 32;

/** The session tools a run's model is offered, and their calls made as the run's session. */
export type SessionToolbox = {
  specs: ToolSpec[];
  invoke(call: ModelToolCall, idempotencyKey: string): Promise<ToolOutcome>;
};

export type ExecutorDeps = {
  env: Pick<Env, "RUN_TOKEN_SECRET"> & { ATTACHMENTS: R2Bucket } & DeploymentKeyEnv & OutboundEnv;
  transcript: TranscriptPort;
  /** Each run's tool steps and calls, written before and after each call. */
  journal: ToolJournal;
  /** The run's session tools (tools/session-toolbox.ts: the layer above, handed in as a port). */
  toolbox(run: RunRecord, entry: SessionEntry | null, config: TenantConfig): SessionToolbox;
  runnerSecret(tenantId: string): Promise<string>;
  /** An entry of the tenant's secret store (runner keys referenced from config). */
  storeSecret(tenantId: string, id: string): Promise<ResolvedSecret | null>;
  /** The deployment keys the operator granted the tenant (asked at each use: a grant can be revoked). */
  deploymentKeyGrants(tenantId: string): Promise<DeploymentKeyGrant[]>;
  /** The tenant's config now (which tools a run's model is offered). */
  tenantConfig(tenantId: string): Promise<TenantConfig>;
  /** A tenant-wide slot for one model call (the tenant's runsInFlight limit); disposing it gives it back. */
  modelSlot(tenantId: string, runId: string): Promise<Disposable>;
};

/** What the lifecycle hands one attempt: abort, streamed text, and for tool loops the append path and events. */
export type ExecuteControls = {
  signal: AbortSignal;
  onText(text: string): void;
  /** Appends in one commit; answers the seqs. */
  append(messages: TranscriptMessage[]): number[];
  transaction(fn: () => void): void;
  toolEvents: ToolLoopEvents;
};

/**
 * Runs one attempt of a run: picks the runner, builds its context from the transcript, hands
 * it model keys and attachments, and for webhook runners mints the run token. Knows nothing of
 * run states; the lifecycle decides what the outcome means.
 */
export class RunExecutor {
  constructor(private readonly deps: ExecutorDeps) {}

  /**
   * Runs the attempt; whatever it throws carries none of the credentials it resolved
   * (redactCredentials), nor the secrets of the runner's own URL (a capability path, a query key).
   */
  async execute(run: RunRecord, controls: ExecuteControls): Promise<RunnerOutcome> {
    const runner = run.input.runner;
    const credentials = new Set<string>(runnerFacts(runner).urls.flatMap(({ url }) => (url ? urlSecrets(url) : [])));
    try {
      return await this.attempt(run, controls, credentials);
    } catch (error) {
      if (!(error instanceof Error) || credentials.size === 0) throw error;
      const message = redactCredentials(error.message, credentials);
      if (message === error.message) throw error;
      throw error instanceof RunnerError ? new RunnerError(message) : new Error(message);
    }
  }

  private async attempt(run: RunRecord, controls: ExecuteControls, credentials: Set<string>): Promise<RunnerOutcome> {
    const { input } = run;
    const runner = this.slotted(run, this.runnerOf(run, credentials), controls.signal);
    const config = offersTools(run) ? await this.deps.tenantConfig(input.tenantId) : null;
    const entry = this.deps.transcript.loadEntry()?.entry ?? null;
    const toolbox = config ? this.deps.toolbox(run, entry, config) : null;
    const clientTools = toolbox ? (input.clientTools ?? []) : [];
    const specs = [...(toolbox?.specs ?? []), ...clientTools.map(clientToolSpec)];
    const withTools = toolbox !== null && specs.length > 0;
    const request: RunnerRequest = {
      runId: run.runId,
      tenantId: input.tenantId,
      sessionKey: run.sessionKey,
      agentId: input.agentId,
      input,
      config: input.runner,
      context: this.context(run, withTools),
      ...(withTools ? { tools: specs } : {}),
      ...(maxTokensOf(input.runner) ? { maxTokens: maxTokensOf(input.runner) } : {}),
      deadline: runDeadline(run),
      signal: controls.signal,
      onText: controls.onText,
      deploymentKey: (name) => this.deploymentKey(input.tenantId, name),
      credentials,
      // The run's own origin (the request that started it) is the service too, whatever PUBLIC_ORIGIN says.
      outbound: outboundPolicy(this.deps.env, input.callbackBase ? new URL(input.callbackBase).origin : undefined),
      storeSecret: (id) => this.deps.storeSecret(input.tenantId, id),
      readAttachment: (key, maxBytes) => readAttachmentWithin(attachmentsOf(this.deps.env), key, maxBytes),
      ...(await this.webhookExtras(run)),
    };
    if (!withTools) return runner(request);
    const agent = config ? findAgent(config, input.agentId) : undefined;
    return runToolLoop(
      {
        journal: this.deps.journal,
        append: controls.append,
        transaction: controls.transaction,
        model: async (context, onText) => {
          const outcome = await runner({ ...request, context, onText });
          if (outcome.kind !== "reply") throw new RunnerError("a tool loop step cannot be deferred");
          return outcome;
        },
        invoke: (call, idempotencyKey) => toolbox.invoke(call, idempotencyKey),
        clientTools: new Set(clientTools.map((tool) => tool.name)),
        events: controls.toolEvents,
        onText: controls.onText,
        signal: controls.signal,
        now: Date.now,
      },
      {
        runId: run.runId,
        context: request.context,
        maxRounds: agent?.maxToolRounds ?? config?.agents?.defaults?.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS,
      },
    );
  }

  /** The runner with each of its calls inside a model slot (a fixed reply calls nothing). */
  private slotted(run: RunRecord, runner: Runner, signal: AbortSignal): Runner {
    if (run.input.fixedReply !== undefined) return runner;
    const { tenantId } = run.input;
    const acquire = () => this.deps.modelSlot(tenantId, run.runId);
    return (request) => withModelSlot(acquire, signal, () => runner(request), { tenant: tenantId, run: run.runId });
  }

  private runnerOf(run: RunRecord, credentials: Set<string>): Runner {
    if (run.input.fixedReply !== undefined) return fixedReplyRunner(run.input.fixedReply);
    const { tenantId } = run.input;
    return runnerFor(run.input.runner, {
      keys: {
        deploymentKey: (name) => this.deploymentKey(tenantId, name),
        storeSecret: (id) => this.deps.storeSecret(tenantId, id),
        credentials,
        outbound: outboundPolicy(this.deps.env),
      },
      runnerSecret: () => this.deps.runnerSecret(tenantId),
    });
  }

  /** What runner-keys.ts needs to decide on a deployment key: the tenant's grant now, the key's hosts, its value. */
  private async deploymentKey(tenantId: string, name: string): Promise<DeploymentKey> {
    const value = (this.deps.env as Record<string, unknown>)[name];
    const grants = await this.deps.deploymentKeyGrants(tenantId);
    return {
      granted: grants.some((grant) => grant.name === name),
      hosts: deploymentKeyHosts(this.deps.env, name),
      value: name.startsWith(MODEL_KEY_PREFIX) && typeof value === "string" ? value : undefined,
    };
  }

  private async webhookExtras(run: RunRecord): Promise<{ runToken?: string; callbackBase?: string }> {
    if (!runnerDeclarationOf(run.input.runner)?.callsBack) return {};
    const secret = this.deps.env.RUN_TOKEN_SECRET;
    if (!secret) {
      // The operator's to fix (GET /v1/admin/health names it); the tenant's run error names nothing of the deployment.
      logWarning("deployment.misconfigured", { variable: "RUN_TOKEN_SECRET", error: "not set" });
      throw new RunnerError("webhook runs are not configured on this deployment; the operator has been told");
    }
    const entry: SessionEntry | undefined = this.deps.transcript.loadEntry()?.entry;
    const runToken = await mintRunToken(secret, runClaims(run, entry, runDeadline(run) + RUN_TOKEN_GRACE_MS));
    return { runToken, ...(run.input.callbackBase ? { callbackBase: run.input.callbackBase } : {}) };
  }

  /**
   * The transcript up to the run's user message, as chat messages (with earlier tool turns
   * when the run offers tools). The run's own tool steps come from its journal, not from here.
   */
  private context(run: RunRecord, withTools: boolean): ContextMessage[] {
    const transcript = this.deps.transcript;
    const entry = transcript.loadEntry()?.entry;
    if (!entry) return [];
    // A run without a user message ends its context where its own first tool step began.
    const end = run.userSeq !== undefined ? run.userSeq + 1 : this.deps.journal.firstStepSeq(run.runId);
    const page = transcript.tail({
      sessionId: entry.sessionId,
      ...(end !== undefined ? { cursorSeq: end } : {}),
      limit: contextLimit(run.input.runner),
      includeTools: withTools,
      maxBytes: CONTEXT_READ_MAX_BYTES,
    });
    const context = modelContext(page.messages, withTools);
    if (run.userSeq === undefined) context.push({ role: "user", content: run.input.message });
    const files = modelFiles(run.input.media, runnerFacts(run.input.runner).modelParts);
    return withModelMessages(context, run.input.modelMessages, files);
  }
}

/** When a run must have ended: its timeout, else the deferred default, from when it started. */
export function runDeadline(run: RunRecord): number {
  const started = run.startedAt ?? run.createdAt;
  const timeoutMs = (run.input.timeoutSeconds ?? 0) * 1000;
  return started + (timeoutMs > 0 ? timeoutMs : DEFAULT_DEFERRED_TIMEOUT_MS);
}

function contextLimit(config: RunnerConfig): number {
  return runnerFacts(config).maxContextMessages ?? CONTEXT_MESSAGES;
}

function maxTokensOf(config: RunnerConfig): number | undefined {
  return runnerFacts(config).maxTokens;
}

/** Runs the tool loop when its runner says so (model runners; a webhook host that asked); fixed replies never. */
function offersTools(run: RunRecord): boolean {
  return run.input.fixedReply === undefined && runnerFacts(run.input.runner).offersTools;
}

/** A client tool as the model is offered it (the caller's schema, or any object). */
function clientToolSpec(tool: ClientTool): ToolSpec {
  return {
    name: tool.name,
    description: tool.description ?? "",
    parameters: tool.parameters ?? { type: "object", properties: {} },
  };
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

/**
 * The run's own user message (the context's last) as the model gets it: a chat turn's
 * envelope instead of the bare text the transcript keeps (OpenClaw's split, docs/channels.md),
 * with its files as parts and a note for each file left out for its size.
 */
function withModelMessages(
  context: ContextMessage[],
  modelMessages: string[] | undefined,
  { files, notes }: ModelFiles,
): ContextMessage[] {
  const last = context[context.length - 1];
  if (last?.role !== "user" || (!modelMessages?.length && files.length === 0 && notes.length === 0)) return context;
  const said = modelMessages?.length ? modelMessages : [last.content];
  // The files go with the message that carries the user's text (the first).
  return [
    ...context.slice(0, -1),
    ...said.map((content, i) =>
      i === 0
        ? { role: "user" as const, content: [content, ...notes].join("\n"), ...(files.length ? { files } : {}) }
        : { role: "user" as const, content },
    ),
  ];
}
