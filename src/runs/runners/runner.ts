import type { RunnerConfig } from "../../protocol/config";
import type { ResolvedSecret } from "../../protocol/secrets";
import type { TranscriptMessage } from "../../protocol/session";
import type { RunInput, RunUsage } from "../run-types";

/** A message of the model context (the transcript turned into chat messages). */
export type ContextMessage = { role: "system" | "user" | "assistant"; content: string };

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
  /** Credentials the runner may need (read from worker secrets, never from tenant config). */
  secret(name: string): string | undefined;
  /** An entry of the tenant's secret store (a `store` SecretRef's id); null when there is none. */
  storeSecret(id: string): Promise<ResolvedSecret | null>;
  /** Reads a stored attachment (spawned sub-agents' files). */
  readAttachment(key: string): Promise<Uint8Array | null>;
  /** For webhook runs: the token the host uses for callbacks and tools, and where to call back. */
  runToken?: string;
  callbackBase?: string;
};

export type RunnerReply = {
  kind: "reply";
  text: string;
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

/** A runner failure with a message fit for the run's `error` and the chat error event. */
export class RunnerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RunnerError";
  }
}

/** Plain text of a transcript message's content (text blocks joined). */
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
