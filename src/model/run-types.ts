import type { RunnerConfig } from "../protocol/config";
import type { InputProvenance, TranscriptMessage } from "../protocol/session";
import type { DeliveryTarget, ReplyHint } from "./delivery";
import type { RouteRowFields } from "./entry";
import type { InboundMedia } from "./inbound-media";

/** Run states: queued → running → ok | error | timeout | aborted. */
export type RunState = "queued" | "running" | "ok" | "error" | "timeout" | "aborted";
export const TERMINAL_STATES: readonly RunState[] = ["ok", "error", "timeout", "aborted"];

/** What started the run and how it should behave (persisted with the run). */
export type RunInput = {
  message: string;
  provenance?: InputProvenance;
  extraSystemPrompt?: string;
  /** Seconds before the run is ended as `timeout` (alarm-driven). */
  timeoutSeconds?: number;
  thinking?: string;
  deliver?: boolean;
  /**
   * A concrete channel the visible reply is posted to through the session's outbox, queued in
   * the reply's own commit (hooks with `channel` + `to`; src/features/hooks/hook-delivery.ts).
   */
  deliverTo?: DeliveryTarget;
  label?: string;
  lane?: string;
  /** A reply fixed in advance (chat commands such as /send): no runner is called. */
  fixedReply?: string;
  /**
   * The platform's structure posted with a fixed reply to the chat it was made for (Delivery.blocks):
   * Slack Block Kit blocks (OpenClaw's `/status` card; the reply is their fallback text), or
   * Telegram's `reply_markup` (a `/commands` page's keyboard).
   */
  replyBlocks?: Record<string, unknown>[];
  /** Who started it: chat.send and agent differ in their events and dedupe keys. */
  origin: "chat.send" | "agent" | "ingest" | "tool";
  /** Public base (`https://host/t/<tenant>`) webhook hosts call back to. */
  callbackBase?: string;
  /** Whether the session runs sandboxed (decided from tenant config when the run starts; run tokens carry it). */
  sandboxed?: boolean;
  /** The sessions_send hops that led to this run (absent: a run no sessions_send started); run tokens carry it. */
  a2aDepth?: number;
  /** Files handed to a spawned sub-agent (stored in the ATTACHMENTS bucket). */
  attachments?: { relDir: string; keys: string[]; files: Array<{ name: string; bytes: number; sha256: string }> };
  /**
   * Functions the caller runs itself (the OpenAI routes' client tools): offered to the model
   * beside the session tools; a call of one ends the run and goes back to the caller.
   */
  clientTools?: ClientTool[];
  /**
   * A chat message's turn (src/features/channels/): the session's route is set to this target when the
   * user message is appended, and the reply is queued to it in the outbox in the same commit.
   */
  replyTarget?: DeliveryTarget;
  /** The platform's one-time way to answer this turn (ReplyHint): its reply delivery carries it, the route does not. */
  replyHint?: ReplyHint;
  /** A chat turn's row fields, set with its route (`withRoute`: rows follow the user). */
  routeFields?: RouteRowFields;
  /**
   * The run's user message as the model gets it, when it differs from the transcript's (a chat
   * turn's inbound envelope: the enveloped text, then the internal context; src/features/channels/inbound-envelope.ts).
   */
  modelMessages?: string[];
  /**
   * A chat message's files, stored in the ATTACHMENTS bucket (src/features/channels/inbound-media.ts): the
   * user message references them, and a model that takes images gets those as image parts.
   */
  media?: InboundMedia[];
};

/** A client tool as the model is offered it. */
export type ClientTool = { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };

/** A client tool call as the run reports it: the id the client answers with, arguments as JSON text. */
export type ClientToolCall = { id: string; name: string; arguments: string };

/** The input as stored with the run: also whose run it is and which runner, so recovery needs no config. */
export type StoredRunInput = RunInput & {
  runner: RunnerConfig;
  agentId: string;
  tenantId: string;
  /** A held run's user message, appended when it is released (`StartRun.hold`). */
  heldUserMessage?: HeldUserMessage;
};

/** Without `content` when it is the run's input message (stored once). */
export type HeldUserMessage = Omit<TranscriptMessage, "content"> & { content?: TranscriptMessage["content"] };

export type RunUsage = { input: number; output: number; totalTokens: number; cost?: number };

export type RunRecord = {
  runId: string;
  sessionKey: string;
  state: RunState;
  input: StoredRunInput;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  stopReason?: string;
  error?: string;
  usage?: RunUsage;
  /** Final assistant text (what agent.wait and sessions_send report). */
  reply?: string;
  userSeq?: number;
  replySeq?: number;
  attempts: number;
  /** The webhook host took the run (202) and completes it by callback. */
  deferred: boolean;
  /** The run stopped at these client tool calls (stopReason `toolUse`). */
  clientToolCalls?: ClientToolCall[];
};

/** What `agent.wait` answers. */
export type RunSnapshot = {
  runId: string;
  status: "ok" | "error" | "timeout" | "pending";
  state: RunState;
  startedAt?: number;
  endedAt?: number;
  stopReason?: string;
  error?: string;
  reply?: string;
  usage?: RunUsage;
  /** The run stopped at these client tool calls. */
  clientToolCalls?: ClientToolCall[];
};
