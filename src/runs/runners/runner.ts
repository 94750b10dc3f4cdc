import type { ClientToolCall, RunInput, RunUsage } from "../../model/run-types";
import type { OutboundPolicy } from "../../policy/outbound-url";
import type { RunnerConfig } from "../../protocol/config";
import type { ResolvedSecret } from "../../protocol/secrets";
import type { TranscriptMessage } from "../../protocol/session";
import type { DeploymentKey } from "../../secrets/deployment-keys";

/** A tool call a model asked for: the provider's id verbatim, arguments parsed. */
export type ModelToolCall = { id: string; name: string; arguments: Record<string, unknown> };

/** A function the model is offered (provider-neutral; each runner puts it in its wire shape). */
export type ToolSpec = { name: string; description: string; parameters: Record<string, unknown> };

/**
 * A message of the model context (the transcript turned into chat messages). Tool turns
 * appear only when the run offers tools: an assistant message with its calls, then one
 * `tool` message per call with the result's text.
 */
export type ContextMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string; files?: ContextFile[] }
  | { role: "assistant"; content: string; toolCalls?: ModelToolCall[] }
  | { role: "tool"; toolCallId: string; toolName: string; content: string; isError?: boolean };

/** How a file reaches the model: as an image, or as a document (a PDF, plain text). */
export type ModelPart = "image" | "document";

/**
 * A file of the run's own chat message its model is given as a part (media-parts.ts), stored in
 * the ATTACHMENTS bucket (read with `readAttachment`); `mimeType` without parameters.
 */
export type ContextFile = { key: string; part: ModelPart; mimeType: string; bytes: number; fileName?: string };

export type RunnerRequest = {
  runId: string;
  tenantId: string;
  sessionKey: string;
  agentId: string;
  input: RunInput;
  config: RunnerConfig;
  /** Recent transcript, oldest first, bounded. */
  context: ContextMessage[];
  deadline: number;
  signal: AbortSignal;
  /** Cumulative assistant text so far (throttled by the engine before it becomes events). */
  onText(text: string): void;
  /** A deployment key (MODEL_KEY_*) the config names: this tenant's grant, the key's hosts and its value. */
  deploymentKey(name: string): Promise<DeploymentKey>;
  /** Every credential resolved for this attempt (runner-keys.ts adds them): redacted from its errors. */
  credentials: Set<string>;
  /** An entry of the tenant's secret store (a `store` SecretRef's id); null when there is none. */
  storeSecret(id: string): Promise<ResolvedSecret | null>;
  /**
   * Reads a stored attachment (spawned sub-agents' files, a message's files for the model); null
   * when it is gone or its stored size is past `maxBytes` (then its body is never read).
   */
  readAttachment(key: string, maxBytes?: number): Promise<Uint8Array | null>;
  /** Functions the model may call (the tool loop); absent: a text-only run. */
  tools?: ToolSpec[];
  /** The model's output cap per call (`maxTokens` of the runner config). */
  maxTokens?: number;
  /** Where this run may send requests (runners fetch through `guardedFetch` with it). */
  outbound: OutboundPolicy;
  /** For webhook runs: the token the host uses for callbacks and tools, and where to call back. */
  runToken?: string;
  callbackBase?: string;
};

export type RunnerReply = {
  kind: "reply";
  text: string;
  /** The model asked for these calls (stopReason `toolUse`); the tool loop runs them. */
  toolCalls?: ModelToolCall[];
  /**
   * The run stopped at calls of the caller's own tools: they go back to the caller, and the
   * step that asked for them is already in the transcript at `stepSeq` (no reply message).
   */
  clientStop?: { calls: ClientToolCall[]; stepSeq: number };
  /** The provider's response id (OpenClaw's `responseId`). */
  responseId?: string;
  /** The whole run's text as clients saw it stream (tool rounds joined), when it differs from `text`. */
  streamedText?: string;
  /** Usage of the last model call alone (the reply message's), when `usage` sums several. */
  messageUsage?: RunUsage;
  usage?: RunUsage;
  toolMessages?: TranscriptMessage[];
  stopReason?: string;
  model?: string;
  provider?: string;
  api?: string;
};

/** A runner either replies, or (webhook 202) says the reply will arrive by callback. */
export type RunnerOutcome = RunnerReply | { kind: "deferred" };

export type Runner = (request: RunnerRequest) => Promise<RunnerOutcome>;

/** What a runner may need beyond its request when it is made for an attempt. */
export type RunnerPorts = {
  /** Resolves a key its config names (runner-keys.ts), under the deployment's outbound policy. */
  keys: Pick<RunnerRequest, "deploymentKey" | "storeSecret" | "credentials" | "outbound">;
  /** The tenant's generated runner secret (signs webhook requests unless the config names a secret). */
  runnerSecret(): Promise<string>;
};

/** A runner failure with a message fit for the run's `error` and the chat error event. */
export class RunnerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RunnerError";
  }
}

/**
 * Plain text of a transcript message's content (every block's `text` joined). Not features/openai/prompt.ts
 * `openAiContentText`, which reads the text parts of an OpenAI request's message.
 */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) =>
      block && typeof block === "object" && typeof (block as { text?: unknown }).text === "string"
        ? (block as { text: string }).text
        : "",
    )
    .filter((t) => t !== "")
    .join("\n");
}
