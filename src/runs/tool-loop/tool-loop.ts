import { fitMessage } from "../../model/message-limits";
import type { RunUsage } from "../../model/run-types";
import type { TranscriptMessage } from "../../protocol/session";
import { raceAbort } from "../../util/race-abort";
import { type ContextMessage, type ModelToolCall, RunnerError, type RunnerReply } from "../runners/runner";
import type { JournalCall, JournalStep, ToolJournal } from "./tool-journal";

/**
 * The durable tool loop of one run, provider-neutral: the model answers with tool calls, the
 * calls run (concurrently within one answer), their results go back to the model, until it
 * answers in text. Every step is journaled before its calls run and every result when it
 * finished, so a run resumed after a crash runs only what is not done — sessions_send and
 * sessions_spawn get the call's id as idempotency key — and never asks the model again for
 * an answer it already gave. Transcript records are OpenClaw's: the assistant message with
 * `toolCall` blocks and `stopReason: "toolUse"`, then one `toolResult` per call in call order.
 */

/** One tool call's outcome, as the model and the transcript get it. */
export type ToolOutcome = { text: string; details: unknown; isError: boolean };

/** What clients are told while tools run (agent item/tool events). */
export type ToolLoopEvents = {
  toolStarted(call: ModelToolCall): void;
  toolEnded(call: ModelToolCall, outcome: ToolOutcome): void;
  /** Output tokens of the run so far, after each model call. */
  usage(outputTokens: number): void;
};

/** The journal as the loop uses it (tool-journal.ts keeps it in the session's SQLite). */
export type ToolLoopJournal = Pick<
  ToolJournal,
  "steps" | "recordStep" | "markStarted" | "markDone" | "markResultsAppended"
>;

export type ToolLoopPorts = {
  journal: ToolLoopJournal;
  /** Appends transcript messages (the session's one append path); answers their seqs. */
  append(messages: TranscriptMessage[]): number[];
  /** Commits `fn`'s writes at once. */
  transaction(fn: () => void): void;
  /** One model call with this context; `onText` gets the call's cumulative text. */
  model(context: ContextMessage[], onText: (text: string) => void): Promise<RunnerReply>;
  /** Runs one call through the shared tool entry point; resolves with an outcome, never throws. */
  invoke(call: ModelToolCall, idempotencyKey: string): Promise<ToolOutcome>;
  /** Names of the caller's own tools: a call of one is not run here, it ends the run. */
  clientTools: ReadonlySet<string>;
  events: ToolLoopEvents;
  /** The run's cumulative text as clients see it (all rounds). */
  onText(text: string): void;
  signal: AbortSignal;
  now(): number;
};

export type ToolLoopRun = {
  runId: string;
  /** The transcript up to the run's input (earlier turns' tool pairs included). */
  context: ContextMessage[];
  maxRounds: number;
};

/** Between the texts of two rounds in the run's one chat stream (OpenClaw's join). */
const ROUND_TEXT_SEPARATOR = "\n\n";

export async function runToolLoop(ports: ToolLoopPorts, run: ToolLoopRun): Promise<RunnerReply> {
  const { journal, signal } = ports;
  const steps = journal.steps(run.runId);
  const texts = steps.map((step) => leadingText(step.message)).filter((text) => text !== "");
  let usage = steps.reduce<RunUsage | undefined>((sum, step) => addUsage(sum, usageOf(step.message)), undefined);
  // A step cut off by a crash or eviction: its calls that did not finish run again.
  const unfinished = steps.at(-1);
  if (unfinished && !unfinished.resultsAppended) await runCalls(ports, run.runId, unfinished);
  const resumedStop = unfinished && clientStop(ports, unfinished, usage);
  if (resumedStop) return resumedStop;

  for (;;) {
    throwIfAborted(signal);
    const context = [...run.context, ...steps.flatMap(stepContext)];
    const prefix = texts.length > 0 ? texts.join(ROUND_TEXT_SEPARATOR) + ROUND_TEXT_SEPARATOR : "";
    const reply = await ports.model(context, (text) => ports.onText(prefix + text));
    throwIfAborted(signal);
    usage = addUsage(usage, reply.usage);
    if (usage) ports.events.usage(usage.output);
    if (reply.text !== "") texts.push(reply.text);
    const calls = reply.toolCalls ?? [];
    if (calls.length === 0) {
      return {
        ...reply,
        ...(usage ? { usage } : {}),
        ...(reply.usage ? { messageUsage: reply.usage } : {}),
        streamedText: texts.join(ROUND_TEXT_SEPARATOR),
      };
    }
    if (steps.length >= run.maxRounds) {
      throw new RunnerError(
        `Tool loop stopped: the model asked for tools after ${run.maxRounds} rounds (maxToolRounds ${run.maxRounds})`,
      );
    }
    const step = recordStep(ports, run.runId, steps.length + 1, reply, calls);
    steps.push(step);
    await runCalls(ports, run.runId, step);
    // The caller runs its own tools: the run ends here and their calls go back to it.
    const stop = clientStop(ports, step, usage);
    if (stop) return stop;
  }
}

/** OpenClaw's synthetic result of a call the client runs (the transcript's record of it). */
function delegatedResult(name: string) {
  return { status: "pending", tool: name, message: "Tool execution delegated to client" };
}

/**
 * The run's answer when it stopped at client calls: no text (commentary said before the calls
 * stays in the transcript only, as OpenClaw drops it from the HTTP answer), and each call with
 * a client-facing id of OpenClaw's shape.
 */
function clientStop(ports: ToolLoopPorts, step: JournalStep, usage: RunUsage | undefined): RunnerReply | null {
  const clientCalls = callsOf(step).filter((call) => ports.clientTools.has(call.name));
  if (clientCalls.length === 0) return null;
  const calls = clientCalls.map((call) => ({
    id: clientToolCallId(),
    name: call.name,
    arguments: JSON.stringify(call.arguments),
  }));
  return {
    kind: "reply",
    text: "",
    stopReason: "toolUse",
    ...(usage ? { usage } : {}),
    clientStop: { calls, stepSeq: step.messageSeq },
  };
}

/** OpenClaw's client-facing tool call ids: 9 lowercase hex characters. */
function clientToolCallId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(5));
  return [...bytes]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("")
    .slice(0, 9);
}

/** The assistant message of a step: text said before the calls as its own block, then the calls. */
function recordStep(
  ports: ToolLoopPorts,
  runId: string,
  index: number,
  reply: RunnerReply,
  calls: ModelToolCall[],
): JournalStep {
  const now = ports.now();
  const { message } = fitMessage({
    role: "assistant",
    content: [
      ...(reply.text !== "" ? [{ type: "text", text: reply.text }] : []),
      ...calls.map((call) => ({ type: "toolCall", id: call.id, name: call.name, arguments: call.arguments })),
    ],
    ...(reply.api ? { api: reply.api } : {}),
    ...(reply.provider ? { provider: reply.provider } : {}),
    ...(reply.model ? { model: reply.model } : {}),
    ...(reply.usage
      ? { usage: { input: reply.usage.input, output: reply.usage.output, totalTokens: reply.usage.totalTokens } }
      : {}),
    stopReason: "toolUse",
    ...(reply.responseId ? { responseId: reply.responseId } : {}),
    timestamp: now,
  });
  let messageSeq = 0;
  ports.transaction(() => {
    const [seq] = ports.append([message]);
    messageSeq = seq!;
    ports.journal.recordStep(
      runId,
      index,
      message,
      seq!,
      calls.map((call) => ({ callId: call.id, name: call.name })),
      now,
    );
  });
  return {
    step: index,
    message,
    messageSeq,
    resultsAppended: false,
    calls: calls.map((call, position) => ({
      position,
      callId: call.id,
      name: call.name,
      state: "recorded",
      attempts: 0,
    })),
  };
}

/**
 * Runs a step's unfinished calls concurrently; each result is journaled as it arrives, and
 * once all are in, the toolResult messages are appended in call order (as OpenClaw persists
 * them, whatever order they finished in).
 */
async function runCalls(ports: ToolLoopPorts, runId: string, step: JournalStep): Promise<void> {
  const calls = callsOf(step);
  await Promise.all(
    step.calls.map(async (entry, position) => {
      if (entry.state === "done") return;
      const call = calls[position]!;
      ports.journal.markStarted(runId, step.step, position, ports.now());
      ports.events.toolStarted(call);
      const outcome = ports.clientTools.has(call.name)
        ? delegated(call.name)
        : await raceAbort(ports.invoke(call, `${runId}:${call.id}`), ports.signal, () => undefined);
      if (!outcome || ports.signal.aborted) return;
      // A result over the per-message limit is kept cut (fitMessage): its journal row and its
      // transcript row must fit the platform's row limit, and the model reads the marker.
      const { message: result } = fitMessage({
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: outcome.text }],
        details: outcome.details,
        isError: outcome.isError,
        timestamp: ports.now(),
      });
      ports.journal.markDone(runId, step.step, position, result, ports.now());
      step.calls[position] = { ...entry, state: "done", result };
      ports.events.toolEnded(call, outcome);
    }),
  );
  throwIfAborted(ports.signal);
  ports.transaction(() => {
    ports.append(step.calls.map((entry) => entry.result!));
    ports.journal.markResultsAppended(runId, step.step);
  });
  step.resultsAppended = true;
}

function delegated(name: string): ToolOutcome {
  const details = delegatedResult(name);
  return { text: JSON.stringify(details), details, isError: false };
}

/** A step as the model sees it again: its answer with the calls, then each call's result. */
function stepContext(step: JournalStep): ContextMessage[] {
  const calls = callsOf(step);
  return [
    { role: "assistant", content: leadingText(step.message), toolCalls: calls },
    ...step.calls.map(
      (entry: JournalCall, position): ContextMessage => ({
        role: "tool",
        toolCallId: calls[position]!.id,
        toolName: entry.name,
        content: resultText(entry.result),
        ...(entry.result?.isError ? { isError: true } : {}),
      }),
    ),
  ];
}

function callsOf(step: JournalStep): ModelToolCall[] {
  const blocks = Array.isArray(step.message.content) ? step.message.content : [];
  return blocks
    .filter((block) => block.type === "toolCall")
    .map((block) => ({
      id: String(block.id),
      name: String(block.name),
      arguments: (block.arguments ?? {}) as Record<string, unknown>,
    }));
}

function leadingText(message: TranscriptMessage): string {
  const blocks = Array.isArray(message.content) ? message.content : [];
  return blocks
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("");
}

function resultText(result: TranscriptMessage | undefined): string {
  const blocks = Array.isArray(result?.content) ? result.content : [];
  return blocks.map((block) => (typeof block.text === "string" ? block.text : "")).join("");
}

function usageOf(message: TranscriptMessage): RunUsage | undefined {
  const usage = message.usage as Partial<RunUsage> | undefined;
  if (!usage) return undefined;
  const input = Number(usage.input ?? 0);
  const output = Number(usage.output ?? 0);
  return { input, output, totalTokens: Number(usage.totalTokens ?? input + output) };
}

/**
 * Sums the run's model calls: input, output, total and cost alike, so the run record, the ledger
 * and `sessions.usage` count every call (a total of the last call alone would be less than
 * input + output of the run).
 */
function addUsage(sum: RunUsage | undefined, usage: RunUsage | undefined): RunUsage | undefined {
  if (!usage) return sum;
  const cost =
    sum?.cost === undefined && usage.cost === undefined ? {} : { cost: (sum?.cost ?? 0) + (usage.cost ?? 0) };
  return {
    input: (sum?.input ?? 0) + usage.input,
    output: (sum?.output ?? 0) + usage.output,
    totalTokens: (sum?.totalTokens ?? 0) + usage.totalTokens,
    ...cost,
  };
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new DOMException("This operation was aborted", "AbortError");
}
