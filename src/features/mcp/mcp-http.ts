import { StreamableHTTPTransport } from "@hono/mcp";
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { type Context, Hono } from "hono";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { authenticate } from "../../auth/authenticate";
import { bearerToken } from "../../auth/tokens";
import type { TenantContext } from "../../domain/context";
import type { AppEnv } from "../../http/context";
import { MAX_BODY_BYTES } from "../../http/request";
import { oauthAccess } from "../../oauth/oauth-access";
import { OAUTH_SCOPES, protectedResourceMetadataUrl } from "../../oauth/oauth-provider";
import { serviceOrigin } from "../../policy/outbound-url";
import { describeZodError } from "../../protocol/describe";
import { TENANT_ID_PATTERN } from "../../protocol/http";
import { TOOL_DECLARATIONS } from "../../protocol/tool-specs/tool-declarations";
import { tenantContext } from "../../stubs";
import { BODY_TOO_LARGE, readBoundedBody } from "../../util/bounded-body";
import { createMcpServer } from "./mcp-server";

/**
 * The Streamable HTTP MCP endpoint, `/mcp` (default tenant) and `/t/<tenantId>/mcp`.
 * Stateless: every POST is authenticated and served by a fresh server, so nothing is lost when
 * the isolate or a Durable Object is evicted between calls, and no Mcp-Session-Id is issued.
 * Answers are JSON, or SSE when the client accepts it and the batch holds a call that may wait.
 */
export const mcpRoutes = new Hono<AppEnv>();

/** JSON-RPC messages one POST may batch (protocol 2025-06-18 and later send one). */
export const MAX_BATCH_MESSAGES = 16;
/** Tools that may wait long (declared `waits`): their answers stream as SSE when the client accepts it. */
const WAITING_TOOLS = new Set(TOOL_DECLARATIONS.filter((tool) => tool.waits).map((tool) => tool.name));
/** The requester session an operator acts as (default: the main session), as body.sessionKey on /tools/invoke. */
export const SESSION_KEY_HEADER = "x-openclaw-session-key";

const corsHeaders = cors({
  origin: "*",
  allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
  allowHeaders: [
    "authorization",
    "content-type",
    "accept",
    "mcp-protocol-version",
    "mcp-session-id",
    "last-event-id",
    SESSION_KEY_HEADER,
  ],
  exposeHeaders: ["mcp-session-id", "www-authenticate", "retry-after"],
  maxAge: 86400,
});
mcpRoutes.use("/mcp", corsHeaders);
mcpRoutes.use("/t/:tenantId/mcp", corsHeaders);
mcpRoutes.all("/mcp", serveMcp);
mcpRoutes.all("/t/:tenantId/mcp", serveMcp);

async function serveMcp(c: Context<AppEnv>): Promise<Response> {
  const url = new URL(c.req.url);
  const tenantId = c.req.param("tenantId") ?? c.env.DEFAULT_TENANT;
  if (!tenantId) return rpcError(c, 404, -32600, "No default tenant is configured; use /t/<tenantId>/mcp");
  // Tokens are bound to the service's origin (PUBLIC_ORIGIN when set), not to the Host header.
  const origin = serviceOrigin(c.env, c.req.url);
  const resource = `${origin}${url.pathname}`;
  const ctx = await authenticateMcp(c, tenantId, origin);
  if (!ctx) return challenge(c, resource);
  if (c.req.method !== "POST") {
    c.header("Allow", "POST, OPTIONS");
    return rpcError(c, 405, -32000, "Method not allowed: this server is stateless; POST JSON-RPC messages");
  }
  const body = await readMessages(c);
  if (body instanceof Response) return body;

  const sessionKey = c.req.header(SESSION_KEY_HEADER);
  const server = createMcpServer(ctx, sessionKey?.trim() ? sessionKey : undefined);
  const accept = c.req.header("accept") ?? "";
  const sse =
    accept.includes("text/event-stream") && (!accept.includes("application/json") || body.messages.some(mayWait));
  const transport = new StreamableHTTPTransport({ enableJsonResponse: !sse });
  await server.connect(transport);
  try {
    return (await transport.handleRequest(c, body.raw)) ?? rpcError(c, 400, -32600, "Invalid Request");
  } catch (error) {
    if (error instanceof HTTPException) return error.getResponse();
    throw error;
  }
}

/**
 * Operator and run tokens as on /tools/invoke, else an OAuth access token of this tenant.
 * A token of another tenant is simply not valid here.
 */
async function authenticateMcp(c: Context<AppEnv>, tenantId: string, origin: string): Promise<TenantContext | null> {
  const token = bearerToken(c.req.header("authorization"));
  if (!token || !TENANT_ID_PATTERN.test(tenantId)) return null;
  let access = await authenticate(c.env, tenantId, token);
  // OAuth access tokens are `<user>:<grant>:<secret>`; operator and run tokens never hold a colon.
  if (access === null && token.includes(":")) access = await oauthAccess(c.env, origin, tenantId, token);
  if (!access || access === "wrong_tenant") return null;
  // A run token acts as its session only while its run is active.
  if (access.principal.kind === "run" && !access.principal.runActive) return null;
  return tenantContext(c.env, { tenantId, config: access.config, principal: access.principal, requestUrl: c.req.url });
}

/** 401 naming the protected-resource metadata, so OAuth clients can find the authorization server. */
function challenge(c: Context<AppEnv>, resource: string): Response {
  const presented = bearerToken(c.req.header("authorization")) !== null;
  const params = [
    ...(presented
      ? ['error="invalid_token"', 'error_description="The access token is unknown, expired or revoked"']
      : []),
    `resource_metadata="${protectedResourceMetadataUrl(resource)}"`,
    `scope="${OAUTH_SCOPES.join(" ")}"`,
  ];
  c.header("WWW-Authenticate", `Bearer ${params.join(", ")}`);
  return rpcError(
    c,
    401,
    -32001,
    "Unauthorized: a valid bearer token (operator, run or OAuth access token) is required",
  );
}

type Messages = { raw: unknown; messages: JSONRPCMessage[] };

/** Reads and checks the POST body before the SDK sees it: size, UTF-8, JSON, batch size, message shapes. */
async function readMessages(c: Context<AppEnv>): Promise<Messages | Response> {
  if (!(c.req.header("content-type") ?? "").includes("application/json")) {
    return rpcError(c, 415, -32600, "Unsupported Media Type: Content-Type must be application/json");
  }
  const version = c.req.header("mcp-protocol-version");
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return rpcError(
      c,
      400,
      -32600,
      `Unsupported MCP-Protocol-Version (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  }
  const tooLarge = () => rpcError(c, 413, -32600, `Request body exceeds ${MAX_BODY_BYTES} bytes`);
  const bytes = await readBoundedBody(c.req.raw, MAX_BODY_BYTES);
  if (bytes === BODY_TOO_LARGE) return tooLarge();
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes));
  } catch {
    return rpcError(c, 400, -32700, "Parse error: the body is not valid UTF-8 JSON");
  }
  const list = Array.isArray(raw) ? raw : [raw];
  if (list.length === 0) return rpcError(c, 400, -32600, "Invalid Request: empty batch");
  if (list.length > MAX_BATCH_MESSAGES) {
    return rpcError(c, 400, -32600, `Invalid Request: a batch holds at most ${MAX_BATCH_MESSAGES} messages`);
  }
  const messages: JSONRPCMessage[] = [];
  for (const item of list) {
    const parsed = JSONRPCMessageSchema.safeParse(item);
    if (!parsed.success) {
      const id = idOf(item);
      return rpcError(
        c,
        400,
        -32600,
        `Invalid Request: not a JSON-RPC 2.0 message (${describeZodError(parsed.error)})`,
        id,
      );
    }
    messages.push(parsed.data);
  }
  // Answers are matched to requests by id: two requests with one id could not both be answered.
  const ids = messages.flatMap((m) => ("method" in m && "id" in m ? [m.id] : []));
  if (new Set(ids).size !== ids.length)
    return rpcError(c, 400, -32600, "Invalid Request: duplicate request id in batch");
  return { raw, messages };
}

function mayWait(message: JSONRPCMessage): boolean {
  if (!("method" in message) || message.method !== "tools/call") return false;
  const name = (message.params as { name?: unknown } | undefined)?.name;
  return typeof name === "string" && WAITING_TOOLS.has(name.trim());
}

function idOf(item: unknown): string | number | null {
  const id = typeof item === "object" && item !== null ? (item as { id?: unknown }).id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function rpcError(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  code: number,
  message: string,
  id: string | number | null = null,
): Response {
  return c.json({ jsonrpc: "2.0", error: { code, message }, id }, status);
}
