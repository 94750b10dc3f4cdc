import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ServerNotification,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { hasScope } from "../../auth/principal";
import type { TenantContext } from "../../domain/context";
import { DomainError, retryAfterSeconds } from "../../domain/errors";
import { TOOL_SPECS, toolSpec } from "../../tools/catalog";
import { type InvokeRequest, invokeTool, ToolNotAvailableError, toolAvailable } from "../../tools/invoke";
import { requesterFor } from "../../tools/requester";
import { ToolInputError, type ToolResult } from "../../tools/result";
import { listTranscripts, readTranscript } from "../../tools/session-transcripts";
import { admitToolCall } from "../../tools/tool-meter";
import type { ToolSpec } from "../../tools/tool-spec";
import { parseTranscriptUri, TRANSCRIPT_URI_TEMPLATE, transcriptUri } from "./resource-uri";
import { toolInputSchema } from "./tool-schemas";

export const SERVER_INFO = { name: "openclaw-sessions", title: "OpenClaw sessions", version: "0.1.0" };

/** MCP's "resource not found" error code. */
const RESOURCE_NOT_FOUND = -32002;

const INSTRUCTIONS =
  "OpenClaw session tools for one tenant. sessions_list finds sessions; sessions_history reads one; " +
  "sessions_send messages another session and waits for its reply; sessions_spawn starts a sub-agent whose " +
  "result is announced back; sessions_wait follows a session (pass nextAfterSeq back). Each session's " +
  "transcript is also a resource, openclaw://session/<key>.";

/**
 * One MCP server for one authenticated request (stateless: nothing outlives the request). The
 * handlers only translate: every rule lives in src/tools, shared with POST /tools/invoke.
 * `sessionKey` is the requester session an operator acts as (a run token always acts as its own).
 */
export function createMcpServer(ctx: TenantContext, sessionKey: string | undefined): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, resources: {} },
    instructions: INSTRUCTIONS,
    // Ajv (the default) compiles with eval, which Workers forbid; nothing here validates schemas anyway.
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOL_SPECS.filter((tool) => toolAvailable(ctx, tool.name) && mayUse(ctx, tool.name)).map(describeTool),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const admitted = await admitToolCall(ctx);
    if (!admitted.ok) return toolError(admitted.message, { retryAfterSeconds: admitted.retryAfterSeconds });
    const name = request.params.name.trim();
    if (!toolAvailable(ctx, name)) throw notAvailable(name);
    if (!mayUse(ctx, name)) return toolError(`missing scope: ${requiredScope(name)}`);
    const call: InvokeRequest = { tool: name, args: request.params.arguments ?? {} };
    if (sessionKey !== undefined) call.sessionKey = sessionKey;
    const stopKeepalive = progressKeepalive(request.params._meta?.progressToken, extra.sendNotification);
    try {
      return toCallToolResult(await invokeTool(ctx, call));
    } catch (error) {
      if (error instanceof ToolNotAvailableError) throw notAvailable(name);
      if (error instanceof DomainError && error.code === "rate_limited") {
        return toolError(error.message, { retryAfterSeconds: retryAfterSeconds(error) });
      }
      if (error instanceof ToolInputError || error instanceof DomainError) return toolError(error.message);
      console.error("mcp tools/call failed", error);
      return toolError("tool execution failed");
    } finally {
      stopKeepalive();
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    if (!mayRead(ctx)) return { resources: [] };
    const sessions = await listTranscripts(ctx, await requesterFor(ctx, sessionKey));
    return {
      resources: sessions.map((session) => ({
        uri: transcriptUri(session.key),
        name: session.key,
        title: session.label ?? session.displayName ?? session.key,
        description: `Transcript of session ${session.key}`,
        mimeType: "application/json",
      })),
    };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: TRANSCRIPT_URI_TEMPLATE,
        name: "session-transcript",
        title: "Session transcript",
        description:
          "A session's newest messages (limit, default 100); beforeSeq pages back (nextBeforeSeq of the previous page).",
        mimeType: "application/json",
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const parsed = parseTranscriptUri(uri);
    if (!parsed) throw new McpError(ErrorCode.InvalidParams, `Not a session transcript URI: ${uri.slice(0, 200)}`);
    const notFound = new McpError(RESOURCE_NOT_FOUND, "Resource not found", { uri });
    if (!mayRead(ctx)) throw notFound;
    const page = await readTranscript(ctx, await requesterFor(ctx, sessionKey), parsed).catch((error: unknown) => {
      if (error instanceof DomainError) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    });
    if (!page || !("messages" in page)) throw notFound;
    const next =
      page.nextBeforeSeq === undefined
        ? {}
        : { nextUri: transcriptUri(parsed.sessionKey, { ...parsed, beforeSeq: page.nextBeforeSeq }) };
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ ...page, ...next }) }] };
  });

  return server;
}

/**
 * While a call runs (sessions_wait, sessions_send wait for minutes), a client that asked for
 * progress gets a notification every KEEPALIVE_MS: SDK clients with resetTimeoutOnProgress keep
 * waiting, and proxies see bytes on the SSE stream.
 */
const KEEPALIVE_MS = 10_000;

function progressKeepalive(
  token: string | number | undefined,
  send: (notification: ServerNotification) => Promise<void>,
): () => void {
  if (token === undefined) return () => {};
  let progress = 0;
  const timer = setInterval(() => {
    progress += 1;
    send({
      method: "notifications/progress",
      params: { progressToken: token, progress, message: "still working" },
    }).catch(() => clearInterval(timer));
  }, KEEPALIVE_MS);
  return () => clearInterval(timer);
}

function describeTool(tool: ToolSpec): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toolInputSchema(tool),
    annotations: { readOnlyHint: tool.readOnly, destructiveHint: false, openWorldHint: false },
  };
}

const requiredScope = (name: string) => (toolSpec(name)?.readOnly ? "operator.read" : "operator.write");

/** Operators need operator.read for read-only tools and operator.write for the rest; a run token acts as its session. */
function mayUse(ctx: TenantContext, name: string): boolean {
  return ctx.principal.kind === "run" || hasScope(ctx.principal, requiredScope(name));
}

function mayRead(ctx: TenantContext): boolean {
  return ctx.principal.kind === "run" || hasScope(ctx.principal, "operator.read");
}

function notAvailable(name: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Tool not available: ${name.slice(0, 128)}`);
}

/** OpenClaw's result as MCP's: the same text block, the payload as structuredContent; error statuses are tool errors. */
function toCallToolResult(result: ToolResult): CallToolResult {
  const details = result.details;
  const structured = typeof details === "object" && details !== null && !Array.isArray(details);
  const status = structured ? (details as { status?: unknown }).status : undefined;
  return {
    content: result.content,
    ...(structured ? { structuredContent: details as Record<string, unknown> } : {}),
    ...(status === "error" || status === "forbidden" ? { isError: true } : {}),
  };
}

function toolError(message: string, extra: Record<string, unknown> = {}): CallToolResult {
  return {
    content: [{ type: "text", text: message }],
    structuredContent: { status: "error", error: message, ...extra },
    isError: true,
  };
}
