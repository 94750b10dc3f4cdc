import { toolDeclaration } from "../../protocol/tool-specs/tool-declarations";
import { toolLabel } from "../../render/tool-activity";
import type { ModelToolCall } from "../runners/runner";
import type { ToolLoopEvents, ToolOutcome } from "./tool-loop";

/**
 * OpenClaw's live events for a tool call: `agent` stream `item` (a summary row every client
 * gets) and stream `tool` (arguments and result: the gateway sends it as `agent` to clients
 * that asked for tool events and as `session.tool` to subscribers), plus the run's cumulative
 * `usage`. Payload shapes as recorded (shared/peer/tool-loop, rec 24).
 */
export function toolLoopEvents(
  agent: (stream: "item" | "tool" | "usage", data: Record<string, unknown>) => void,
  now: () => number = Date.now,
): ToolLoopEvents {
  const startedAt = new Map<string, number>();
  return {
    toolStarted(call) {
      const at = now();
      startedAt.set(call.id, at);
      agent("item", { ...itemFields(call), phase: "start", status: "running", startedAt: at });
      agent("tool", { phase: "start", name: call.name, toolCallId: call.id, args: call.arguments });
    },
    toolEnded(call, outcome) {
      const meta = toolMeta(call);
      agent("tool", {
        phase: "result",
        name: call.name,
        toolCallId: call.id,
        ...(meta ? { meta } : {}),
        isError: outcome.isError,
        commandBearing: false,
        result: { content: [{ type: "text", text: outcome.text }], details: outcome.details },
      });
      agent("item", {
        ...itemFields(call),
        phase: "end",
        status: itemStatus(outcome),
        ...(startedAt.has(call.id) ? { startedAt: startedAt.get(call.id) } : {}),
        endedAt: now(),
        ...(outcome.isError ? { error: outcome.text.slice(0, 500) } : {}),
      });
      startedAt.delete(call.id);
    },
    usage(outputTokens) {
      agent("usage", { outputTokens });
    },
  };
}

function itemFields(call: ModelToolCall) {
  const meta = toolMeta(call);
  return {
    itemId: `tool:${call.id}`,
    toolCallId: call.id,
    name: call.name,
    kind: "tool",
    title: toolTitle(call),
    ...(meta ? { meta } : {}),
    commandBearing: false,
  };
}

/** `failed` when the tool answered an error, `blocked` when it never ran (not offered, invalid arguments). */
function itemStatus(outcome: ToolOutcome): "completed" | "failed" | "blocked" {
  if (!outcome.isError) return "completed";
  const blocked = /^Tool \S+ not found$/.test(outcome.text) || outcome.text.startsWith("Validation failed for tool");
  return blocked ? "blocked" : "failed";
}

/** The item row's title, as the Control UI shows it (`Sessions 5`, `Session History <key>`, …). */
export function toolTitle(call: ModelToolCall): string {
  const meta = toolMeta(call);
  const base = toolLabel(call.name);
  return meta ? `${base} ${meta}` : base;
}

/** The tool's own detail for its row (the session key, the target, …): its declaration says which. */
function toolMeta(call: ModelToolCall): string | undefined {
  return toolDeclaration(call.name)?.meta?.(call.arguments);
}
