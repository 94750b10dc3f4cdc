import type { LiveEvent } from "../contracts/tenant-api";
import type { RunRecord } from "../model/run-types";
import { runnerFacts } from "../protocol/runner-specs/runner-declarations";
import type { TranscriptMessage } from "../protocol/session";
import { isSilentReply } from "./deltas";

/** The pieces of OpenClaw's run payloads that are decided, not streamed: who, how it ended, injects. */

/** Whose run it is, as OpenClaw's `agent` and `chat` payloads name it; provider only when a runner is called. */
export type RunContext = {
  agentId: string;
  sessionId?: string;
  /** The runner's provider and model (the lifecycle `model` phase), when known before it answers. */
  provider?: string;
  model?: string;
  /** When the run left the queue (the lifecycle end repeats it). */
  startedAt?: number;
};

/** A stored run's context: its agent, the session's transcript id and the runner's provider and model. */
export function runContext(run: RunRecord, sessionId: string | undefined): RunContext {
  // A reply fixed in advance (chat commands) calls no runner: no provider or model to name.
  const runner = run.input.fixedReply === undefined ? run.input.runner : undefined;
  return {
    agentId: run.input.agentId,
    ...(sessionId ? { sessionId } : {}),
    ...(runner ? { provider: runner.type, model: runnerFacts(runner).model ?? runner.type } : {}),
    ...(run.startedAt !== undefined ? { startedAt: run.startedAt } : {}),
  };
}

/** How an aborted run was stopped: `rpc` by chat.abort/sessions.abort, `stop` by the /stop command. */
export type AbortReason = "rpc" | "stop";

/** OpenClaw's summary of a run's reply (lifecycle end, agent.wait): shown text, silent, or nothing. */
export type TerminalReply = { disposition: "visible"; text: string } | { disposition: "silent" | "empty" };

/** OpenClaw caps the terminal reply's text at this many characters. */
const TERMINAL_REPLY_MAX_CHARS = 4096;

export function terminalReply(text: string | undefined): TerminalReply {
  if (text !== undefined && isSilentReply(text)) return { disposition: "silent" };
  const trimmed = (text ?? "").trim();
  if (!trimmed) return { disposition: "empty" };
  return {
    disposition: "visible",
    text: trimmed.length > TERMINAL_REPLY_MAX_CHARS ? `${trimmed.slice(0, TERMINAL_REPLY_MAX_CHARS - 1)}…` : trimmed,
  };
}

/**
 * The `chat` final OpenClaw announces a gateway-injected message with (chat.inject): a run
 * of its own, `inject-<messageId>`, at payload seq 0.
 */
export function injectedChatEvent(
  agentId: string,
  messageId: string,
  message: TranscriptMessage,
): Omit<LiveEvent, "afterSeq"> {
  return {
    event: "chat",
    payload: { runId: `inject-${messageId}`, agentId, seq: 0, state: "final", message },
  };
}
