import type { ClientTool, ClientToolCall } from "../../model/run-types";
import { toolSpec as sessionTool } from "../../tools/catalog";
import { invalidRequest, OpenAiError } from "./errors";
import type { ResponsesRequest } from "./openai-schemas";

/**
 * Client tools of the OpenAI routes (`tools`, `tool_choice`): validated with OpenClaw's texts
 * and brought to one shape for both surfaces. The run executes none of them: a model call of
 * a client tool ends the run and goes back to the client, which answers with a follow-up
 * (`role: "tool"` / `function_call_output`, flattened by prompt.ts into a new turn).
 */

export type { ClientTool, ClientToolCall };
export type ToolChoice = "auto" | "none" | "required" | { name: string };
/** What a tool-capable runner receives: the tools offered for this run (none when withheld) and the choice. */
export type ClientToolSpec = { tools: ClientTool[]; choice: ToolChoice };

const PREFIX = "Invalid tools/tool_choice: ";
/**
 * The direct tools of OpenClaw's default agent (as its model is offered them, recorded in
 * shared/peer/openai-http): a client tool may not take one of these names either, so a client
 * that works here works against the real gateway.
 */
const OPENCLAW_AGENT_TOOLS = new Set([
  "apply_patch",
  "edit",
  "exec",
  "ls",
  "openclaw",
  "process",
  "read",
  "sessions_yield",
  "tool_call",
  "tool_describe",
  "tool_search",
  "write",
]);

/** A client tool that shadows an agent tool (responses answer it with a failed response resource). */
export class ToolNameConflict extends OpenAiError {
  constructor() {
    super(400, "invalid_request_error", INVALID_TOOL_CONFIGURATION);
  }
}
export const INVALID_TOOL_CONFIGURATION = "invalid tool configuration";
const toolsError = (detail: string) => invalidRequest(`${PREFIX}${detail}`);

/** Chat's `tools` / `tool_choice` (`[{ type: "function", function: { name, … } }]`). */
export function chatToolSpec(tools: readonly unknown[] | null | undefined, choice: unknown): ClientToolSpec | null {
  const list: ClientTool[] = [];
  for (const raw of tools ?? []) {
    const tool = raw as { type?: unknown; function?: Record<string, unknown> } | null;
    if (!tool || typeof tool !== "object" || tool.type !== "function") {
      throw toolsError("only function tools are supported");
    }
    const fn = tool.function;
    if (!fn || typeof fn !== "object" || typeof fn.name !== "string" || fn.name.trim() === "") {
      throw toolsError("tool.function.name is required");
    }
    list.push(clientTool(fn.name, fn.description, fn.parameters, fn.strict));
  }
  return toolSpec(list, parseChatChoice(choice), toolsError);
}

function parseChatChoice(choice: unknown): ToolChoice {
  if (choice === undefined || choice === null || choice === "auto") return "auto";
  if (choice === "none" || choice === "required") return choice;
  if (typeof choice === "object" && !Array.isArray(choice)) {
    const object = choice as { type?: unknown; function?: { name?: unknown } };
    if (object.type === "allowed_tools") throw toolsError("tool_choice allowed_tools is not supported");
    if (object.type === "function") {
      const name = object.function?.name;
      if (typeof name !== "string" || name.trim() === "") throw toolsError("tool_choice.function.name is required");
      return { name };
    }
  }
  throw toolsError("tool_choice must be a string or object");
}

/** Responses' flat tools (`[{ type: "function", name, … }]`); its choice is already schema-checked. */
export function responsesToolSpec(request: Pick<ResponsesRequest, "tools" | "tool_choice">): ClientToolSpec | null {
  const list = (request.tools ?? []).map((tool) =>
    clientTool(tool.name, tool.description, tool.parameters, tool.strict ?? undefined),
  );
  const raw = request.tool_choice;
  const choice: ToolChoice =
    raw === undefined ? "auto" : typeof raw === "string" ? raw : { name: "name" in raw ? raw.name : raw.function.name };
  // OpenClaw answers every responses tool refusal with the one generic text.
  return toolSpec(list, choice, () => invalidRequest(INVALID_TOOL_CONFIGURATION));
}

function toolSpec(list: ClientTool[], choice: ToolChoice, refuse: (detail: string) => Error): ClientToolSpec | null {
  const names = new Set<string>();
  for (const tool of list) {
    // A client tool may not shadow an agent tool, nor another client tool.
    if (sessionTool(tool.name) || OPENCLAW_AGENT_TOOLS.has(tool.name)) throw new ToolNameConflict();
    if (names.has(tool.name)) throw invalidRequest(INVALID_TOOL_CONFIGURATION);
    names.add(tool.name);
  }
  if (choice === "required" && list.length === 0) throw refuse("tool_choice=required but no tools were provided");
  if (typeof choice === "object" && !names.has(choice.name)) {
    throw refuse(`tool_choice requested unknown tool: ${choice.name}`);
  }
  if (list.length === 0) return null;
  // `none` withholds the client tools from the run; a pinned choice offers only that tool.
  const offered =
    choice === "none" ? [] : typeof choice === "object" ? list.filter((t) => t.name === choice.name) : list;
  return { tools: offered, choice };
}

function clientTool(name: string, description: unknown, parameters: unknown, strict: unknown): ClientTool {
  return {
    name,
    ...(typeof description === "string" ? { description } : {}),
    ...(parameters && typeof parameters === "object" && !Array.isArray(parameters)
      ? { parameters: parameters as Record<string, unknown> }
      : {}),
    ...(typeof strict === "boolean" ? { strict } : {}),
  };
}

/**
 * The tool choice after the run: `required` needs a client call, a pinned choice a call of
 * that tool. The refusal text when it is not met (OpenClaw answers it 502).
 */
export function unmetToolChoice(spec: ClientToolSpec | null, calls: readonly ClientToolCall[]): string | null {
  if (!spec) return null;
  if (spec.choice === "required" && calls.length === 0) {
    return "tool_choice=required was not satisfied by the agent response";
  }
  const pinned = spec.choice;
  if (typeof pinned === "object" && !calls.some((call) => call.name === pinned.name)) {
    return `tool_choice required a ${pinned.name} tool call, but the agent did not produce one`;
  }
  return null;
}

/** Streamed tool-call arguments come in pieces of at most this many characters. */
export const TOOL_ARGUMENT_CHUNK_CHARS = 256;

export function argumentChunks(args: string): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < args.length; i += TOOL_ARGUMENT_CHUNK_CHARS)
    chunks.push(args.slice(i, i + TOOL_ARGUMENT_CHUNK_CHARS));
  return chunks;
}
