import { z } from "zod";
import {
  adminLimitsResponseSchema,
  adminListQuerySchema,
  deploymentKeyGrantedSchema,
  deploymentKeyListSchema,
  deploymentKeyRevokedSchema,
  issuedTokenSchema,
  limitOverrideSchema,
  limitsResponseSchema,
  tenantDeletionSchema,
  tenantInfoSchema,
  tenantListSchema,
  tokenListSchema,
} from "../../protocol/admin";
import { tenantConfigSchema } from "../../protocol/config";
import {
  createTenantBodySchema,
  ingestBatchBodySchema,
  ingestBodySchema,
  issueTokenBodySchema,
} from "../../protocol/http";
import { importBodySchema } from "../../protocol/import";
import { sessionsListParamsSchema } from "../../protocol/methods";
import { runListQuerySchema, runListResponseSchema, runQuerySchema, runResponseSchema } from "../../protocol/runs";
import { sessionPatchFieldsSchema } from "../../protocol/session";
import { streamTicketSchema } from "../../protocol/stream-ticket";
import { runCompleteBodySchema, runProgressBodySchema } from "../../protocol/webhooks";
import {
  batchResultSchema,
  createdTenantSchema,
  deleteResultSchema,
  deliveriesSchema,
  healthSchema,
  historyPageSchema,
  ingestResultSchema,
  patchResultSchema,
  reindexResultSchema,
  resetResultSchema,
  revokedTokenSchema,
  runCallbackResultSchema,
  secretSchema,
  serviceInfoSchema,
  sessionsListSchema,
  toolInvokeBodySchema,
  toolResultSchema,
} from "./responses";

/**
 * Every HTTP route of the service, described for the OpenAPI document (built from these by
 * hono-openapi, schemas from zod). A test checks this list against the app's real routes.
 * `tenant` routes are served at the root for DEFAULT_TENANT and under /t/{tenantId}.
 */

export type Operation = {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** Hono path syntax (`:param`), as the route is registered. */
  path: string;
  scope: "root" | "admin" | "tenant";
  tag: string;
  summary: string;
  description?: string;
  /** Who may call it: an operator scope, a run token, the admin token, or anyone. */
  auth: "none" | "admin" | "operator.read" | "operator.write" | "operator.admin" | "run" | "operator.write or run";
  query?: z.ZodObject;
  body?: z.ZodType;
  ok: { status: number; schema?: z.ZodType; description: string; contentType?: string; text?: boolean };
  /** Error statuses besides the auth ones (added from `auth`). */
  errors?: number[];
  /** The OpenAI-compatible routes answer errors in OpenAI's shape. */
  errorShape?: "openai";
};

type Place = Pick<Operation, "scope" | "tag">;

/** A family of routes whose shared fields (where it is served, its tag, maybe its auth) are written once. */
export function operationFamily(
  family: Place & Pick<Operation, "auth">,
  operations: Omit<Operation, "scope" | "tag" | "auth">[],
): Operation[];
export function operationFamily(family: Place, operations: Omit<Operation, "scope" | "tag">[]): Operation[];
export function operationFamily(family: Place & Partial<Operation>, operations: Partial<Operation>[]): Operation[] {
  // Each overload makes the family's fields and an operation's together a whole Operation.
  return operations.map((operation) => ({ ...family, ...operation }) as Operation);
}

const ERROR_TEXT: Record<number, string> = {
  400: "Invalid input (the message names the field).",
  401: "Missing or unknown token (for this tenant).",
  403: "The token lacks the scope, or is a run token where only operators may call.",
  404: "Not found.",
  409: "Conflict.",
  413: "Body over 2 MB, or a message over the per-message limit.",
  429: "Rate limited (Retry-After says when to retry).",
};

export { ERROR_TEXT };

const keyParam =
  "Session key as the caller writes it (`main`, `agent:<agentId>:<name>`, …); URL-encode `:`-free forms freely.";

export const OPERATIONS: Operation[] = [
  // ── MCP ───────────────────────────────────────────────────────────────────
  {
    method: "post",
    path: "/mcp",
    scope: "tenant",
    tag: "MCP",
    summary: "MCP endpoint (Streamable HTTP, JSON-RPC)",
    description:
      "The session tools (sessions_list, sessions_history, sessions_send, sessions_spawn, sessions_wait, session_status, agents_list) and transcripts as resources, for any MCP client. Stateless: no Mcp-Session-Id; GET and DELETE answer 405. Authorization: an operator token, a run token, or an OAuth access token of this tenant; 401 answers carry WWW-Authenticate with the protected-resource metadata.",
    auth: "operator.read",
    body: z.looseObject({ jsonrpc: z.literal("2.0"), method: z.string() }),
    ok: { status: 200, description: "A JSON-RPC response, as JSON or an SSE stream (by Accept)." },
    errors: [400, 405, 406, 413, 415],
  },
  ...operationFamily({ scope: "root", tag: "MCP", auth: "none" }, [
    {
      method: "get",
      path: "/.well-known/oauth-protected-resource/mcp",
      summary: "OAuth protected-resource metadata of the default tenant's MCP endpoint (RFC 9728)",
      ok: { status: 200, description: "Resource and authorization server." },
      errors: [404],
    },
    {
      method: "get",
      path: "/.well-known/oauth-protected-resource/t/:tenantId/mcp",
      summary: "OAuth protected-resource metadata of a tenant's MCP endpoint (RFC 9728)",
      ok: { status: 200, description: "Resource and authorization server." },
      errors: [404],
    },
    {
      method: "get",
      path: "/.well-known/oauth-authorization-server/t/:tenantId",
      summary: "OAuth 2.1 authorization-server metadata of a tenant (RFC 8414)",
      ok: { status: 200, description: "Endpoints, PKCE methods, scopes." },
      errors: [404],
    },
    {
      method: "get",
      path: "/.well-known/oauth-authorization-server",
      summary: "The default tenant's authorization-server metadata, at the root for MCP 2025-03-26 clients",
      ok: { status: 200, description: "Endpoints, PKCE methods, scopes." },
      errors: [404],
    },
    {
      method: "post",
      path: "/t/:tenantId/oauth/register",
      summary: "OAuth dynamic client registration (RFC 7591)",
      ok: { status: 201, description: "The registered client." },
      errors: [400],
    },
    {
      method: "get",
      path: "/t/:tenantId/oauth/authorize",
      summary: "OAuth authorization page: an operator of the tenant pastes an operator token and picks scopes",
      ok: { status: 200, description: "The consent page (HTML).", contentType: "text/html", text: true },
      errors: [400],
    },
    {
      method: "post",
      path: "/t/:tenantId/oauth/authorize",
      summary: "OAuth authorization decision (the consent form)",
      ok: { status: 302, description: "Back to the client's redirect URI with the code or the error." },
      errors: [400, 401],
    },
    {
      method: "post",
      path: "/t/:tenantId/oauth/token",
      summary: "OAuth token endpoint (authorization code with PKCE, refresh)",
      ok: { status: 200, description: "Access and refresh tokens." },
      errors: [400, 401],
    },
  ]),
  // ── Service ───────────────────────────────────────────────────────────────
  ...operationFamily({ scope: "root", tag: "Service", auth: "none" }, [
    {
      method: "get",
      path: "/health",
      summary: "Liveness",
      ok: { status: 200, schema: healthSchema, description: "The service is up." },
    },
    {
      method: "get",
      path: "/openapi.json",
      summary: "This OpenAPI 3.1 document",
      ok: { status: 200, description: "The document.", contentType: "application/json" },
    },
    {
      method: "get",
      path: "/docs",
      summary: "API reference page (Swagger UI, served offline)",
      ok: { status: 200, description: "HTML page rendering /openapi.json.", contentType: "text/html", text: true },
    },
    {
      method: "get",
      path: "/docs/assets/:file",
      summary: "Script and styles of the reference page",
      ok: {
        status: 200,
        description: "swagger-ui-bundle.js or swagger-ui.css.",
        contentType: "text/plain",
        text: true,
      },
      errors: [404],
    },
  ]),
  {
    method: "get",
    path: "/",
    scope: "tenant",
    tag: "Gateway",
    summary: "Gateway WebSocket (upgrade), else service info",
    description:
      "With `Upgrade: websocket` this is the OpenClaw gateway WebSocket (protocol 3 and 4): `connect.challenge`, then a `connect` request carrying `auth.token`. Without, a small JSON description. 404 on upgrade for an unknown tenant.",
    auth: "none",
    ok: { status: 200, schema: serviceInfoSchema, description: "Service info (101 Switching Protocols on upgrade)." },
    errors: [404],
  },

  // ── Admin (ADMIN_TOKEN) ───────────────────────────────────────────────────
  ...operationFamily({ scope: "admin", tag: "Admin", auth: "admin" }, [
    {
      method: "post",
      path: "/v1/admin/tenants",
      summary: "Create a tenant",
      body: createTenantBodySchema,
      ok: { status: 201, schema: createdTenantSchema, description: "Created." },
      errors: [400, 409],
    },
    {
      method: "get",
      path: "/v1/admin/tenants",
      summary: "List tenants (by id, paged)",
      query: adminListQuerySchema,
      ok: { status: 200, schema: tenantListSchema, description: "A page of tenants." },
      errors: [400],
    },
    {
      method: "get",
      path: "/v1/admin/tenants/:id",
      summary: "A tenant with its counts",
      ok: { status: 200, schema: tenantInfoSchema, description: "The tenant." },
      errors: [404],
    },
    {
      method: "delete",
      path: "/v1/admin/tenants/:id",
      summary: "Delete a tenant with all its data (call until done)",
      description:
        "Each call does a bounded step: the first revokes every token and closes the tenant's sockets, then sessions (transcripts, runs, timers, attachments) are deleted a batch at a time, then leftover attachment files, then the tenant's config, index and secrets. 202 while work remains (call again), 200 with `done: true` at the end. Safe to repeat after a failure.",
      ok: {
        status: 200,
        schema: tenantDeletionSchema,
        description: "Deleted (202 with the same body while deleting).",
      },
      errors: [404],
    },
    {
      method: "get",
      path: "/v1/admin/tenants/:id/tokens",
      summary: "List a tenant's tokens (never their secrets)",
      query: adminListQuerySchema,
      ok: { status: 200, schema: tokenListSchema, description: "A page of tokens, newest first." },
      errors: [400, 404],
    },
    {
      method: "post",
      path: "/v1/admin/tenants/:id/tokens",
      summary: "Issue an operator token",
      body: issueTokenBodySchema,
      ok: { status: 201, schema: issuedTokenSchema, description: "The token, shown once." },
      errors: [400, 404],
    },
    {
      method: "delete",
      path: "/v1/admin/tenants/:id/tokens/:tokenId",
      summary: "Revoke a token (closes the sockets it opened)",
      ok: { status: 200, schema: revokedTokenSchema, description: "Revoked." },
      errors: [404],
    },
    {
      method: "get",
      path: "/v1/admin/tenants/:id/deployment-keys",
      summary: "List the deployment keys granted to a tenant (never their values)",
      ok: { status: 200, schema: deploymentKeyListSchema, description: "Granted keys, with their hosts." },
      errors: [404],
    },
    {
      method: "get",
      path: "/v1/admin/tenants/:id/limits",
      summary: "A tenant's limits, their use, the operator's values and the deployment's",
      ok: { status: 200, schema: adminLimitsResponseSchema, description: "The limits." },
      errors: [404],
    },
    {
      method: "put",
      path: "/v1/admin/tenants/:id/deployment-keys/:name",
      summary: "Grant a deployment key (MODEL_KEY_*) to a tenant",
      description:
        "The tenant's runners may then name it with `apiKeySecret`; it is sent only to the hosts DEPLOYMENT_KEY_HOSTS binds it to. 201 when granted now, 200 when it was granted already.",
      ok: { status: 201, schema: deploymentKeyGrantedSchema, description: "Granted." },
      errors: [400, 404],
    },
    {
      method: "delete",
      path: "/v1/admin/tenants/:id/deployment-keys/:name",
      summary: "Revoke a deployment key grant (runs naming it fail from their next attempt)",
      ok: { status: 200, schema: deploymentKeyRevokedSchema, description: "Revoked." },
      errors: [400, 404],
    },
    {
      method: "put",
      path: "/v1/admin/tenants/:id/limits",
      summary: "Set the operator's limits for a tenant (replaces them; {} goes back to the deployment's)",
      body: limitOverrideSchema,
      ok: { status: 200, schema: adminLimitsResponseSchema, description: "The limits now." },
      errors: [400, 404],
    },
    {
      method: "post",
      path: "/v1/admin/tenants/:id/reindex",
      summary: "Rebuild a tenant's session index from its session objects",
      ok: { status: 200, schema: reindexResultSchema, description: "Rebuilt." },
      errors: [404],
    },
  ]),

  // ── Sessions ──────────────────────────────────────────────────────────────
  {
    method: "get",
    path: "/v1/sessions",
    scope: "tenant",
    tag: "Sessions",
    summary: "List sessions (OpenClaw's sessions.list)",
    auth: "operator.read",
    query: sessionsListParamsSchema,
    ok: { status: 200, schema: sessionsListSchema, description: "Rows newest first." },
    errors: [400],
  },
  ...operationFamily({ scope: "tenant", tag: "Sessions", auth: "operator.write" }, [
    {
      method: "post",
      path: "/v1/sessions/:key/messages",
      summary: "Append a message (the first creates the session); run: true starts an agent run",
      description: keyParam,
      body: ingestBodySchema,
      ok: { status: 201, schema: ingestResultSchema, description: "Appended (and the run started)." },
      errors: [400, 413, 429],
    },
    {
      method: "post",
      path: "/v1/sessions/:key/messages/batch",
      summary: "Append up to 1,000 messages atomically",
      body: ingestBatchBodySchema,
      ok: { status: 201, schema: batchResultSchema, description: "Appended." },
      errors: [400, 413],
    },
    {
      method: "patch",
      path: "/v1/sessions/:key",
      summary: "Patch a session (OpenClaw's sessions.patch; null clears; creates when absent)",
      body: sessionPatchFieldsSchema,
      ok: { status: 200, schema: patchResultSchema, description: "The patched entry." },
      errors: [400],
    },
    {
      method: "delete",
      path: "/v1/sessions/:key",
      summary: "Delete a session (main cannot be deleted)",
      ok: { status: 200, schema: deleteResultSchema, description: "Deleted." },
      errors: [400, 404],
    },
    {
      method: "post",
      path: "/v1/sessions/:key/reset",
      summary: "Start a new transcript under the same key",
      ok: { status: 200, schema: resetResultSchema, description: "The new entry." },
      errors: [400],
    },
  ]),
  {
    method: "get",
    path: "/v1/sessions/:key/deliveries",
    scope: "tenant",
    tag: "Sessions",
    summary: "The session's delivery outbox, newest first",
    auth: "operator.read",
    query: z.object({ limit: z.number().optional() }),
    ok: { status: 200, schema: deliveriesSchema, description: "Deliveries." },
    errors: [400],
  },
  {
    method: "post",
    path: "/v1/sessions/:key/import",
    scope: "tenant",
    tag: "Transfer",
    summary: "Import one page of a session copied from another gateway (npm run import)",
    description:
      "Keeps the source's sessionId, message ids, seqs and timestamps; seqs already held are skipped, so a rerun or a resumed copy never doubles a message. 409 when the session here has a different history.",
    auth: "operator.write",
    body: importBodySchema,
    ok: { status: 201, description: "The page was applied (200 when the session already existed)." },
    errors: [400, 409, 413],
  },
  {
    method: "get",
    path: "/v1/export",
    scope: "tenant",
    tag: "Transfer",
    summary: "Every session of the tenant with its entry and transcripts, as a JSONL stream",
    auth: "operator.read",
    ok: {
      status: 200,
      description: "Header line, then per session its entry and transcripts, then an end line with counts.",
      contentType: "application/x-ndjson",
      text: true,
    },
  },
  ...operationFamily({ scope: "tenant", tag: "History", auth: "operator.read" }, [
    {
      method: "get",
      path: "/sessions/:key/history",
      summary: "History (OpenClaw's HTTP surface); SSE follow with Accept: text/event-stream",
      description:
        "`limit` absent = everything (streamed), < 1 → 1, > 1000 → 1000; `cursor` (`seq:N` or `N`) ends the page before it. With `Accept: text/event-stream` (or `follow=1`) the answer is an SSE stream: `event: history`, then `event: message` per append, `: keepalive` every 15 s. Browsers (EventSource) pass `?ticket=` from POST …/history/stream-ticket instead of the Authorization header.",
      query: z.object({
        limit: z.string().optional(),
        cursor: z.string().optional(),
        includeTools: z
          .string()
          .optional()
          .describe(
            "1 = include tool results (default: left out, as sessions_history; the real gateway always includes them).",
          ),
        follow: z.string().optional().describe("1 = SSE."),
        ticket: z.string().optional().describe("A stream ticket (SSE only, single use, one minute)."),
      }),
      ok: { status: 200, schema: historyPageSchema, description: "A history page (or text/event-stream)." },
      errors: [400, 404],
    },
    {
      method: "post",
      path: "/sessions/:key/history/stream-ticket",
      summary: "A single-use, one-minute ticket to follow history with EventSource",
      description:
        "EventSource cannot send an Authorization header. Trade the token for a ticket here, then open `url` (history with `?ticket=`); the ticket works for one connection within a minute and carries the token's rights for this session only.",
      ok: { status: 201, schema: streamTicketSchema, description: "The ticket." },
      errors: [400, 404],
    },
    {
      method: "get",
      path: "/v1/transcripts/:agentId/:file",
      summary: "A transcript as OpenClaw's JSONL (`<sessionId>.jsonl`)",
      ok: { status: 200, description: "JSON lines.", contentType: "application/x-ndjson", text: true },
      errors: [404],
    },
  ]),

  // ── Runs ──────────────────────────────────────────────────────────────────
  {
    method: "get",
    path: "/v1/runs/:runId",
    scope: "tenant",
    tag: "Runs",
    summary: "A run: status, timestamps, error, reply, usage; ?wait= long-polls until it ends",
    auth: "operator.read",
    query: runQuerySchema,
    ok: { status: 200, schema: runResponseSchema, description: "The run (as it is after the wait)." },
    errors: [400, 404],
  },
  {
    method: "get",
    path: "/v1/sessions/:key/runs",
    scope: "tenant",
    tag: "Runs",
    summary: "A session's runs, newest first (paged)",
    auth: "operator.read",
    query: runListQuerySchema,
    ok: { status: 200, schema: runListResponseSchema, description: "A page of runs." },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/v1/runs/:runId/events",
    scope: "tenant",
    tag: "Webhook runner callbacks",
    summary: "Progress of a deferred webhook run (run token of this run)",
    auth: "run",
    body: runProgressBodySchema,
    ok: { status: 200, schema: runCallbackResultSchema, description: "Acknowledged." },
    errors: [400, 404],
  },
  {
    method: "post",
    path: "/v1/runs/:runId/complete",
    scope: "tenant",
    tag: "Webhook runner callbacks",
    summary: "Complete a deferred webhook run (late and repeated calls change nothing)",
    auth: "run",
    body: runCompleteBodySchema,
    ok: { status: 200, schema: runCallbackResultSchema, description: "Acknowledged." },
    errors: [400, 404],
  },
  {
    method: "get",
    path: "/v1/runner-secret",
    scope: "tenant",
    tag: "Webhook runner callbacks",
    summary: "The HMAC key outbound webhook bodies are signed with",
    auth: "operator.admin",
    ok: { status: 200, schema: secretSchema, description: "The secret." },
  },
  {
    method: "post",
    path: "/v1/runner-secret/rotate",
    scope: "tenant",
    tag: "Webhook runner callbacks",
    summary: "Rotate the runner secret",
    auth: "operator.admin",
    ok: { status: 200, schema: secretSchema, description: "The new secret." },
  },

  // ── Config and tools ──────────────────────────────────────────────────────
  {
    method: "get",
    path: "/v1/config",
    scope: "tenant",
    tag: "Config",
    summary: "The tenant config (OpenClaw key names; credentials inside URLs redacted)",
    auth: "operator.read",
    ok: {
      status: 200,
      schema: z.object({ ok: z.literal(true), config: tenantConfigSchema }),
      description:
        'The config; a URL with a user, password or credential query parameter reads "__OPENCLAW_REDACTED__".',
    },
  },
  {
    method: "get",
    path: "/v1/limits",
    scope: "tenant",
    tag: "Config",
    summary: "The tenant's limits in force and what is used of them",
    auth: "operator.read",
    ok: { status: 200, schema: limitsResponseSchema, description: "The limits." },
  },
  {
    method: "put",
    path: "/v1/config",
    scope: "tenant",
    tag: "Config",
    summary:
      'Replace the tenant config (validated whole; unknown keys are errors; "__OPENCLAW_REDACTED__" keeps the stored URL)',
    auth: "operator.admin",
    body: tenantConfigSchema,
    ok: {
      status: 200,
      schema: z.object({ ok: z.literal(true), config: tenantConfigSchema }),
      description: "The stored config.",
    },
    errors: [400],
  },
  {
    method: "post",
    path: "/tools/invoke",
    scope: "tenant",
    tag: "Tools",
    summary: "Invoke a session tool (OpenClaw's /tools/invoke)",
    auth: "operator.write or run",
    body: toolInvokeBodySchema,
    ok: { status: 200, schema: toolResultSchema, description: "The tool's result." },
    errors: [400, 404, 413, 429],
  },
];
